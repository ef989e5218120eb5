/**
 * Journey: a customer site whose CSS is hostile to embedded widgets, on
 * another origin than the service, with the documented script tag. The
 * launcher and the panel stay in the viewport's corner and on top whatever
 * the page does to body (transform, filter, will-change, contain), to the
 * stacking order (fixed header and footer at z-index 2147483647) or to the
 * zoom; inherited page styles (white-space, word-break, text-indent, cursor,
 * color-scheme, direction, box-sizing, ...) never reach the widget's inside;
 * and the widget's CSS never reaches the page's own elements.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { enterBotConversation, messagesRegion, need, openPage, until } from './helpers.ts';
import {
  callWidget,
  firstWidgetReady,
  hostileSite,
  placement,
  shopPage,
  themedWidget,
} from './host-page-site.ts';

const site = hostileSite();
const VIEWPORT = { width: 1280, height: 900 };
const TALL = 'main{height:3000px}';

async function visit(name: string, head: string, attrs?: string): Promise<Page> {
  const key = await themedWidget(site.service);
  const url = site.page(name, shopPage(site.service, key, { head: `<style>${head}</style>`, attrs }));
  return (await openPage(site.browser, url, VIEWPORT)).page;
}

/** The launcher and the open panel's close button: on screen, in the bottom-right corner, and on top. */
async function expectPlaced(page: Page, what: string): Promise<void> {
  const launcher = await until(`the launcher (${what})`, () =>
    placement(page, 'launcher').then((p) => p ?? undefined),
  );
  expect(launcher, `launcher, ${what}`).toEqual({
    x: 1280 - 24 - 56,
    y: 900 - 24 - 56,
    w: 56,
    h: 56,
    top: true,
  });
  await firstWidgetReady(page);
  await callWidget(page, 'open');
  const close = await until(`the panel's close button (${what})`, () =>
    placement(page, 'close').then((p) => p ?? undefined),
  );
  expect(close.y, `close button on screen, ${what}`).toBeGreaterThanOrEqual(0);
  expect(close.y + close.h, `close button on screen, ${what}`).toBeLessThanOrEqual(900);
  expect(close.top, `close button on top, ${what}`).toBe(true);
  const launcherNow = await placement(page, 'launcher');
  expect(launcherNow?.top, `launcher on top once open, ${what}`).toBe(true);
}

