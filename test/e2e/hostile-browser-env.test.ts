/**
 * The demo customer site (the script tag, data-init) in browsers that deny the
 * widget what it would rather use: no WebSocket at all, a network that closes
 * every WebSocket at once (a proxy refusing upgrades), IndexedDB whose getter
 * throws (site data blocked) or whose open never answers. Each time the
 * widget connects (long-polling, localStorage) and a message is delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, releaseBrowser, startService, uniqueUser, until, type Service } from './helpers.ts';

let service: Service;
let browser: Browser;
beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
});
afterAll(async () => {
  await releaseBrowser(browser);
  await service?.close();
});

type Handle = {
  ready: Promise<{ stores: { $connection: { get(): string } } }>;
  sendMessage(m: { type: 'TEXT'; text: string }): Promise<{ status: string }>;
};

/** The demo site with `init` run before any of its scripts (and `setup` on the context); the widget's state and a send. */
async function visit(
  init: string,
  setup: (page: Page) => Promise<void> = async () => undefined,
): Promise<{ connection: string; status: string; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'es-ES' });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addInitScript(init);
    await setup(page);
    await page.goto(`${service.base}/?user=${uniqueUser('hostile-env')}`);
    await page.waitForFunction(
      () => (window as unknown as { Charla?: { widgets?: unknown[] } }).Charla?.widgets?.length === 1,
    );
    const connection = await until(
      'the widget to connect',
      () =>
        page.evaluate(async () => {
          const handle = (window as unknown as { Charla: { widgets: Handle[] } }).Charla.widgets[0]!;
          const state = (await handle.ready).stores.$connection.get();
          return state === 'connected' ? state : undefined;
        }),
      30_000,
    );
    const status = await page.evaluate(async () => {
      const handle = (window as unknown as { Charla: { widgets: Handle[] } }).Charla.widgets[0]!;
      return (await handle.sendMessage({ type: 'TEXT', text: 'hola desde un navegador difícil' })).status;
    });
    return { connection, status, errors };
  } finally {
    await context.close();
  }
}

const DELIVERED = ['DELIVERED', 'DELIVERED_CHANNEL', 'DELIVERED_USER'];

describe('a browser that denies the widget what it would rather use', () => {
  it('without WebSocket, connects over long-polling', async () => {
    const seen = await visit('window.WebSocket = undefined;');
    expect(seen.connection).toBe('connected');
    expect(DELIVERED).toContain(seen.status);
    expect(seen.errors).toEqual([]);
  });

  it('on a network that closes every WebSocket at once, connects over long-polling', async () => {
    let refused = 0;
    const seen = await visit('', (page) =>
      page.routeWebSocket(/\/socket\.io\//, (ws) => {
        refused++;
        void ws.close();
      }),
    );
    expect(refused).toBeGreaterThan(0);
    expect(seen.connection).toBe('connected');
    expect(DELIVERED).toContain(seen.status);
  });

  it('with IndexedDB blocked (its getter throws) or stuck (its open never answers), keeps the outbox elsewhere', async () => {
    for (const init of [
      `Object.defineProperty(window, 'indexedDB', { get() { throw new DOMException('The operation is insecure.', 'SecurityError'); } });`,
      `IDBFactory.prototype.open = function () { return {}; };`,
    ]) {
      const seen = await visit(init);
      expect(seen.connection, init).toBe('connected');
      expect(DELIVERED, init).toContain(seen.status);
      expect(seen.errors, init).toEqual([]);
    }
  });
});
