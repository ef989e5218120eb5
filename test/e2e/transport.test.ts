/**
 * The shipped script-tag bundle (minified twice, private names mangled) over
 * each live transport: a widget forced onto HTTP long-polling (the fallback
 * for networks that block WebSocket) and one on WebSocket connect, send, and
 * receive a bot message live, in Chromium against the real service.
 */
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  DEMO_BOT_ID,
  DEMO_NORMAL_API_KEY,
  botRoomOf,
  liveSockets,
  openPage,
  roomMessages,
  uniqueUser,
  unexpected,
  until,
  withServiceAndBrowser,
  type Service,
} from './helpers.ts';

let service: Service;
let browser: Browser;

withServiceAndBrowser((started) => ({ service, browser } = started), 60_000);

describe('the script-tag bundle on each transport', () => {
  for (const transport of ['polling', 'websocket'] as const) {
    it(`connects, sends and receives live over ${transport}`, async () => {
      const { page, context, problems } = await openPage(browser, `${service.base}/`);
      const userId = uniqueUser(transport);
      await page.waitForFunction(
        () => typeof (window as { Charla?: { load?: unknown } }).Charla?.load === 'function',
      );
      await page.evaluate(
        async ({ apiKey, userId, transport }) => {
          type W = {
            connect(): Promise<void>;
            sendMessage(m: object): Promise<unknown>;
            on(name: string, fn: (d: { message: { text?: string } }) => void): void;
          };
          const win = window as unknown as {
            Charla: { load(): Promise<{ createWidget(o: object): W }> };
            got: string[];
          };
          win.got = [];
          const full = await win.Charla.load();
          const w = full.createWidget({ apiKey, userId, container: null, transports: [transport] });
          w.on('message', (d) => win.got.push(d.message.text ?? ''));
          await w.connect();
          await w.sendMessage({ type: 'TEXT', text: `hola por ${transport}` });
        },
        { apiKey: DEMO_NORMAL_API_KEY, userId, transport },
      );
      const roomId = await until('bot room', () => botRoomOf(service.app, userId), 10_000);
      await until(
        'message stored',
        async () =>
          (await roomMessages(service.app, roomId)).some((m) => m['text'] === `hola por ${transport}`) ||
          undefined,
        10_000,
      );
      // A bot message sent over HTTP arrives on this transport too.
      await service.api.sendText(DEMO_BOT_ID, userId, `respuesta por ${transport}`);
      await page.waitForFunction(
        (text) => (window as unknown as { got: string[] }).got.includes(text),
        `respuesta por ${transport}`,
        { timeout: 10_000 },
      );
      expect(unexpected(problems)).toEqual([]);
      await context.close();
    });
  }
});

describe('the back/forward cache', () => {
  it('closes the live connection as the page goes in (pagehide, persisted) and catches up as it comes back', async () => {
    const { page, context, problems } = await openPage(browser, `${service.base}/`);
    const userId = uniqueUser('bfcache');
    await page.waitForFunction(
      () => typeof (window as { Charla?: { load?: unknown } }).Charla?.load === 'function',
    );
    await page.evaluate(
      async ({ apiKey, userId }) => {
        type W = {
          connect(): Promise<void>;
          on(name: string, fn: (d: { message?: { text?: string }; state?: string }) => void): void;
        };
        const win = window as unknown as {
          Charla: { load(): Promise<{ createWidget(o: object): W }> };
          got: string[];
          states: string[];
        };
        win.got = [];
        win.states = [];
        const full = await win.Charla.load();
        const w = full.createWidget({ apiKey, userId, container: null, transports: ['websocket'] });
        w.on('message', (d) => win.got.push(d.message?.text ?? ''));
        w.on('connection', (d) => win.states.push(d.state ?? ''));
        await w.connect();
      },
      { apiKey: DEMO_NORMAL_API_KEY, userId },
    );
    const sockets = () => liveSockets(service.app, userId);
    await until('the live connection', async () => (await sockets()).length === 1 || undefined, 10_000);
    // Going into the cache: the widget closes its connection itself (the browser would, with an error).
    await page.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true })));
    await until('closed', async () => (await sockets()).length === 0 || undefined, 10_000);
    await service.api.sendText(DEMO_BOT_ID, userId, 'mientras tanto');
    // Back: open again, and what came meanwhile arrives once.
    await page.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true })));
    await page.waitForFunction(
      () => (window as unknown as { got: string[] }).got.includes('mientras tanto'),
      null,
      {
        timeout: 10_000,
      },
    );
    const { got, states } = await page.evaluate(() => {
      const win = window as unknown as { got: string[]; states: string[] };
      return { got: win.got, states: win.states };
    });
    expect(got.filter((t) => t === 'mientras tanto')).toHaveLength(1);
    expect(states.slice(-2)).toEqual(['reconnecting', 'connected']);
    // A page that is only hidden (not cached) keeps its connection.
    await page.evaluate(() =>
      window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false })),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect((await sockets()).length).toBe(1);
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });
});
