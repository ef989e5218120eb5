/**
 * Journey: the network drops and returns mid-conversation. Two people chat
 * in a direct room (the group widget, one page each). Ana's browser goes
 * offline (Chromium's offline emulation, and the service drops her live
 * socket, since offline emulation leaves an open WebSocket alone). Ana keeps
 * writing and Beto keeps answering. Nothing Ana wrote reaches the service or
 * Beto while she is offline; once she is back, every message arrives exactly
 * once, in order, on both sides, and she gets what Beto wrote meanwhile.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  closeAfterAll,
  cspViolations,
  dropLiveSockets,
  groupWidgetOf,
  launchBrowser,
  messageInput,
  messagesRegion,
  need,
  openGroupUsers,
  roomMessages,
  shot,
  shotPagesOnFailure,
  startService,
  uniqueUser,
  unexpected,
  until,
  type Service,
} from './helpers.ts';

const J = 'offline';
const DELIVERED = /^(Enviado|Entregado|Leído)$/;
const tag = Date.now().toString(36);
const ana = uniqueUser('ana');
const beto = uniqueUser('beto');
let service: Service;
let browser: Browser;
let anaPage: Page;
let betoPage: Page;
let anaContext: BrowserContext;
const problems: string[][] = [];
let roomId: string;

type WidgetHandle = {
  stores: {
    $connection: { get(): string };
    $currentRoomId: { get(): string | null };
    $rooms: { get(): Array<{ id: string }> };
  };
  openRoomWithUser(u: { id: string; names?: string }): Promise<{ id: string }>;
  setCurrentRoom(id: string): void;
};
const widgetOf = (page: Page) => groupWidgetOf<WidgetHandle>(page);

async function connection(page: Page): Promise<string> {
  return (await widgetOf(page)).evaluate((w) => w.stores.$connection.get());
}
function bubble(page: Page, text: string) {
  return messagesRegion(page)
    .locator('charla-message')
    .filter({ has: page.getByText(text, { exact: true }) });
}
async function send(page: Page, text: string): Promise<void> {
  await messageInput(page).fill(text);
  await messageInput(page).press('Enter');
  await need(
    messagesRegion(page).getByText(text, { exact: true }),
    `“${text}” shown at once on the sender’s side`,
  );
}
async function storedCount(text: string): Promise<number> {
  return (await roomMessages(service.app, roomId)).filter((m) => m['text'] === text).length;
}
/** The texts of the list in screen order (top to bottom). */
async function screenTexts(page: Page): Promise<string[]> {
  return messagesRegion(page)
    .locator('charla-message')
    .evaluateAll((els) =>
      els
        .map((e) => ({ top: e.getBoundingClientRect().top, text: (e.shadowRoot ?? e).textContent ?? '' }))
        .sort((a, b) => a.top - b.top)
        .map((x) => x.text.replace(/\s+/g, ' ').trim()),
    );
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  const opened = await openGroupUsers(
    browser,
    service,
    { ana, beto },
    { viewport: { width: 900, height: 900 }, timeout: 20_000 },
  );
  anaPage = opened.ana.page;
  betoPage = opened.beto.page;
  anaContext = opened.ana.context;
  problems.push(opened.ana.problems, opened.beto.problems);
  // Ana opens a direct room with Beto; Beto opens it when it reaches him.
  roomId = await (
    await widgetOf(anaPage)
  ).evaluate(async (w, id) => (await w.openRoomWithUser({ id, names: 'Beto' })).id, beto);
  await until('the room to reach Beto', async () =>
    (await (
      await widgetOf(betoPage)
    ).evaluate((w, id) => w.stores.$rooms.get().some((r) => r.id === id), roomId))
      ? true
      : undefined,
  );
  await (await widgetOf(betoPage)).evaluate((w, id) => w.setCurrentRoom(id), roomId);
  await need(messageInput(anaPage), 'Ana’s composer');
  await need(messageInput(betoPage), 'Beto’s composer');
});

shotPagesOnFailure(J, () => ({ ana: anaPage, beto: betoPage }));
closeAfterAll(() => ({ browser, service }));

