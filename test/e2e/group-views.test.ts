/**
 * Journey: two visitors on the `group` widget (`/group-user.html?user=…`, the demo's strict CSP),
 * as the group audit drove them. Beto opens Ana's room from his home menu and goes Back: what
 * Ana writes then stays unread in his list and at the service until he opens the room again.
 * A contact the service refuses (himself) is said in the view and is an `error` event, and a
 * contact's colour paints its initials under the CSP.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ROUTES } from '../../types/index.ts';
import {
  closeAfterAll,
  cspViolations,
  groupWidgetOf,
  launchBrowser,
  messagesRegion,
  need,
  openGroupUsers,
  panel,
  shot,
  shotPagesOnFailure,
  startService,
  unexpected,
  uniqueUser,
  until,
  type Service,
} from './helpers.ts';

const J = 'group-views';
const tag = Date.now().toString(36);
const users = { ana: uniqueUser('ana'), beto: uniqueUser('beto') };
type Who = keyof typeof users;
let service: Service;
let browser: Browser;
const pages = {} as Record<Who, Page>;
const problems: string[][] = [];
let roomId: string;

type Handle = {
  userId: string;
  stores: { $unreadByRoom: { get(): Record<string, number> } };
  openRoomWithUser(u: { id: string; names?: string }): Promise<{ id: string }>;
  sendMessage(m: Record<string, unknown>): Promise<{ id: string }>;
  setContacts(list: Array<Record<string, unknown>>): void;
  showHomeMenu(): void;
  on(name: string, handler: (detail: { operation?: string; error?: { key: string } }) => void): unknown;
};
const widgetOf = (who: Who) => groupWidgetOf<Handle>(pages[who]);
const say = async (text: string) =>
  (await widgetOf('ana')).evaluate((w, [room, t]) => w.sendMessage({ roomId: room, type: 'TEXT', text: t }), [
    roomId,
    text,
  ] as const);
/** The room's unread count for Beto at the service. */
async function stored(): Promise<number> {
  const { rows } = await service.app.charla.db.query<{ unread: number }>(
    'SELECT unread FROM room_members WHERE room_id = $1 AND user_id = $2',
    [roomId, users.beto],
  );
  return Number(rows[0]?.unread);
}
const roomEntry = () => panel(pages.beto).locator('[part=room]').filter({ hasText: tag });

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  const opened = await openGroupUsers(browser, service, users, { viewport: { width: 900, height: 900 } });
  for (const who of Object.keys(users) as Who[]) {
    pages[who] = opened[who].page;
    problems.push(opened[who].problems);
  }
}, 120_000);

shotPagesOnFailure(J, () => pages);
closeAfterAll(() => ({ browser, service }));

describe('journey: a group widget’s views and contacts', () => {
  it('Beto opens the room, goes Back; what Ana writes then stays unread (list, store, service) until he opens it again', async () => {
    roomId = await (
      await widgetOf('ana')
    ).evaluate(async (w, id) => (await w.openRoomWithUser({ id, names: 'Beto' })).id, users.beto);
    await say(`uno ${tag}`);
    await need(roomEntry().getByText('1', { exact: true }), 'one unread in Beto’s list');
    await roomEntry().click();
    await need(messagesRegion(pages.beto).getByText(`uno ${tag}`), 'Ana’s “uno” in the room');
    await until('the room read at the service', async () => ((await stored()) === 0 ? true : undefined));
    await panel(pages.beto).getByRole('button', { name: 'Volver' }).click();
    await need(roomEntry(), 'Beto’s home menu again');

    await say(`dos ${tag}`);
    await say(`tres ${tag}`);
    await need(roomEntry().getByText(`tres ${tag}`), 'the room’s preview with “tres”');
    await need(roomEntry().getByText('2', { exact: true }), 'two unread in Beto’s list');
    await new Promise((r) => setTimeout(r, 800));
    expect(await stored()).toBe(2);
    expect(await (await widgetOf('beto')).evaluate((w, id) => w.stores.$unreadByRoom.get()[id], roomId)).toBe(
      2,
    );
    await shot(pages.beto, J, 'beto-home-two-unread');

    await roomEntry().click();
    await need(messagesRegion(pages.beto).getByText(`tres ${tag}`), '“tres” in the room');
    await until('the room read at the service again', async () =>
      (await stored()) === 0 ? true : undefined,
    );
  });

  it('a contact the service refuses (Beto himself) is said in the view and is an `error` event; its colour paints its initials under the CSP', async () => {
    const beto = await widgetOf('beto');
    await beto.evaluate((w) => {
      const seen: string[] = [];
      (window as unknown as { seenErrors: string[] }).seenErrors = seen;
      w.on('error', (d) => seen.push(`${d.operation}:${d.error?.key}`));
      w.showHomeMenu();
      w.setContacts([{ id: w.userId, names: 'Yo Mismo', color: '#1d4ed8' }]);
    });
    const contact = panel(pages.beto).getByRole('button', { name: 'Conversar con Yo Mismo' });
    await need(contact, 'the contact in Beto’s home menu');
    expect(
      await contact.locator('.avatar').evaluate((a) => {
        const s = getComputedStyle(a);
        return [s.backgroundColor, s.color];
      }),
    ).toEqual(['rgb(29, 78, 216)', 'rgb(255, 255, 255)']);
    await contact.click();
    await need(
      panel(pages.beto)
        .getByRole('alert')
        .filter({ hasText: 'No se pudo abrir la conversación con Yo Mismo.' }),
      'the alert in the home menu',
    );
    expect(
      await pages.beto.evaluate(() => (window as unknown as { seenErrors: string[] }).seenErrors),
    ).toEqual(['openRoomWithUser:VALIDATION_ERROR']);
    await shot(pages.beto, J, 'beto-refused-contact');
    // The refusal's 400 is the service's answer (expected here); nothing else went wrong.
    for (const who of Object.keys(users) as Who[]) expect(await cspViolations(pages[who])).toEqual([]);
    const refusal = [/status of 400/, new RegExp(`^http 400 POST \\S+${ROUTES.widgetDirectRoom}$`)];
    expect(unexpected(problems.flat(), refusal)).toEqual([]);
  });
});
