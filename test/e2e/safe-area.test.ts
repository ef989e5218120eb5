/**
 * A phone whose screen has a notch and a home indicator, on a customer page with
 * `viewport-fit=cover` (the page then reaches under them, and the widget has to keep clear):
 * Chromium's safe-area emulation (CDP Emulation.setSafeAreaInsetsOverride) sets
 * env(safe-area-inset-*). The closed launcher keeps its 24 px from the safe area's edge; the
 * full-screen panel's close button is below the notch, its composer above the home indicator, and
 * on its side the chat keeps clear of both sides. Without insets everything is where it was.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  callWidget,
  firstWidgetReady,
  hostileSite,
  placement,
  shopPage,
  themedWidget,
} from './host-page-site.ts';

const site = hostileSite();
const HEAD = '<meta name="viewport" content="width=device-width, viewport-fit=cover">';
type Insets = { top: number; right: number; bottom: number; left: number };

/** The shop page at this size with these insets (none: no emulation), the full widget ready. */
async function visit(name: string, viewport: { width: number; height: number }, insets?: Insets) {
  const key = await themedWidget(site.service);
  const url = site.page(name, shopPage(site.service, key, { head: HEAD }));
  const context = await site.browser.newContext({ viewport, locale: 'es-ES' });
  const page = await context.newPage();
  if (insets)
    await (await context.newCDPSession(page)).send('Emulation.setSafeAreaInsetsOverride', { insets });
  await page.goto(url);
  await firstWidgetReady(page);
  return page;
}

/** The closed launcher's box, then (opened) the close button's and the chat's and composer's. */
async function measure(page: Page) {
  const launcher = await placement(page, 'launcher');
  await callWidget(page, 'open');
  await page.locator('charla-composer').waitFor();
  // The panel slides in: measured where it comes to rest.
  await page.locator('charla-widget').evaluate((host) =>
    Promise.all(
      host
        .shadowRoot!.querySelector('.panel')!
        .getAnimations()
        .map((a) => a.finished),
    ),
  );
  const close = await placement(page, 'close');
  const box = (selector: string) =>
    page.locator(selector).evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: Math.round(r.left), right: Math.round(r.right), bottom: Math.round(r.bottom) };
    });
  return { launcher, close, chat: await box('charla-chat'), composer: await box('charla-composer') };
}

describe('the widget in a phone’s safe area (viewport-fit=cover)', () => {
  it('upright, notch 47 px and home indicator 34 px: nothing under either', async () => {
    const page = await visit(
      'safe-upright',
      { width: 390, height: 844 },
      { top: 47, right: 0, bottom: 34, left: 0 },
    );
    const m = await measure(page);
    expect(m.launcher).toMatchObject({ x: 390 - 24 - 56, y: 844 - 34 - 24 - 56, top: true });
    expect(m.close!.y).toBeGreaterThanOrEqual(47);
    expect(m.close!.top).toBe(true);
    expect(m.composer.bottom).toBe(844 - 34);
    await page.context().close();
  });

  it('on its side, 47 px each side and 21 px below: the chat keeps clear of both sides', async () => {
    const page = await visit(
      'safe-side',
      { width: 844, height: 390 },
      { top: 0, right: 47, bottom: 21, left: 47 },
    );
    const m = await measure(page);
    expect(m.launcher).toMatchObject({ x: 844 - 47 - 24 - 56, y: 390 - 21 - 24 - 56 });
    expect(m.chat).toEqual({ left: 47, right: 844 - 47, bottom: 390 - 21 });
    await page.context().close();
  });

  it('without insets (0, or no emulation) everything is where it always was', async () => {
    const none = await visit('safe-none', { width: 390, height: 844 });
    const zero = await visit(
      'safe-zero',
      { width: 390, height: 844 },
      { top: 0, right: 0, bottom: 0, left: 0 },
    );
    const [a, b] = [await measure(none), await measure(zero)];
    expect(a.launcher).toMatchObject({ x: 390 - 24 - 56, y: 844 - 24 - 56 });
    expect(a.composer.bottom).toBe(844);
    expect(a.chat).toEqual({ left: 0, right: 390, bottom: 844 });
    expect(b).toEqual(a);
    await none.context().close();
    await zero.context().close();
  });
});
