/**
 * Journey: a customer who writes the documented script tag as a module
 * (`<script type="module" src=".../charla.js" data-init="true">`), on another
 * origin than the service. A module has no document.currentScript: the
 * widget still finds its own tag (its data-* attributes, and the address the
 * full bundle is loaded from) and works as with the classic tag. And a page
 * (or its CMS) that repeats the snippet gets one widget, not two launchers.
 */
import { describe, expect, it } from 'vitest';
import { enterBotConversation, messagesRegion, need, openPage } from './helpers.ts';
import { firstWidgetReady, hostileSite, shopPage, themedWidget } from './host-page-site.ts';

const site = hostileSite();

describe('journey: the script tag written as a module', () => {
  it('boots the widget from its own data-* attributes, and the conversation works', async () => {
    const key = await themedWidget(site.service);
    const url = site.page('module-tag', shopPage(site.service, key, { tag: 'type="module"' }));
    const { page, context } = await openPage(site.browser, url);
    await firstWidgetReady(page);
    const started = await page.evaluate(async () => {
      const w = await (
        window as unknown as { Charla: { widgets: Array<{ ready: Promise<{ userId: string }> }> } }
      ).Charla.widgets[0]!.ready;
      return w.userId;
    });
    expect(started).toMatch(/^shopper-/);
    await enterBotConversation(page);
    await need(messagesRegion(page).getByText(/Soy el bot de demostración de Charla/), 'the bot’s greeting');
    await context.close();
  });

  it('the same tag twice is one widget with one launcher', async () => {
    const key = await themedWidget(site.service);
    const once = shopPage(site.service, key);
    const tag = /<script src=[\s\S]*?<\/script>/.exec(once)![0];
    const url = site.page('twice', once.replace('</body>', `${tag}</body>`));
    const { page, context } = await openPage(site.browser, url);
    await firstWidgetReady(page);
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

  it('keyboard focus on the loader’s launcher moves to the full widget’s launcher that replaces it', async () => {
    const key = await themedWidget(site.service);
    const url = site.page('focus-handover', shopPage(site.service, key));
    const { page, context } = await openPage(site.browser, 'about:blank');
    // The full bundle waits until the loader's launcher has the focus (it comes when the browser is idle).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/charla.iife.js', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(url);
    await page.locator('charla-loader').getByRole('button').focus();
    release();
    await firstWidgetReady(page);
    await page.waitForFunction(() => !document.querySelector('charla-loader'));
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
});
