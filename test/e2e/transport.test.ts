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
