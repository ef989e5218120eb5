/** Custom Elements Manifest analyzer (`cem analyze`): Lit components only, written to ./custom-elements.json. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const eventsDir = join(dirname(fileURLToPath(import.meta.url)), 'src', 'events');

/**
 * The widget's DOM events, one class a file in src/events/: its type
 * (`super('charla-…')`), class name and one-line doc comment.
 */
function widgetEvents() {
  return readdirSync(eventsDir)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => {
      const code = readFileSync(join(eventsDir, f), 'utf8');
      const declared =
        /\/\*\*\s*((?:(?!\*\/)[\s\S])*?)\s*\*\/\s*export class (\w+) extends CharlaEvent<(\w+)>/.exec(code);
      const type = /super\('(charla-[a-z-]+)'/.exec(code);
      if (!declared || !type) return [];
      const [, doc, className, detail] = declared;
      return [
        {
          name: type[1],
          type: { text: className },
          description: `${doc.replace(/\s*\n\s*\*\s*/g, ' ')} \`detail\`: ${detail}.`,
        },
      ];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

export default {
  globs: ['src/components/**/*.ts'],
  exclude: ['src/**/*.styles.ts', 'src/**/*.test.ts'],
  outdir: '.',
  litelement: true,
  // package.json already names the manifest; never let the analyzer rewrite it.
  packagejson: false,
  plugins: [
    {
      // The package ships the elements in one module, dist/charla.js (`import { CharlaWidget } from
      // 'charla'`), which also defines their tags; the source modules the analyzer read are not shipped.
      // So the manifest lists one module, that one, with the elements, their classes as exports and
      // their tags as custom-element definitions (helpers of the sources, not exported, are left out).
      name: 'charla-shipped-module',
      packageLinkPhase({ customElementsManifest }) {
        const path = 'dist/charla.js';
        const elements = (customElementsManifest.modules ?? [])
          .flatMap((mod) => mod.declarations ?? [])
          .filter((d) => d.customElement && d.tagName)
          .sort((a, b) => a.tagName.localeCompare(b.tagName));
        if (elements.length === 0) throw new Error('the analyzer found no custom elements');
        const at = (name) => ({ name, module: path });
        customElementsManifest.modules = [
          {
            kind: 'javascript-module',
            path,
            declarations: elements,
            exports: elements.flatMap((d) => [
              { kind: 'js', name: d.name, declaration: at(d.name) },
              { kind: 'custom-element-definition', name: d.tagName, declaration: at(d.name) },
            ]),
          },
        ];
      },
    },
    {
      // The widget core dispatches its events on <charla-widget> (README "Events and stores"),
      // not the component's code, so the analyzer cannot see them there.
      name: 'charla-widget-events',
      packageLinkPhase({ customElementsManifest }) {
        const events = widgetEvents();
        if (events.length === 0) throw new Error(`no event classes found in ${eventsDir}`);
        for (const mod of customElementsManifest.modules ?? []) {
          for (const declaration of mod.declarations ?? []) {
            if (declaration.tagName !== 'charla-widget') continue;
            const known = new Set((declaration.events ?? []).map((e) => e.name));
            declaration.events = [...(declaration.events ?? []), ...events.filter((e) => !known.has(e.name))];
          }
        }
      },
    },
  ],
};