describe('journey: the widget placed on a hostile page', () => {
  for (const [name, css] of [
    ['body transform', `body{transform:translateZ(0)}${TALL}`],
    ['body filter', `body{filter:saturate(1.1)}${TALL}`],
    ['body will-change', `body{will-change:transform}${TALL}`],
    ['body contain', `body{contain:paint;height:300px;overflow:auto}${TALL}`],
    ['page transform on every element', `*{transform:translateZ(0);position:relative;z-index:1}${TALL}`],
    [
      'fixed header and footer at z-index 2147483647',
      '#site-header,main{position:fixed;left:0;right:0;z-index:2147483647;background:#222;color:#fff}#site-header{top:0;height:240px}main{bottom:0;height:120px}',
    ],
  ] as const) {
    it(`${name}: launcher and panel stay in the viewport's corner, on top`, async () => {
      const page = await visit(name.replace(/\W+/g, '-'), css);
      await expectPlaced(page, name);
      await page.context().close();
    });
  }

  it("the loader's launcher, before the full widget arrives, is placed the same on a transformed body", async () => {
    const key = await themedWidget(site.service);
    const url = site.page(
      'loader-transform',
      shopPage(site.service, key, { head: `<style>body{transform:translateZ(0)}${TALL}</style>` }),
    );
    const context = await site.browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    // The full bundle never arrives: only the loader's launcher is there.
    await page.route('**/charla.iife.js', (route) => route.abort());
    await page.goto(url);
    const p = await until('the loader launcher', () =>
      placement(page, 'launcher').then((x) => x ?? undefined),
    );
    expect(p).toEqual({ x: 1280 - 24 - 56, y: 900 - 24 - 56, w: 56, h: 56, top: true });
    await context.close();
  });

  it("the loader's launcher shows its focus with a white ring inside a dark one, seen on any page colour", async () => {
    const key = await themedWidget(site.service);
    const url = site.page(
      'loader-focus',
      shopPage(site.service, key, { head: '<style>body{background:#111}</style>' }),
    );
    const context = await site.browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    await page.route('**/charla.iife.js', (route) => route.abort());
    await page.goto(url);
    const button = page.locator('charla-loader button');
    await button.waitFor();
    await button.focus();
    const ring = await button.evaluate((el) => {
      const cs = getComputedStyle(el);
      return {
        visible: el.matches(':focus-visible'),
        outline: `${cs.outlineStyle} ${cs.outlineColor}`,
        shadow: cs.boxShadow,
      };
    });
    expect(ring.visible).toBe(true);
    expect(ring.outline).toBe('solid rgb(17, 17, 17)');
    // The white ring fills the outline's offset: white on a dark page, the dark outline on a light one.
    expect(ring.shadow).toBe('rgb(255, 255, 255) 0px 0px 0px 3px');
    await context.close();
  });

  it('html { zoom: 1.5 }: the open panel is bigger and still fits the viewport (its close button reachable)', async () => {
    const page = await visit('zoom', 'html{zoom:1.5}');
    await firstWidgetReady(page);
    await callWidget(page, 'open');
    const close = await until('the close button', () => placement(page, 'close').then((p) => p ?? undefined));
    expect(close.w).toBe(60);
    expect(close.y).toBeGreaterThanOrEqual(0);
    expect(close.top).toBe(true);
    await page.context().close();
  });
});