describe('journey: the network drops and returns mid-conversation', () => {
  it('before the drop, messages go both ways', async () => {
    await send(anaPage, `Hola Beto ${tag}`);
    await need(
      bubble(anaPage, `Hola Beto ${tag}`).getByRole('img', { name: DELIVERED }),
      'the DELIVERED mark before the drop',
    );
    await need(messagesRegion(betoPage).getByText(`Hola Beto ${tag}`), 'Ana’s message on Beto’s side');
    await send(betoPage, `Hola Ana ${tag}`);
    await need(messagesRegion(anaPage).getByText(`Hola Ana ${tag}`), 'Beto’s message on Ana’s side');
  });

  it('while Ana is offline: she writes, Beto answers, nothing of hers reaches the service or Beto', async () => {
    await anaContext.setOffline(true);
    await dropLiveSockets(service.app, ana);
    await until('Ana’s widget to notice the drop', async () =>
      (await connection(anaPage)) !== 'connected' ? true : undefined,
    );

    await send(anaPage, `sin red uno ${tag}`);
    await send(anaPage, `sin red dos ${tag}`);
    await send(betoPage, `mientras tanto ${tag}`);
    await send(anaPage, `sin red tres ${tag}`);

    // Give a leaky "offline" every chance to show itself: Ana's messages must still be only in her outbox.
    await anaPage.waitForTimeout(2_500);
    expect(await connection(anaPage)).not.toBe('connected');
    for (const n of ['uno', 'dos', 'tres']) {
      expect(await storedCount(`sin red ${n} ${tag}`), `“sin red ${n}” not stored while offline`).toBe(0);
      expect(await messagesRegion(betoPage).getByText(`sin red ${n} ${tag}`).count()).toBe(0);
    }
    expect(await bubble(anaPage, `sin red tres ${tag}`).getByRole('img', { name: DELIVERED }).count()).toBe(
      0,
    );
    expect(await storedCount(`mientras tanto ${tag}`)).toBe(1);
    // Lost for more than 2 s: the chat says so, not only the clocks on her bubbles. The demo's widget
    // has theme.status on: the header's status line says it, the notice above the messages stays
    // empty (and flat) so that it is not said twice.
    await need(
      anaPage.getByRole('status').filter({ hasText: /^Sin conexión$/ }),
      'the header’s “Sin conexión”',
    );
    const notice = anaPage.locator('charla-widget').locator('[part~="connection-notice"]');
    expect(await notice.textContent()).toBe('');
    expect((await notice.boundingBox())?.height).toBe(0);
    await shot(anaPage, J, 'ana-offline-pending');
  });

  it('back online: everything arrives exactly once, in order, on both sides', async () => {
    await anaContext.setOffline(false);
    await until(
      'Ana’s widget to reconnect',
      async () => ((await connection(anaPage)) === 'connected' ? true : undefined),
      30_000,
    );
    for (const n of ['uno', 'dos', 'tres']) {
      await need(
        bubble(anaPage, `sin red ${n} ${tag}`).getByRole('img', { name: DELIVERED }),
        `the DELIVERED mark on “sin red ${n}”`,
        30_000,
      );
      await need(messagesRegion(betoPage).getByText(`sin red ${n} ${tag}`), `“sin red ${n}” on Beto’s side`);
    }
    await need(
      messagesRegion(anaPage).getByText(`mientras tanto ${tag}`),
      'Beto’s message from while she was offline, on Ana’s side (gap fill)',
    );
    await need(anaPage.getByRole('status').filter({ hasText: /^En línea$/ }), 'the header’s “En línea”');
    await shot(anaPage, J, 'ana-back-online');
    await shot(betoPage, J, 'beto-after');

    // The service holds each once; Ana's three in the order she wrote them.
    const all = await roomMessages(service.app, roomId);
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    const seq = (text: string) => {
      const rows = all.filter((m) => m['text'] === text);
      expect(rows, `“${text}” stored exactly once`).toHaveLength(1);
      return Number(rows[0]!['seq']);
    };
    const order = [seq(`sin red uno ${tag}`), seq(`sin red dos ${tag}`), seq(`sin red tres ${tag}`)];
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    seq(`mientras tanto ${tag}`);

    // Both screens show each message once, Ana's three in order.
    const texts = [
      `Hola Beto ${tag}`,
      `Hola Ana ${tag}`,
      `sin red uno ${tag}`,
      `sin red dos ${tag}`,
      `sin red tres ${tag}`,
      `mientras tanto ${tag}`,
    ];
    for (const page of [anaPage, betoPage]) {
      for (const text of texts)
        expect(await messagesRegion(page).getByText(text, { exact: true }).count(), `“${text}” once`).toBe(1);
      const screen = await screenTexts(page);
      const at = (t: string) => screen.findIndex((s) => s.includes(t));
      expect(at(`sin red uno ${tag}`)).toBeLessThan(at(`sin red dos ${tag}`));
      expect(at(`sin red dos ${tag}`)).toBeLessThan(at(`sin red tres ${tag}`));
    }
  });

  it('a second drop in a row changes nothing that was already there', async () => {
    const before = (await roomMessages(service.app, roomId)).length;
    await anaContext.setOffline(true);
    await dropLiveSockets(service.app, ana);
    await until('the second drop to be noticed', async () =>
      (await connection(anaPage)) !== 'connected' ? true : undefined,
    );
    await anaContext.setOffline(false);
    await until(
      'Ana’s widget to reconnect again',
      async () => ((await connection(anaPage)) === 'connected' ? true : undefined),
      30_000,
    );
    await anaPage.waitForTimeout(1_000);
    expect((await roomMessages(service.app, roomId)).length).toBe(before);
    expect(await messagesRegion(anaPage).getByText(`sin red dos ${tag}`, { exact: true }).count()).toBe(1);
    expect(await messagesRegion(betoPage).getByText(`sin red dos ${tag}`, { exact: true }).count()).toBe(1);
  });

  it('ran under the strict CSP; the only errors are the requests the drop refused', async () => {
    for (const page of [anaPage, betoPage]) expect(await cspViolations(page)).toEqual([]);
    for (const p of problems) {
      expect(
        unexpected(p, [
          /ERR_INTERNET_DISCONNECTED/,
          /WebSocket connection to .* failed/,
          /Failed to load resource/,
        ]),
      ).toEqual([]);
    }
  });
});
