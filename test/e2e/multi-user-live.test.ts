/**
 * Journey: three visitors on the `group` widget, each in their own browser
 * context (`/group-user.html?user=…`), and the business's backend posting
 * into their room over HTTP while the widgets are open. Ana starts a chat
 * with Beto; Beto's room list shows it live; the marks on Ana's side go from
 * delivered to read; Ana adds Carla, who sees only what is said from then
 * on; a room post reaches all three once, even retried; an EVENT is shown
 * once across a dropped connection; and a message Carla wrote offline after
 * she was taken out of the room is refused, not delivered.
 */
import { randomUUID } from 'node:crypto';
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
  panel,
  roomMessages,
  shot,
  shotPagesOnFailure,
  startService,
  unexpected,
  uniqueUser,
  until,
  type Service,
} from './helpers.ts';

const J = 'multi-user-live';
const tag = Date.now().toString(36);
const users = { ana: uniqueUser('ana'), beto: uniqueUser('beto'), carla: uniqueUser('carla') };
type Who = keyof typeof users;
let service: Service;
let browser: Browser;
const pages = {} as Record<Who, Page>;
const contexts = {} as Record<Who, BrowserContext>;
const problems: string[][] = [];
let roomId: string;

type Handle = {
  stores: {
    $connection: { get(): string };
    $rooms: { get(): Array<{ id: string; type: string; members: string[] }> };
  };
  core: { stores: { w: { $messagesByRoom: { get(): Record<string, Array<Record<string, unknown>>> } } } };
  openRoomWithUser(u: { id: string; names?: string }): Promise<{ id: string }>;
  addMember(m: { id: string; names?: string }, roomId: string): Promise<unknown>;
  leaveRoom(roomId: string, userId: string): Promise<unknown>;
  sendMessage(m: Record<string, unknown>): Promise<{ id: string; status: string }>;
  setCurrentRoom(id: string): void;
  showHomeMenu(): void;
};
const widgetOf = (who: Who) => groupWidgetOf<Handle>(pages[who]);
const connection = async (who: Who) => (await widgetOf(who)).evaluate((w) => w.stores.$connection.get());
/** The room's messages in a widget's store, as `text` (or `slug` for events) and status. */
const held = async (who: Who) =>
  (await widgetOf(who)).evaluate(
    (w, id) =>
      (w.core.stores.w.$messagesByRoom.get()[id] ?? []).map((m) => ({
        id: String(m['id']),
        text: String(m['text'] ?? m['slug'] ?? ''),
        status: String(m['status']),
      })),
    roomId,
  );
const bubble = (who: Who, text: string) =>
  messagesRegion(pages[who])
    .locator('charla-message')
    .filter({ has: pages[who].getByText(text, { exact: true }) });
const mark = (who: Who, text: string, name: RegExp) => bubble(who, text).getByRole('img', { name });
async function send(who: Who, text: string): Promise<void> {
  await messageInput(pages[who]).fill(text);
  await messageInput(pages[who]).press('Enter');
  await need(messagesRegion(pages[who]).getByText(text, { exact: true }), `“${text}” on the sender’s side`);
}
const roomButton = (who: Who, name: RegExp) => panel(pages[who]).getByRole('button', { name });

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  const opened = await openGroupUsers(browser, service, users, { viewport: { width: 900, height: 900 } });
  for (const who of Object.keys(users) as Who[]) {
    pages[who] = opened[who].page;
    contexts[who] = opened[who].context;
    problems.push(opened[who].problems);
  }
}, 120_000);

shotPagesOnFailure(J, () => pages);
closeAfterAll(() => ({ browser, service }));

