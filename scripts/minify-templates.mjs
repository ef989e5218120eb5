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
 *   attributes they become one space, before a tag's `>` or `/>` nothing;
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

const TAGS = new Set(['css', 'html', 'svg']);

/** Minifies one static piece of a `css` template. `open*` say a binding touches that side. */
export function minifyCss(text, { openStart = false, openEnd = false } = {}) {
  // Strings and comments first, so nothing inside a string is ever touched.
  const TOKEN = /\/\*[\s\S]*?\*\/|"(?:\\[\s\S]|[^"\\\n])*"|'(?:\\[\s\S]|[^'\\\n])*'/g;
  const squeeze = (code) =>
    code
      .replace(/\s+/g, ' ')
      .replace(/ ?([{};,>]) ?/g, '$1')
      .replace(/: /g, ':')
      .replace(/\( /g, '(')
      .replace(/ \)/g, ')')
      .replace(/ !important/g, '!important')
      .replace(/;}/g, '}')
      .replace(/([\s:,(]|^)0\.(\d)/g, '$1.$2');
  let out = '';
  let code = '';
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    code += text.slice(last, match.index);
    last = match.index + match[0].length;
    // A comment still separates the tokens around it; a string is copied as it is.
    if (match[0].startsWith('/*')) {
      code += ' ';
    } else {
      out += squeeze(code) + match[0];
      code = '';
    }
  }
  out += squeeze(code + text.slice(last));
  if (openStart) out = out.replace(/^\s+/, ' ');
  else out = out.replace(/^\s+/, '');
  if (openEnd) out = out.replace(/\s+$/, ' ');
  else out = out.replace(/\s+$/, '');
  return out;
}

/** True when whitespace in this HTML is content (so the template is left alone). */
function whitespaceMatters(html) {
  if (/<(pre|script|style)\b/i.test(html)) return true;
  // An empty <textarea></textarea> (value bound as a property) has no text to keep.
  for (const m of html.matchAll(/<textarea\b/gi)) {
    const close = html.indexOf('>', m.index);
    if (close < 0 || !/^>\s*<\/textarea>/i.test(html.slice(close)) || /^>\s+</.test(html.slice(close)))
      return true;
  }
  return false;
}

/**
 * Minifies the static pieces of one `html`/`svg` template (all pieces at once:
 * whether a piece starts inside a tag depends on the pieces before it).
 */
export function minifyHtmlPieces(pieces) {
  if (whitespaceMatters(pieces.join('\u0000'))) return pieces;
  let state = 'text'; // 'text' | 'tag' | 'attr"' | "attr'" | 'comment'
  return pieces.map((piece) => {
    let out = '';
    let i = 0;
    while (i < piece.length) {
      const c = piece[i];
      if (state === 'comment') {
        const end = piece.indexOf('-->', i);
        if (end < 0) {
          out += piece.slice(i);
          break;
        }
        out += piece.slice(i, end + 3);
        i = end + 3;
        state = 'text';
        continue;
      }
      if (state === 'attr"' || state === "attr'") {
        out += c;
        if (c === state[4]) state = 'tag';
        i++;
        continue;
      }
      if (/\s/.test(c)) {
        let j = i;
        while (j < piece.length && /\s/.test(piece[j])) j++;
        const run = piece.slice(i, j);
        const next = piece[j];
        if (!run.includes('\n')) out += run;
        else if (state === 'tag') out += next === '>' || (next === '/' && piece[j + 1] === '>') ? '' : ' ';
        else out += ' ';
        i = j;
        continue;
      }
      if (state === 'text') {
        if (piece.startsWith('<!--', i)) {
          state = 'comment';
          continue;
        }
        if (c === '<' && /[A-Za-z/]/.test(piece[i + 1] ?? '')) state = 'tag';
      } else if (state === 'tag') {
        if (c === '"' || c === "'") state = `attr${c}`;
        else if (c === '>') state = 'text';
      }
      out += c;
      i++;
    }
    return out;
  });
}

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
            ? raws.map((raw, k) =>
                minifyCss(raw, { openStart: k > 0, openEnd: k < raws.length - 1 }),
              )
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