/** Computed styles of every element inside the widget (walking nested shadow roots), keyed by path. */
async function insideStyles(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const props = [
      'font-size',
      'line-height',
      'letter-spacing',
      'word-spacing',
      'text-transform',
      'text-align',
      'white-space',
      'color',
      'background-color',
      'font-style',
      'font-weight',
      'font-family',
      'font-variant-caps',
      'direction',
      'cursor',
      'color-scheme',
      'visibility',
      'text-indent',
      'text-shadow',
      'word-break',
      'box-sizing',
      '-webkit-text-fill-color',
      'width',
      'height',
    ];
    const out: Record<string, string> = {};
    const walk = (root: ShadowRoot, path: string) => {
      // Keyed by tag, id and class, numbered among their likes: an element one page shows for a
      // moment (a connection notice, an announcement) shifts no other element's key.
      const seen = new Map<string, number>();
      root.querySelectorAll('*').forEach((el) => {
        const kind = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.getAttribute('class') ?? ''}`;
        const n = seen.get(kind) ?? 0;
        seen.set(kind, n + 1);
        const key = `${path}>${kind}:${n}`;
        const cs = getComputedStyle(el);
        out[key] = props.map((p) => `${p}=${cs.getPropertyValue(p)}`).join('; ');
        if (el.shadowRoot) walk(el.shadowRoot, key);
      });
    };
    walk(document.querySelector('charla-widget')!.shadowRoot!, 'charla-widget');
    // Only the rows every page shows alike: the panel's chrome and the composer, not the message list's scroll.
    for (const k of Object.keys(out)) if (k.includes('charla-message-list>')) delete out[k];
    return out;
  });
}

async function inConversation(
  name: string,
  head: string,
  attrs?: string,
): Promise<{ page: Page; styles: Record<string, string> }> {
  const page = await visit(name, head, attrs);
  await enterBotConversation(page);
  await need(messagesRegion(page).getByRole('button', { name: /^Texto/ }), 'the demo bot’s tour options');
  return { page, styles: await insideStyles(page) };
}

/**
 * The elements both pages have whose computed styles differ. An element only
 * one page has is timing, not style (the log region's announcements, say, come
 * and go): left out, as long as nearly all of them are shared.
 */
function differences(a: Record<string, string>, b: Record<string, string>): string[] {
  const out: string[] = [];
  const shared = Object.keys(a).filter((k) => k in b);
  const only = [...Object.keys(a), ...Object.keys(b)].filter((k) => !(k in a && k in b));
  expect(shared.length, `elements both pages have (one page only: ${only.join(', ')})`).toBeGreaterThan(
    0.9 * Math.max(Object.keys(a).length, Object.keys(b).length),
  );
  for (const k of shared) {
    if (a[k] === b[k]) continue;
    const pa = (a[k] ?? '').split('; ');
    const pb = (b[k] ?? '').split('; ');
    out.push(`${k}: ${pb.filter((p) => !pa.includes(p)).join('; ') || '(missing)'}`);
  }
  return out;
}

const INHERITED = `html{font-size:30px;color-scheme:dark}
body{line-height:3;letter-spacing:5px;word-spacing:1em;text-transform:uppercase;text-align:right;white-space:pre;
color:red;font-style:italic;cursor:none;font-weight:900;text-indent:40px;text-shadow:2px 2px red;word-break:break-all;
font-variant:small-caps;font-family:'Comic Sans MS',cursive;-webkit-text-fill-color:red}
html{box-sizing:content-box}*,*::before,*::after{box-sizing:inherit;transition:all 5s}
button{all:unset}`;

describe('journey: the page’s CSS stays out of the widget', () => {
  it('inherited page styles, a page in dir="rtl" Arabic and * { box-sizing: inherit } change nothing inside', async () => {
    const clean = await inConversation('clean', '');
    const hostile = await inConversation('inherited', INHERITED);
    expect(differences(clean.styles, hostile.styles)).toEqual([]);
    const rtl = await inConversation('rtl', '', 'lang="ar" dir="rtl"');
    expect(differences(clean.styles, rtl.styles)).toEqual([]);
    // A page rule on every element, <charla-widget> included, makes it inherit from the page
    // (its own :host reset is outranked): the widget's important text properties still hold.
    const unset = await inConversation('all-unset', `*{all:unset}${INHERITED.replaceAll('body{', 'html{')}`);
    expect(differences(clean.styles, unset.styles)).toEqual([]);
    for (const v of [clean, hostile, rtl, unset]) await v.page.context().close();
  });

  it('the widget’s CSS never reaches the page: its own elements compute the same before and after', async () => {
    const key = await themedWidget(site.service, {
      primaryColor: '#0f766e',
      font: { name: 'Inter', googlefont: false },
    });
    const url = site.page(
      'leak-out',
      shopPage(site.service, key, { tag: 'data-position="bl"' }).replace(
        '<script src=',
        '<script id="later" type="text/plain" data-src=',
      ),
    );
    const { page } = await openPage(site.browser, url, VIEWPORT);
    const snapshot = () =>
      page.evaluate(() =>
        ['html', 'body', '#site-header', 'h1', '#copy', '#buy', '#more'].map((s) => {
          const cs = getComputedStyle(document.querySelector(s)!);
          return `${s} ${[...cs]
            .filter((p) => !p.startsWith('--'))
            .map((p) => `${p}:${cs.getPropertyValue(p)}`)
            .join(';')}`;
        }),
      );
    const before = await snapshot();
    // Now the documented script tag, as a page adds it: the widget arrives, connects and opens.
    await page.evaluate(() => {
      const old = document.getElementById('later')!;
      const s = document.createElement('script');
      for (const a of old.attributes) if (a.name.startsWith('data-')) s.setAttribute(a.name, a.value);
      s.src = old.dataset['src']!;
      document.body.append(s);
    });
    await firstWidgetReady(page);
    await enterBotConversation(page);
    await need(messagesRegion(page).getByRole('button', { name: /^Texto/ }), 'the demo bot’s tour options');
    expect(await snapshot()).toEqual(before);
    await page.context().close();
  });
});
