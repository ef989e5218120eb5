/**
 * The text rules of scripts/minify-templates.mjs, apart from the bundler so
 * that a browser test can check them against Chromium's own CSS parser
 * (test/browser/template-minifiers.test.ts). Pure functions, no imports.
 */

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
        // Before `>` nothing; before `/>` one space, so an unquoted value (`a=${x} />`) never takes the slash.
        else if (state === 'tag') out += next === '>' ? '' : ' ';
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
