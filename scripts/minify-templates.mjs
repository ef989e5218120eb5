/**
 * A build plugin that shrinks the static text of Lit's tagged templates in our
 * own sources: `css` templates lose comments and the whitespace CSS does not
 * need; `html` and `svg` templates lose their source indentation. Bindings
 * (`${...}`) are untouched, and so is anything whose whitespace could matter.
 *
 * Rules, each chosen so the rendered result cannot change:
 * - CSS: comments go; whitespace runs become one space, and go entirely next
 *   to `{ } ; , >`, inside `( )`, before `!important` and after `:` (never before `:`, which would turn the
 *   descendant selector `.a :hover` into `.a:hover`); the last `;` of a block
 *   goes; `0.5` becomes `.5`. Quoted strings are copied as they are. A piece
 *   next to a binding keeps one space on that side, so `${x} solid` stays two tokens.
 * - HTML/SVG: only whitespace runs that contain a line break are touched (that
 *   is source formatting; a space typed on one line is kept). Between
 *   attributes they become one space, before a tag's `>` nothing;
 *   in text they become one space (what a browser renders them as), never
 *   nothing, so words and inline elements stay apart. Attribute values are
 *   copied as they are. A template holding `<pre>`, `<script>`, `<style>` or a
 *   non-empty `<textarea>` is left alone (their whitespace is content).
 * - Any template piece with a backslash is left alone: its raw text would
 *   need escape-aware handling that no template of ours needs.
 *
 * Runs before TypeScript is stripped (`enforce: 'pre'`) on `src/**.ts`, finds
 * the templates with Rolldown's parser (no regex guessing at template
 * boundaries) and returns a source map, so the ESM build's maps stay right.
 */
import { RolldownMagicString } from 'rolldown';
import { parseAst } from 'rolldown/parseAst';
import { minifyCss, minifyHtmlPieces } from './template-minifiers.mjs';

const TAGS = new Set(['css', 'html', 'svg']);

/** Rewrites the templates of one module; null when nothing changed. */
export function minifyTemplatesIn(code, id) {
  if (!/\b(css|html|svg)`/.test(code)) return null;
  const ast = parseAst(code, { lang: id.endsWith('.ts') ? 'ts' : 'js', sourceType: 'module' }, id);
  const s = new RolldownMagicString(code);
  let changed = false;
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (
      node.type === 'TaggedTemplateExpression' &&
      node.tag?.type === 'Identifier' &&
      TAGS.has(node.tag.name)
    ) {
      const quasis = node.quasi.quasis;
      // Oxc's spans include the delimiters (the backtick, `}`, `${`): the text starts one after.
      const spans = quasis.map((q) => [q.start + 1, q.start + 1 + q.value.raw.length]);
      const raws = spans.map(([a, b]) => code.slice(a, b));
      // The offsets must frame exactly the raw text; anything else and we leave the template be.
      const framed = raws.every((raw, k) => raw === quasis[k].value.raw);
      if (framed && !raws.some((raw) => raw.includes('\\'))) {
        const next =
          node.tag.name === 'css'
            ? raws.map((raw, k) => minifyCss(raw, { openStart: k > 0, openEnd: k < raws.length - 1 }))
            : minifyHtmlPieces(raws);
        next.forEach((text, k) => {
          if (text === raws[k]) return;
          changed = true;
          const [a, b] = spans[k];
          if (text === '') s.remove(a, b);
          else s.overwrite(a, b, text);
        });
      }
    }
    for (const key of Object.keys(node)) {
      if (key === 'type' || key === 'start' || key === 'end' || key === 'range') continue;
      const value = node[key];
      if (value && typeof value === 'object') visit(value);
    }
  };
  visit(ast);
  if (!changed) return null;
  const map = JSON.parse(s.generateMap({ hires: true, source: id, includeContent: true }).toString());
  return { code: s.toString(), map };
}

/** The Vite/Rolldown plugin: our own `src/` modules only (dependencies ship as their authors built them). */
export function minifyTemplates({ include = /\/src\/.*\.ts$/ } = {}) {
  return {
    name: 'charla:minify-templates',
    enforce: 'pre',
    transform: {
      filter: { id: include },
      handler(code, id) {
        return minifyTemplatesIn(code, id.split('?')[0]);
      },
    },
  };
}
