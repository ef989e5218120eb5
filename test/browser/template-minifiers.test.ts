/**
 * The build minifies the static text of our Lit templates
 * (scripts/minify-templates.mjs). Here Chromium itself checks that nothing it
 * would render changes: every stylesheet of the widget parses to the same
 * rules before and after, and HTML keeps its elements, attributes and text.
 */
import type { CSSResult } from 'lit';
import { describe, expect, it } from 'vitest';
import { minifyCss, minifyHtmlPieces } from '../../scripts/template-minifiers.mjs';
import { styles as chat } from '../../src/components/chat/chat.styles.ts';
import { styles as composer } from '../../src/components/composer/composer.styles.ts';
import { styles as contactForm } from '../../src/components/contact-form/contact-form.styles.ts';
import { styles as homeMenu } from '../../src/components/home-menu/home-menu.styles.ts';
import { styles as message } from '../../src/components/message/message.styles.ts';
import { styles as messageList } from '../../src/components/message-list/message-list.styles.ts';
import { styles as widget } from '../../src/components/widget/widget.styles.ts';
import { base, tokens } from '../../src/styles/base.ts';
import { views } from '../../src/styles/views.ts';

const SHEETS: Record<string, CSSResult> = {
  base,
  tokens,
  views,
  chat,
  composer,
  contactForm,
  homeMenu,
  message,
  messageList,
  widget,
};

/**
 * Values Chromium keeps as written (custom properties, anything with var()):
 * compared without the spacing the minifier is allowed to change.
 */
const asWritten = (value: string) =>
  value
    .trim()
    .replace(/\s*([,()])\s*/g, '$1')
    .replace(/(^|[\s,(:])0\.(\d)/g, '$1.$2');

function describeStyle(style: CSSStyleDeclaration) {
  const properties: Record<string, string> = {};
  for (let i = 0; i < style.length; i++) {
    const name = style.item(i);
    const value = style.getPropertyValue(name);
    const priority = style.getPropertyPriority(name);
    properties[name] =
      (name.startsWith('--') || value.includes('var(') ? asWritten(value) : value) +
      (priority ? ` !${priority}` : '');
  }
  // Shorthands holding var() leave their longhands empty: the whole text keeps them in view.
  return { properties, text: asWritten(style.cssText) };
}

function describeRules(list: CSSRuleList): unknown[] {
  return [...list].map((rule) => {
    if (rule instanceof CSSStyleRule)
      return { selector: rule.selectorText, style: describeStyle(rule.style) };
    if (rule instanceof CSSMediaRule)
      return { media: rule.conditionText, rules: describeRules(rule.cssRules) };
    if (rule instanceof CSSKeyframesRule) {
      return {
        keyframes: rule.name,
        frames: [...rule.cssRules].map((k) => ({
          key: (k as CSSKeyframeRule).keyText,
          style: describeStyle((k as CSSKeyframeRule).style),
        })),
      };
    }
    return rule.cssText;
  });
}

function parseCss(text: string): unknown[] {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(text);
  return describeRules(sheet.cssRules);
}

/** Elements, attributes and text (whitespace collapsed as a browser renders it, never trimmed). */
function describeHtml(node: Node): unknown {
  if (node.nodeType === Node.TEXT_NODE) return (node.textContent ?? '').replace(/\s+/g, ' ');
  if (node.nodeType === Node.COMMENT_NODE) return `<!--${(node as Comment).data}-->`;
  const children = [...node.childNodes].map(describeHtml);
  if (!(node instanceof Element)) return children;
  const attributes = Object.fromEntries([...node.attributes].map((a) => [a.name, a.value]));
  return { tag: node.localName, attributes, children };
}

const BINDING = 'b1nd1ng';
function parseHtml(pieces: readonly string[]): unknown {
  const doc = new DOMParser().parseFromString(
    `<!doctype html><body>${pieces.join(BINDING)}</body>`,
    'text/html',
  );
  return describeHtml(doc.body);
}

describe('template minifiers (build)', () => {
  it('every stylesheet of the widget parses to the same rules, minified', () => {
    for (const [name, sheet] of Object.entries(SHEETS)) {
      const minified = minifyCss(sheet.cssText);
      expect(minified.length, name).toBeLessThan(sheet.cssText.length);
      expect(parseCss(minified), name).toEqual(parseCss(sheet.cssText));
    }
  });

  it('keeps what CSS needs: descendant pseudo-classes, strings, calc() spaces, tokens next to bindings', () => {
    expect(minifyCss('.header  :focus-visible { outline: 0; }')).toBe('.header :focus-visible{outline:0}');
    expect(minifyCss(":host([position='top left']) .a { content: ' { ; } '; }")).toBe(
      ":host([position='top left']) .a{content:' { ; } '}",
    );
    expect(minifyCss('.a { width: calc(100% - 2 * var(--x)) ; }')).toBe(
      '.a{width:calc(100% - 2 * var(--x))}',
    );
    expect(minifyCss(' solid ', { openStart: true, openEnd: true })).toBe(' solid ');
    expect(minifyCss('/* a */ .a { opacity: 0.5 } /* b */')).toBe('.a{opacity:.5}');
  });

  it('HTML keeps its elements, attributes and rendered text, minified', () => {
    const templates: string[][] = [
      [
        '\n      <button\n        type="button"\n        class="launcher ',
        '"\n        part="launcher"\n        aria-label=',
        '\n        ?disabled=',
        '\n      >\n        ',
        '\n        ',
        '\n      </button>\n      <div id="panel" role="dialog">\n        ',
        '\n      </div>\n    ',
      ],
      [
        '<li>\n    <button type="button" class="item" part="contact">\n      ',
        '\n      <span class="item__text"\n        ><span class="item__name"><span class="visually-hidden">',
        ' </span>',
        '</span>',
        '</span\n      >\n    </button>\n  </li>',
      ],
      [
        '<label\n        >',
        '<input name="phone" type="tel" autocomplete="tel" maxlength="20" ?disabled=',
        '\n      /></label>\n      <p class="a">Hola, ',
        ' y   más\n        texto</p>',
      ],
      ['<div class="meta">\n      <time datetime=', '>', '</time>\n      ', '\n    </div>'],
    ];
    for (const pieces of templates) {
      const minified = minifyHtmlPieces(pieces);
      expect(minified.join('').length).toBeLessThan(pieces.join('').length);
      expect(parseHtml(minified)).toEqual(parseHtml(pieces));
    }
  });

  it('leaves templates whose whitespace is content alone', () => {
    const pre = ['<pre>\n  a\n    b\n</pre>'];
    expect(minifyHtmlPieces(pre)).toEqual(pre);
    const area = ['<textarea>\n  typed\n</textarea>'];
    expect(minifyHtmlPieces(area)).toEqual(area);
    // An empty text area (value bound as a property) is safe to tidy around.
    expect(minifyHtmlPieces(['<div>\n  <textarea\n    rows="1"\n  ></textarea>\n</div>'])).toEqual([
      '<div> <textarea rows="1"></textarea> </div>',
    ]);
  });
});
