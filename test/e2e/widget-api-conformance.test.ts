/**
 * The widgetInstance API as a customer's developer uses it: a page on
 * another origin embeds the script tag exactly as README shows and calls
 * the handle from `charla:load`, in real Chromium against the real service.
 * Each promise must settle with the interface's shape or a CharlaError.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BASIC } from '../service/helpers/live.ts';
import { openPage, until, withServiceAndBrowser, type Service } from './helpers.ts';

let service: Service;
let browser: Browser;
withServiceAndBrowser((opened) => ({ service, browser } = opened));

let site: Server;
let siteOrigin: string;
let normalKey: string;

/** A customer's page: the documented script tag, and a listener that keeps the handle and runs `early` at once. */
function customerPage(apiKey: string, userId: string, early: string): string {
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Tienda</title>
<script>
  window.__early = [];
  document.addEventListener('charla:load', function (e) {
    var w = (window.__handle = e.detail.widgetInstance);
    window.__bundleThen = typeof window.__charlaFull;
    ${early}
  });
</script></head><body><h1>Tienda</h1>
<script src="${service.base}/charla.js" data-api-key="${apiKey}" data-init="true"
  data-user-id="${userId}" data-user-names="Cliente"></script></body></html>`;
}

const pages = new Map<string, string>();

async function createWidget(): Promise<string> {
  const res = await fetch(`${service.base}/v1/widget/create`, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({ bot: {}, widget: { properties: { type: 'normal' } } }),
  });
  const body = (await res.json()) as { data: { ApiKey: { key: string } } };
  return body.data.ApiKey.key;
}

beforeAll(async () => {
  normalKey = await createWidget();
  site = createServer((req, res) => {
    const html = pages.get(req.url ?? '');
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? '');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  // Another origin than the service's (127.0.0.1), as on a customer's site.
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  return () => new Promise<void>((r) => site.close(() => r()));
});

async function visit(name: string, apiKey: string, early = ''): Promise<Page> {
  pages.set(`/${name}.html`, customerPage(apiKey, `customer-${name}-${Date.now()}`, early));
  const { page } = await openPage(browser, `${siteOrigin}/${name}.html`);
  await until('the charla:load handle', () =>
    page.evaluate(() => ((window as unknown as { __handle?: unknown }).__handle ? true : undefined)),
  );
  return page;
}

/** Records how each promise in window.__early settled, as JSON. */
const SETTLE = `
  function settle(label, p) {
    Promise.resolve(p).then(
      function (v) { window.__early.push({ label: label, value: v }); },
      function (e) { window.__early.push({ label: label, error: { name: e.name, key: e.key, code: e.code, message: e.message } }); }
    );
  }`;

interface Settled {
  label: string;
  value?: Record<string, unknown>;
  error?: { name: string; key: string; code: string; message: string };
}

async function settled(page: Page, count: number): Promise<Settled[]> {
  return until(`${count} settled calls`, async () => {
    const list = await page.evaluate(() => (window as unknown as { __early: Settled[] }).__early);
    return list.length >= count ? list : undefined;
  });
}

describe('widgetInstance through the script tag, from another origin', () => {
  it('a sendMessage queued before the bundle loads, without roomId, goes to the bot room', async () => {
    const page = await visit(
      'early-send',
      normalKey,
      `${SETTLE} settle('text', w.sendMessage({ type: 'TEXT', text: 'Hola desde la tienda' }));`,
    );
    expect(await page.evaluate(() => (window as unknown as { __bundleThen: string }).__bundleThen)).toBe(
      'undefined',
    );
    const [text] = await settled(page, 1);
    expect(text?.error).toBeUndefined();
    const roomId = await page.evaluate(async () => {
      const w = (
        window as unknown as {
          __handle: { ready: Promise<{ stores: { $currentRoomId: { get(): string } } }> };
        }
      ).__handle;
      return (await w.ready).stores.$currentRoomId.get();
    });
    expect(text?.value).toMatchObject({ type: 'TEXT', text: 'Hola desde la tienda', roomId });
    expect(String(text?.value?.['status'])).toMatch(/^DELIVERED/);
    await page.context().close();
  });

  it('with a wrong API key, sendMessage rejects with UNAUTHORIZED instead of never settling', async () => {
    const page = await visit(
      'wrong-key',
      'ck_not-a-key',
      `${SETTLE}
      settle('no room', w.sendMessage({ type: 'TEXT', text: 'x' }));
      settle('with room', w.sendMessage({ roomId: 'r-1', type: 'TEXT', text: 'y' }));`,
    );
    const results = await settled(page, 2);
    expect(results.map((r) => [r.label, r.error?.name, r.error?.key]).sort()).toEqual([
      ['no room', 'CharlaError', 'UNAUTHORIZED'],
      ['with room', 'CharlaError', 'UNAUTHORIZED'],
    ]);
    await page.context().close();
  });

  it('LOCATION takes the numbers a map gives, and answers the interface Message with lat/lng as strings', async () => {
    const page = await visit(
      'location',
      normalKey,
      `${SETTLE} settle('location', w.sendMessage({ type: 'LOCATION', lat: 0.1 + 0.2, lng: -7.5e-7 }));`,
    );
    const [location] = await settled(page, 1);
    expect(location?.error).toBeUndefined();
    expect(location?.value).toMatchObject({ type: 'LOCATION', lat: '0.3', lng: '-0.00000075' });
    for (const field of ['id', 'roomId', 'senderId', 'createdAt', 'timestamp', 'by', 'type', 'status'])
      expect(location?.value).toHaveProperty(field);
    await page.context().close();
  });
});
