/**
 * Journey: a customer who writes the documented script tag as a module
 * (`<script type="module" src=".../charla.js" data-init="true">`), on another
 * origin than the service. A module has no document.currentScript: the
 * widget still finds its own tag (its data-* attributes, and the address the
 * full bundle is loaded from) and works as with the classic tag. And a page
 * (or its CMS) that repeats the snippet gets one widget, not two launchers.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  enterBotConversation,
  messageInput,
  messagesRegion,
  need,
  openPage,
  panel,
  visitorId,
} from './helpers.ts';
import { firstWidgetReady, hostileSite, shopPage, themedWidget } from './host-page-site.ts';

const site = hostileSite();

/**
 * The shop page with its widget (as `edit` makes it over), whose full bundle is held back
 * until `release()`.
 */
async function shopWithBundleHeld(name: string, edit: (html: string) => string = (html) => html) {
  const key = await themedWidget(site.service);
  const url = site.page(name, edit(shopPage(site.service, key)));
  const { page, context } = await openPage(site.browser, 'about:blank');
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/charla.iife.js', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(url);
  /** Lets the bundle in and waits until the full widget has taken the loader's launcher's place. */
  const swap = async () => {
    release();
    await firstWidgetReady(page);
    await page.waitForFunction(() => !document.querySelector('charla-loader'));
  };
  return { page, context, release, swap };
}

/** Focus is in the full widget's panel. */
function focusInPanel(page: Page): Promise<unknown> {
  return page.waitForFunction(() => {
    const root = document.querySelector('charla-widget')?.shadowRoot;
    return !!root?.activeElement?.closest('.panel');
  });
}

/** The panel opens, and is still open a moment later (the press's release did not toggle it shut). */
async function openedOnce(page: Page, what: string): Promise<void> {
  await need(panel(page), what);
  await page.waitForTimeout(300);
  expect(await panel(page).isVisible()).toBe(true);
}

