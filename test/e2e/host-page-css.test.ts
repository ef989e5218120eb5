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
import { openPage, until } from './helpers.ts';
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
