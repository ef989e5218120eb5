/**
 * Settings shared by the bundles of scripts/build.mjs and the in-memory
 * rebuilds of bench/size.mjs, so the size bench measures what is shipped.
 */
import { minifyTemplates } from './minify-templates.mjs';

/** Plugins of every browser bundle: Lit's css``/html`` templates lose their source formatting. */
export function browserPlugins() {
  return [minifyTemplates()];
}

/**
 * Output settings of the script-tag (IIFE) bundles. They add to `window.Charla`
 * instead of replacing what the loader put there (`extend`), and are plain
 * ASCII (`charset: 'ascii'` writes `\u00E1` for "á"), so a page that serves
 * or includes the script without a UTF-8 charset still shows "más", not "mÃ¡s".
 */
export const SCRIPT_TAG_OUTPUT = { extend: true, charset: 'ascii' };

/**
 * Rolldown options of the script-tag bundles: imported constants are inlined
 * where they are used, not only in conditions (measured: about 70 B gzip less).
 */
export const SCRIPT_TAG_ROLLDOWN = { optimization: { inlineConst: { mode: 'all', pass: 2 } } };

/**
 * Terser options of the last pass over the script-tag bundles (after Oxc's
 * minifier, which Terser does not replace: the two in a row give the smallest
 * file; measured on charla.iife.js: Oxc alone 63,351 B gzip, Terser alone
 * 62,049 B, both 61,539 B).
 * - `compress.passes: 3`: only the safe transforms (no `unsafe`, no
 *   `pure_getters`: a layout read such as `el.offsetHeight` must stay).
 * - `mangle.properties` for names starting `_` and a letter: the private
 *   fields of @lit-labs/virtualizer, engine.io-client and socket.io-client
 *   (and our subclass of the virtualizer's layout, renamed with them).
 *   Lit's cross-version `_$...` fields do not match, nor `__charlaFull`.
 *   `_placeholder` is socket.io's wire format for binary attachments. Each
 *   bundle is renamed alone, so the loader and the full bundle must not share
 *   `_`-named properties (they share only `window.Charla`'s public ones).
 * - `ascii_only`: the bundles stay plain ASCII (SCRIPT_TAG_OUTPUT's charset).
 */
export const FINAL_TERSER_OPTIONS = {
  ecma: 2020,
  module: false,
  compress: { passes: 3 },
  mangle: { properties: { regex: /^_[A-Za-z]/, reserved: ['_placeholder'] } },
  format: { ascii_only: true },
};

/**
 * @lit-labs/virtualizer loads its default layout with `await import('./layouts/flow.js')`
 * when it is given none. Charla always gives one (a subclass of that same flow layout,
 * imported statically), but the dynamic import alone makes Rolldown wrap the layout's
 * three modules in lazy initialisers inside a one-file bundle (measured: 103 B gzip).
 * The script-tag bundles read the same FlowLayout from a static import instead (the
 * code only takes `.FlowLayout` of the module), still through an `await`; if a later
 * virtualizer writes the import differently, nothing is rewritten.
 */
const VIRTUALIZER_DEFAULT_LAYOUT = "(await import('./layouts/flow.js'))";

function virtualizerDefaultLayout() {
  return {
    name: 'charla-virtualizer-default-layout',
    transform(code, id) {
      if (!/[\\/]@lit-labs[\\/]virtualizer[\\/]Virtualizer\.js$/.test(id)) return null;
      if (!code.includes(VIRTUALIZER_DEFAULT_LAYOUT)) return null;
      return {
        code: `import { FlowLayout as charlaFlowLayout } from './layouts/flow.js';\n${code.replace(
          VIRTUALIZER_DEFAULT_LAYOUT,
          '(await { FlowLayout: charlaFlowLayout })',
        )}`,
        map: null,
      };
    },
  };
}

/**
 * engine.io-client's default transports are WebSocket, WebTransport and XHR
 * long-polling. The Charla service offers WebSocket and long-polling only (the
 * widget's default is `['websocket', 'polling']`), so the script-tag bundles
 * leave the WebTransport class out of that table (measured: 830 B gzip).
 * If a later engine.io-client writes the table differently, nothing is rewritten.
 */
const WEBTRANSPORT_IMPORT = 'import { WT } from "./webtransport.js";';
const WEBTRANSPORT_ENTRY = /^\s*webtransport: WT,\n/m;

function withoutWebTransport() {
  return {
    name: 'charla-without-webtransport',
    transform(code, id) {
      if (!/[\\/]engine\.io-client[\\/]build[\\/]esm[\\/]transports[\\/]index\.js$/.test(id)) return null;
      if (!code.includes(WEBTRANSPORT_IMPORT) || !WEBTRANSPORT_ENTRY.test(code)) return null;
      return { code: code.replace(WEBTRANSPORT_IMPORT, '').replace(WEBTRANSPORT_ENTRY, ''), map: null };
    },
  };
}

/**
 * Plugins of the script-tag bundles only: the virtualizer's default layout
 * without a dynamic import, engine.io-client without WebTransport, and Terser over Oxc's minified output
 * (FINAL_TERSER_OPTIONS).
 */
export function scriptTagPlugins() {
  return [
    virtualizerDefaultLayout(),
    withoutWebTransport(),
    {
      name: 'charla-final-minify',
      // After Rolldown's own minifier (generateBundle sees the minified chunks).
      async generateBundle(_options, bundle) {
        const { minify } = await import('terser');
        for (const chunk of Object.values(bundle)) {
          if (chunk.type !== 'chunk') continue;
          const result = await minify(chunk.code, FINAL_TERSER_OPTIONS);
          if (typeof result.code !== 'string')
            throw new Error(`terser produced nothing for ${chunk.fileName}`);
          chunk.code = result.code;
        }
      },
    },
  ];
}