describe('journey: the script tag written as a module', () => {
  it('boots the widget from its own data-* attributes, and the conversation works', async () => {
    const key = await themedWidget(site.service);
    const url = site.page('module-tag', shopPage(site.service, key, { tag: 'type="module"' }));
    const { page, context } = await openPage(site.browser, url);
    await firstWidgetReady(page);
    expect(await visitorId(page)).toMatch(/^shopper-/);
    await enterBotConversation(page);
    await need(messagesRegion(page).getByText(/Soy el bot de demostración de Charla/), 'the bot’s greeting');
    await context.close();
  });

  it('the same tag twice is one widget with one launcher and one charla:load', async () => {
    const key = await themedWidget(site.service);
    const once = shopPage(site.service, key);
    const tag = /<script src=[\s\S]*?<\/script>/.exec(once)![0];
    const url = site.page('twice', once.replace('</body>', `${tag}</body>`));
    const { page, context } = await openPage(site.browser, url);
    // Count charla:load from the page's first script on (the reload runs the counter first).
    await page.addInitScript(() => {
      const w = window as unknown as { loads: number };
      w.loads = 0;
      document.addEventListener('charla:load', () => w.loads++);
    });
    await page.reload();
    await firstWidgetReady(page);
    expect(await page.evaluate(() => (window as unknown as { loads: number }).loads)).toBe(1);
    await enterBotConversation(page);
    await need(messagesRegion(page).getByText(/Soy el bot de demostración de Charla/), 'the bot’s greeting');
    expect(
      await page.evaluate(
        () => (window as unknown as { Charla: { widgets: unknown[] } }).Charla.widgets.length,
      ),
    ).toBe(1);
    expect(await page.locator('charla-widget').count()).toBe(1);
    await context.close();
  });

  it('an English page (<html lang="en-US">) without data-language gets the widget in English, from the loader’s launcher on', async () => {
    const { page, context, release } = await shopWithBundleHeld('english-page', (html) =>
      html.replace('<html lang="es">', '<html lang="en-US">'),
    );
    const lite = page.locator('charla-loader');
    await need(lite.getByRole('button', { name: 'Open chat' }), 'the loader’s launcher, in English');
    expect(await lite.getAttribute('lang')).toBe('en');
    release();
    await firstWidgetReady(page);
    expect(await page.locator('charla-widget').getAttribute('lang')).toBe('en');
    await page
      .locator('charla-widget')
      .getByRole('button', { name: /^Open chat/ })
      .click();
    await need(page.getByRole('textbox', { name: 'Message', exact: true }), 'the composer, named in English');
    await context.close();
  });

  it('keyboard focus on the loader’s launcher moves to the full widget’s launcher that replaces it', async () => {
    // The full bundle waits until the loader's launcher has the focus (it comes when the browser is idle).
    const { page, context, swap } = await shopWithBundleHeld('focus-handover');
    await page.locator('charla-loader').getByRole('button').focus();
    await swap();
    const focused = await page.evaluate(async () => {
      const host = document.querySelector('charla-widget') as HTMLElement & {
        updateComplete: Promise<unknown>;
      };
      await host.updateComplete;
      await new Promise((r) => requestAnimationFrame(r));
      return {
        host: document.activeElement?.localName,
        inside: host.shadowRoot?.activeElement?.getAttribute('part'),
      };
    });
    expect(focused).toEqual({ host: 'charla-widget', inside: 'launcher' });
    await context.close();
  });

  it('a click on the loader’s launcher opens the widget once it is there, with focus in its panel', async () => {
    const { page, context, release } = await shopWithBundleHeld('click-handover');
    await page.locator('charla-loader').getByRole('button').click();
    release();
    await firstWidgetReady(page);
    await need(panel(page), 'the panel the click asked for');
    await focusInPanel(page);
    await context.close();
  });

  it('a press on the loader’s launcher as the bundle arrives opens the widget once, with focus in its panel', async () => {
    // Hovering the launcher fetches the bundle, so it can come while the visitor is pressing:
    // the release lands where no button is (the loader's went), and no click follows.
    const { page, context, swap } = await shopWithBundleHeld('press-handover');
    const box = (await page.locator('charla-loader').getByRole('button').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await swap();
    await page.mouse.up();
    await openedOnce(page, 'the panel the press asked for');
    await focusInPanel(page);
    await context.close();
  });

  it('so does Space held on the loader’s launcher as the bundle arrives (a button clicks on its release)', async () => {
    const { page, context, swap } = await shopWithBundleHeld('space-handover');
    await page.locator('charla-loader').getByRole('button').focus();
    await page.keyboard.down(' ');
    await swap();
    await page.keyboard.up(' ');
    await openedOnce(page, 'the panel the key asked for');
    await context.close();
  });

  it('a page’s open() queued before the bundle arrives opens the panel and leaves focus on the page', async () => {
    const { page, context, release } = await shopWithBundleHeld('queued-open', (html) =>
      html
        .replace('<button id="buy"', '<input id="q" aria-label="Buscar"><button id="buy"')
        .replace(
          '</body>',
          `<script>document.getElementById('q').focus(); Charla.widgets[0].open();</script></body>`,
        ),
    );
    // The page has called open() on the loader's handle; the widget is not there yet.
    expect(await page.locator('charla-widget').count()).toBe(0);
    release();
    await firstWidgetReady(page);
    await need(panel(page), 'the panel the page opened');
    const input = messageInput(page);
    await need(input, 'the composer');
    // Until the view has rendered and settled: whatever would take focus has done it by then.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('q');
    await page.keyboard.type('pan');
    expect(await page.locator('#q').inputValue()).toBe('pan');
    expect(await input.inputValue()).toBe('');
    await context.close();
  });
});

describe('journey: page code calls the handle before and after the full bundle is there', () => {
  /**
   * Makes the same calls on Charla.widgets[0] at once, then says how each came out: a promise's
   * outcome, or what a call returned or threw without one.
   */
  async function outcomes(page: import('playwright-core').Page): Promise<Record<string, string>> {
    return page.evaluate(async () => {
      const handle = (
        window as unknown as { Charla: { widgets: Record<string, (...a: unknown[]) => unknown>[] } }
      ).Charla.widgets[0]!;
      const calls: [string, () => unknown][] = [
        ['open()', () => handle['open']!()],
        ["setCurrentRoom('')", () => handle['setCurrentRoom']!('')],
        ["close('yes')", () => handle['close']!('yes')],
        ['fooBar()', () => handle['fooBar']!()],
        ["getRoom('')", () => handle['getRoom']!('')],
      ];
      const results = calls.map(([label, call]): [string, Promise<string>] => {
        try {
          const result = call();
          return [
            label,
            result instanceof Promise
              ? result.then(
                  (v) => `resolved ${String(v)}`,
                  (e: { key?: string; message?: string }) => `rejected ${e.key}: ${e.message}`,
                )
              : Promise.resolve(`returned ${String(result)}`),
          ];
        } catch (e) {
          return [label, Promise.resolve(`threw ${(e as Error).message}`)];
        }
      });
      const out: Record<string, string> = {};
      for (const [label, outcome] of results) out[label] = await outcome;
      return out;
    });
  }

  it('gets promises with the same outcomes either way: void methods resolve, bad names reject naming them', async () => {
    const { page, context, release } = await shopWithBundleHeld('handle-contract');
    await page.waitForFunction(() => (window as { Charla?: { widgets?: unknown[] } }).Charla?.widgets?.[0]);
    const before = outcomes(page);
    // The calls above are queued on the loader's handle before the bundle is let through.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
    expect(await page.locator('charla-widget').count()).toBe(0);
    release();
    await firstWidgetReady(page);
    const after = await outcomes(page);
    expect(after).toEqual({
      'open()': 'resolved undefined',
      "setCurrentRoom('')": 'resolved undefined',
      "close('yes')": 'resolved undefined',
      'fooBar()': 'rejected VALIDATION_ERROR: Charla: fooBar is not a widget method',
      "getRoom('')": 'rejected VALIDATION_ERROR: roomId must be a non-empty string',
    });
    expect(await before).toEqual(after);
    // ready is the instance itself, with its plain return values.
    expect(
      await page.evaluate(async () => {
        const handle = (
          window as unknown as { Charla: { widgets: { ready: Promise<{ close(): unknown }> }[] } }
        ).Charla.widgets[0]!;
        const real = await handle.ready;
        return [real === (handle as unknown), typeof real.close()];
      }),
    ).toEqual([false, 'undefined']);
    await context.close();
  });
});
