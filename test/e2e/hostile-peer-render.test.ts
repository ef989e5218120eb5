/**
 * A hostile member of a room, seen from the victim's widget: the attacker has
 * a session of their own on the `group` widget, opens a direct room with the
 * victim over the widget API and writes into it with a raw socket.io client
 * (names, texts, media, locations, postbacks and events the widget would never
 * send). The victim's widget, in real Chromium against the real service, runs
 * no script, asks no host but the service for anything until the victim
 * clicks, keeps every message inside the panel, logs no error or CSP
 * violation, and keeps working.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connectIo, type Socket } from 'socket.io-client';
import type { Browser, Page } from 'playwright-core';
import { ROUTES, SOCKET_PATH, type Ack } from '../../types/index.ts';
import {
  DEMO_GROUP_API_KEY,
  closeAfterAll,
  cspViolations,
  launchBrowser,
  messageInput,
  messagesRegion,
  need,
  openPage,
  panel,
  shot,
  startService,
  unexpected,
  uniqueUser,
  until,
  type Service,
} from './helpers.ts';

const J = 'hostile-peer-render';
let service: Service;
let browser: Browser;
let page: Page;
let problems: string[];
let attacker: Socket;
let token: string;
let roomId: string;
const victim = uniqueUser('victim');
const foreignRequests: string[] = [];

type Handle = {
  stores: { $connection: { get(): string } };
  open(): void;
  setCurrentRoom(id: string): void;
};

async function api(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(service.base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: service.base, authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** What the attacker sends: acknowledged as stored, or the test says which was refused. */
async function send(message: Record<string, unknown>): Promise<void> {
  const ack = (await attacker
    .timeout(10_000)
    .emitWithAck('message:send', { id: randomUUID(), roomId, ...message })) as Ack<unknown>;
  if (!ack.ok) throw new Error(`refused: ${JSON.stringify(message).slice(0, 200)} ${JSON.stringify(ack)}`);
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  const opened = await openPage(browser, `${service.base}/group-user.html?user=${victim}`, {
    width: 900,
    height: 900,
  });
  ({ page, problems } = opened);
  page.on('request', (r) => {
    if (!r.url().startsWith(service.base) && !r.url().startsWith('data:')) foreignRequests.push(r.url());
  });
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await until('the victim’s widget to connect', async () =>
    (await page.evaluate(() =>
      (window as unknown as { groupWidget: Handle }).groupWidget.stores.$connection.get(),
    )) === 'connected'
      ? true
      : undefined,
  );
  const session = await fetch(service.base + ROUTES.widgetSession, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: service.base },
    body: JSON.stringify({
      apiKey: DEMO_GROUP_API_KEY,
      userId: uniqueUser('attacker'),
      // (A line break in a name is refused since display names are one line: session-user-names.)
      userNames: '<img src=x onerror=alert(1)>\u202Eevil\u200B ' + 'N'.repeat(900),
    }),
  });
  token = ((await session.json()) as { token: string }).token;
  roomId = (await api(ROUTES.widgetDirectRoom, { id: victim })).id as string;
  attacker = connectIo(service.base, {
    path: SOCKET_PATH,
    transports: ['websocket'],
    auth: { token },
    reconnection: false,
    forceNew: true,
    extraHeaders: { origin: service.base },
  });
  await new Promise<void>((resolve, reject) => {
    attacker.once('connect', () => resolve());
    attacker.once('connect_error', reject);
  });
}, 120_000);

afterAll(() => {
  attacker?.close();
});
closeAfterAll(() => ({ browser, service }));