describe('journey: three visitors and a business backend in one room', () => {
  it('Ana writes to Beto: his room list shows it live, and her mark goes from delivered to read when he opens it', async () => {
    roomId = await (
      await widgetOf('ana')
    ).evaluate(async (w, id) => (await w.openRoomWithUser({ id, names: 'Beto' })).id, users.beto);
    await send('ana', `solo para Beto ${tag}`);
    // Beto is connected, on his home menu: delivered to his widget, not yet read.
    await need(mark('ana', `solo para Beto ${tag}`, /^Entregado$/), 'the delivered mark (DELIVERED_CHANNEL)');

    // Beto's home menu: the room, its last message and one unread, without a reload.
    const entry = roomButton('beto', new RegExp(`solo para Beto ${tag}`));
    await need(entry, 'the new room with Ana’s message as its preview in Beto’s list');
    await need(entry.getByText('1', { exact: true }), 'one unread in Beto’s list');
    await shot(pages.beto, J, 'beto-room-list');
    await entry.click();
    await need(messagesRegion(pages.beto).getByText(`solo para Beto ${tag}`), 'Ana’s message in the room');
    await need(mark('ana', `solo para Beto ${tag}`, /^Leído$/), 'the read mark once Beto saw it');
  });

  it('Ana adds Carla: Carla gets the room but not what the two said alone; all three then write to each other', async () => {
    await (
      await widgetOf('ana')
    ).evaluate((w, [id, room]) => w.addMember({ id: id as string, names: 'Carla' }, room as string), [
      users.carla,
      roomId,
    ] as const);
    await until('the room a group on Beto’s side', async () =>
      (await (
        await widgetOf('beto')
      ).evaluate((w, id) => w.stores.$rooms.get().find((r) => r.id === id)?.type, roomId)) === 'group'
        ? true
        : undefined,
    );
    await (await widgetOf('carla')).evaluate((w, id) => w.setCurrentRoom(id), roomId);
    await need(messageInput(pages.carla), 'Carla’s composer in the group');
    await send('carla', `hola a los dos ${tag}`);
    for (const who of ['ana', 'beto'] as const)
      await need(messagesRegion(pages[who]).getByText(`hola a los dos ${tag}`), `Carla’s message for ${who}`);
    await send('beto', `bienvenida ${tag}`);
    await need(messagesRegion(pages.carla).getByText(`bienvenida ${tag}`), 'Beto’s message for Carla');
    expect(await messagesRegion(pages.carla).getByText(`solo para Beto ${tag}`).count()).toBe(0);
    expect((await held('carla')).map((m) => m.text)).toEqual([`hola a los dos ${tag}`, `bienvenida ${tag}`]);
    await need(mark('carla', `hola a los dos ${tag}`, /^Leído$/), 'Carla’s mark read once the others saw it');
    await shot(pages.carla, J, 'carla-in-group');
  });

  it('a room post reaches all three live, once, even sent again; in the same order on every side', async () => {
    const id = randomUUID();
    const body = { senderId: 'erp', messages: [{ id, type: 'TEXT' as const, text: `pedido listo ${tag}` }] };
    const first = await service.api.postRoomMessages(roomId, body);
    expect(first.data.messageIds).toEqual([id]);
    await send('ana', `gracias ${tag}`);
    const retry = await service.api.postRoomMessages(roomId, body);
    expect(retry.data.duplicates).toEqual([id]);
    for (const who of Object.keys(users) as Who[]) {
      await need(messagesRegion(pages[who]).getByText(`pedido listo ${tag}`), `the post on ${who}’s side`);
      await need(messagesRegion(pages[who]).getByText(`gracias ${tag}`), `Ana’s answer on ${who}’s side`);
    }
    const stored = (await roomMessages(service.app, roomId)).map((m) => String(m.id));
    for (const who of Object.keys(users) as Who[]) {
      const ids = (await held(who)).map((m) => m.id);
      expect(
        ids.filter((x) => x === id),
        `the post once for ${who}`,
      ).toHaveLength(1);
      // What each holds is what the service holds from their joining on, in its order.
      expect(stored.filter((x) => ids.includes(x))).toEqual(ids);
    }
    expect(await messagesRegion(pages.beto).getByText(`pedido listo ${tag}`).count()).toBe(1);
  });

  it('an EVENT is shown once on each side, also for one whose connection dropped and came back', async () => {
    await dropLiveSockets(service.app, users.beto);
    await (
      await widgetOf('ana')
    ).evaluate(
      (w, [room, t]) =>
        w.sendMessage({
          roomId: room,
          type: 'EVENT',
          slug: 'pedido',
          description: `pedido enviado ${t}`,
          eventPayload: {},
        }),
      [roomId, tag] as const,
    );
    await until('Beto back', async () => ((await connection('beto')) === 'connected' ? true : undefined));
    for (const who of Object.keys(users) as Who[]) {
      await need(messagesRegion(pages[who]).getByText(`pedido enviado ${tag}`), `the event on ${who}’s side`);
      expect(await messagesRegion(pages[who]).getByText(`pedido enviado ${tag}`).count()).toBe(1);
    }
    await dropLiveSockets(service.app, users.beto);
    await until('Beto back again', async () =>
      (await connection('beto')) === 'connected' ? true : undefined,
    );
    expect(await messagesRegion(pages.beto).getByText(`pedido enviado ${tag}`).count()).toBe(1);
    expect((await held('beto')).filter((m) => m.text === 'pedido')).toHaveLength(1);
  });

  it('Carla, taken out while offline, finds the room gone and what she wrote meanwhile refused, not delivered', async () => {
    await contexts.carla.setOffline(true);
    await dropLiveSockets(service.app, users.carla);
    await until('Carla offline', async () =>
      (await connection('carla')) !== 'connected' ? true : undefined,
    );
    await send('carla', `sigo aquí ${tag}`);
    await (
      await widgetOf('ana')
    ).evaluate((w, [room, id]) => w.leaveRoom(room as string, id as string), [roomId, users.carla] as const);
    await contexts.carla.setOffline(false);
    await until(
      'Carla back',
      async () => ((await connection('carla')) === 'connected' ? true : undefined),
      30_000,
    );
    await until('Carla’s message refused', async () =>
      (await held('carla')).find((m) => m.text === `sigo aquí ${tag}`)?.status === 'FAILED'
        ? true
        : undefined,
    );
    // The room is gone from her list; nobody got her message.
    expect(
      await (
        await widgetOf('carla')
      ).evaluate((w, id) => w.stores.$rooms.get().some((r) => r.id === id), roomId),
    ).toBe(false);
    expect((await roomMessages(service.app, roomId)).some((m) => m['text'] === `sigo aquí ${tag}`)).toBe(
      false,
    );
    expect(await messagesRegion(pages.ana).getByText(`sigo aquí ${tag}`).count()).toBe(0);
    await shot(pages.carla, J, 'carla-removed');
  });

  it('ran without console errors or CSP violations', async () => {
    for (const [i, list] of problems.entries()) {
      // Carla's page was offline on purpose: its failed requests are expected.
      const allowed = i === 2 ? [/ERR_INTERNET_DISCONNECTED|Failed to load resource|WebSocket/] : [];
      expect(unexpected(list, allowed)).toEqual([]);
    }
    for (const who of Object.keys(users) as Who[]) expect(await cspViolations(pages[who])).toEqual([]);
  });
});