describe('a hostile peer writes to the victim', () => {
  it('texts, names, locations, postbacks and events stay text, inside the panel, and the widget keeps working', async () => {
    // A third member makes the room a group: the victim's widget shows each sender's name.
    await api(ROUTES.widgetRoomMembers.replace(':roomId', roomId), { member: uniqueUser('third') });
    const long = 'W'.repeat(4096);
    await send({ type: 'TEXT', text: '<img src=x onerror=alert(1)><script>alert(2)</script>' });
    await send({
      type: 'TEXT',
      text: '[click](javascript:alert(3)) javascript:alert(4) http://javascript:alert(5)',
    });
    await send({ type: 'TEXT', text: long });
    await send({ type: 'TEXT', text: 'Z' + '\u0301'.repeat(4095) });
    await send({ type: 'TEXT', text: '\u202Eabc\u2066'.repeat(500), senderNames: 'S'.repeat(1024) });
    await send({ type: 'LOCATION', lat: '-90', lng: '180.000000000000001' });
    await send({ type: 'POSTBACK', text: '<b>postback</b>', payload: { a: { b: '<x>' } } });
    await send({ type: 'EVENT', slug: '<slug>', description: 'D'.repeat(1024), eventPayload: { k: '<v>' } });
    await send({
      type: 'EVENT',
      slug: 'aviso',
      description: `Soporte: tu sesión caducó ${victim}`,
      eventPayload: {},
    });
    await send({ type: 'TEXT', text: `fin-${victim}` });

    const w = await page.evaluateHandle(() => (window as unknown as { groupWidget: Handle }).groupWidget);
    await w.evaluate((x, id) => {
      x.open();
      x.setCurrentRoom(id);
    }, roomId);
    const region = messagesRegion(page);
    await need(region.getByText(`fin-${victim}`), 'the attacker’s last message in the victim’s room');
    // The victim's own event of one long word: a system line.
    await w.evaluate(
      (x, [room, text]) =>
        (x as unknown as { sendMessage(m: unknown): Promise<unknown> }).sendMessage({
          roomId: room,
          type: 'EVENT',
          slug: 'propio',
          description: text,
          eventPayload: {},
        }),
      [roomId, `E${'e'.repeat(1000)}`] as const,
    );
    await need(region.locator('.system').getByText(/^Ee+$/), 'the victim’s own event as a system line');
    // The attacker's event is his, in a bubble under his name, not a notice of the service.
    const notice = region.getByText(`Soporte: tu sesión caducó ${victim}`);
    await need(notice, 'the attacker’s event');
    expect(await region.locator('.system').getByText(`Soporte: tu sesión caducó ${victim}`).count()).toBe(0);
    expect(
      await region.locator('charla-message .bubble').getByText(`Soporte: tu sesión caducó ${victim}`).count(),
    ).toBe(1);
    await shot(page, J, 'texts');

    // Every bubble, name and event line inside the panel, and its text inside it (or clipped by it).
    const box = await panel(page).boundingBox();
    expect(box).not.toBeNull();
    const parts = await region.locator('charla-message :is(.bubble, .sender, .system)').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        const range = document.createRange();
        range.selectNodeContents(e);
        const t = range.getBoundingClientRect();
        const clips = getComputedStyle(e).overflowX !== 'visible';
        const inside = t.left >= r.left - 1 && t.right <= r.right + 1;
        return {
          what: `${e.className}: ${(e.textContent ?? '').slice(0, 30)}`,
          left: r.left,
          right: r.right,
          text: clips || inside,
        };
      }),
    );
    expect(parts.some((p) => p.what.startsWith('sender'))).toBe(true);
    for (const p of parts) {
      expect(p.left, p.what).toBeGreaterThanOrEqual(box!.x - 1);
      expect(p.right, p.what).toBeLessThanOrEqual(box!.x + box!.width + 1);
      expect(p.text, `${p.what} runs out of its box`).toBe(true);
    }
    // No script ran, no link to javascript:.
    const hrefs = await region.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.filter((h) => !/^https?:/.test(h ?? ''))).toEqual([]);
    expect(await page.evaluate(() => document.querySelectorAll('img[src="x"]').length)).toBe(0);

    // The victim still writes.
    await messageInput(page).fill(`respuesta-${victim}`);
    await messageInput(page).press('Enter');
    await need(region.getByText(`respuesta-${victim}`), 'the victim’s own answer');
    expect(unexpected(problems)).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });

  it('media at another host is not fetched until the victim clicks; an internal name is refused', async () => {
    await send({ type: 'IMAGE', mediaUrl: 'https://attacker.example/pixel.png?who=victim', caption: 'img' });
    // Names of a private network are no public host: the service refuses them outright.
    for (const mediaUrl of ['https://router.lan/admin/reboot.mp4', 'https://intranet.corp/track.mp3'])
      await expect(send({ type: 'VIDEO', mediaUrl })).rejects.toThrow(/must be a public https address/);
    await send({ type: 'VIDEO', mediaUrl: 'https://attacker.example/reboot.mp4' });
    await send({ type: 'AUDIO', mediaUrl: 'https://attacker.example/track.mp3' });
    await send({ type: 'DOCUMENT', mediaUrl: 'https://attacker.example/doc.pdf' });
    await send({ type: 'TEXT', text: `media-fin-${victim}` });
    const region = messagesRegion(page);
    await need(region.getByText(`media-fin-${victim}`), 'the last message after the media');
    // Whatever the page would load for them, it has asked for by now: the service answered a later message.
    await messageInput(page).fill(`after-media-${victim}`);
    await messageInput(page).press('Enter');
    await need(region.getByText(`after-media-${victim}`), 'the victim’s message after the media');
    await shot(page, J, 'media');
    expect(foreignRequests).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
  });

  it('a burst of 200 messages (the whole rate-limit burst) leaves the victim’s widget working: her own message, her other rooms', async () => {
    await new Promise((r) => setTimeout(r, 2_000)); // the ~20 events of the tests above refill (20 a second): this test is about the widget, not the limit
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => send({ type: 'TEXT', text: `flood ${i} ${'x'.repeat(200)}` })),
    );
    const region = messagesRegion(page);
    await need(region.getByText(/^flood 199 /), 'the last message of the burst');
    await messageInput(page).fill(`tras-flood-${victim}`);
    await messageInput(page).press('Enter');
    await need(region.getByText(`tras-flood-${victim}`), 'the victim’s message after the burst');
    // Her other room (the bot's) opens and works.
    const w = await page.evaluateHandle(() => (window as unknown as { groupWidget: Handle }).groupWidget);
    const botRoom = await w.evaluate(
      (x) =>
        (x as unknown as { stores: { $rooms: { get(): Array<{ id: string; type: string }> } } }).stores.$rooms
          .get()
          .find((r) => r.type === 'bot')?.id,
    );
    expect(botRoom).toBeTruthy();
    await w.evaluate((x, id) => x.setCurrentRoom(id), botRoom as string);
    await messageInput(page).fill(`al-bot-${victim}`);
    await messageInput(page).press('Enter');
    await need(messagesRegion(page).getByText(`al-bot-${victim}`), 'the victim’s message in her bot room');
    await shot(page, J, 'after-flood');
    expect(unexpected(problems)).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(foreignRequests).toEqual([]);
  }, 60_000);
});
