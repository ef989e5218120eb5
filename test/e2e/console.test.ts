/**
 * Journey: every widgetInstance method from the QA console does what the
 * interface says. Each method is run from its form; the test checks the
 * result the form shows and what changed on screen or in the service.
 * The normal widget first (open/close/enable, views, flows, rooms, messages,
 * inputs), then the console switches to the group widget for contacts, room
 * contacts, loaders, opening a room with a user, and members.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  DEMO_BOT_ID,
  DEMO_GROUP_API_KEY,
  closeJourney,
  cspViolations,
  launchBrowser,
  messageInput,
  messagesRegion,
  need,
  openPage,
  panel,
  roomMessages,
  runConsoleForm,
  shot,
  startService,
  uniqueUser,
  unexpected,
  until,
  type Service,
} from './helpers.ts';

const J = 'console';
const user = uniqueUser('qa');
let service: Service;
let browser: Browser;
let page: Page;
let problems: string[];
let botRoomId: string;
let directRoomId: string;

const launcherButton = (): Locator => page.locator('charla-widget').locator('[part~="launcher"]');
const state = (id: string) => page.locator(`#${id}`).textContent();

async function ok(name: string, values: Record<string, string> = {}): Promise<any> {
  const outcome = await runConsoleForm(page, name, values);
  if (outcome.state !== 'ok') throw new Error(`${name} showed an error: ${outcome.text}`);
  return outcome.value;
}

async function members(roomId: string): Promise<string[]> {
  const { rows } = await service.app.charla.db.query<{ user_id: string }>(
    'SELECT user_id FROM room_members WHERE room_id = $1 ORDER BY user_id',
    [roomId],
  );
  return rows.map((r) => r.user_id);
}

async function connectAs(apiKey: string): Promise<void> {
  await page.locator('#session-api-key').fill(apiKey);
  await page.locator('#session-user-id').fill(user);
  await page.getByRole('button', { name: 'Crear y conectar' }).click();
  await until(
    'the console widget to connect',
    async () => ((await state('state-connection')) === 'connected' ? true : undefined),
    20_000,
  );
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, `${service.base}/console.html?user=${user}`, {
    width: 1400,
    height: 1000,
  }));
  await until(
    'the console widget to connect',
    async () => ((await state('state-connection')) === 'connected' ? true : undefined),
    20_000,
  );
  botRoomId = await until('the current room (the bot room)', async () => {
    const r = (await state('state-room'))?.trim();
    return r && r !== '—' ? r : undefined;
  });
});

closeJourney(J, () => ({ page, browser, service }));

describe('journey: every widgetInstance method from the QA console (normal widget)', () => {
  it('open() opens the panel; close(true) closes it and disables the launcher; enable() enables it; open() after close(true) re-enables', async () => {
    expect((await ok('open')).open).toBe(true);
    await need(panel(page), 'the panel after open()');
    expect(await state('state-open')).toBe('true');
    await shot(page, J, 'open');

    expect((await ok('close', { disable: 'true' })).open).toBe(false);
    await until('the panel to close', async () => (!(await panel(page).isVisible()) ? true : undefined));
    await until('the launcher to be disabled', async () =>
      (await launcherButton().isDisabled()) ? true : undefined,
    );
    await ok('enable');
    await until('the launcher to be enabled', async () =>
      !(await launcherButton().isDisabled()) ? true : undefined,
    );

    await ok('close', { disable: 'true' });
    await until('disabled again', async () => ((await launcherButton().isDisabled()) ? true : undefined));
    await ok('open');
    await need(panel(page), 'the panel after open() on a disabled launcher');
    expect(await launcherButton().isDisabled()).toBe(false);
  });

  it('hideHomeMenu() shows the chat, showHomeMenu() the home menu; each does nothing when already there', async () => {
    await ok('hideHomeMenu');
    await need(messageInput(page), 'the chat view after hideHomeMenu()');
    await ok('hideHomeMenu');
    await need(messageInput(page), 'still the chat view after a second hideHomeMenu()');
    await ok('showHomeMenu');
    await need(panel(page).getByText(/Tus conversaciones/), 'the home menu after showHomeMenu()');
    await ok('showHomeMenu');
    await need(panel(page).getByText(/Tus conversaciones/), 'still the home menu');
    await ok('hideHomeMenu');
    await need(messageInput(page), 'back to the chat');
  });

  it('setFlow(flowId) starts a flow of the bot; an unknown flow is an error carrying the body', async () => {
    const greetings = async () =>
      (await roomMessages(service.app, botRoomId)).filter((m) =>
        String(m['text'] ?? '').includes('Soy el bot de demostración'),
      ).length;
    const before = await greetings();
    await ok('setFlow', { flowId: 'greeting' });
    await until('the greeting flow to speak again', async () =>
      (await greetings()) > before ? true : undefined,
    );
    await need(messagesRegion(page).getByText(/Soy el bot de demostración/), 'the greeting on screen');
    const bad = await runConsoleForm(page, 'setFlow', { flowId: 'no-such-flow' });
    expect(bad.state).toBe('error');
    expect(bad.value.httpStatus).toBe(404);
    expect(bad.value.body.error.key).toBe('NOT_FOUND');
  });

  it('getRoom() and getMembers() answer the current room, with the interface’s fields', async () => {
    const room = await ok('getRoom');
    expect(room.id).toBe(botRoomId);
    for (const field of [
      'unread',
      'id',
      'bot',
      'type',
      'company',
      'channel',
      'deleted',
      'members',
      'avatarUrl',
      'createdAt',
      'updatedAt',
      'name',
      'membersInfo',
      'lastMessageAt',
      'channelProvider',
    ]) {
      expect(room, `Room.${field}`).toHaveProperty(field);
    }
    expect(room.bot.id).toBe(DEMO_BOT_ID);
    expect(room.members).toEqual(expect.arrayContaining([user, DEMO_BOT_ID]));
    const list = await ok('getMembers');
    expect(list.map((m: { referenceId: string }) => m.referenceId).sort()).toEqual(
      [DEMO_BOT_ID, user].sort(),
    );
    for (const field of [
      'id',
      'referenceId',
      'roomId',
      'botId',
      'companyId',
      'socketId',
      'createdAt',
      'memberType',
    ])
      expect(list[0]).toHaveProperty(field);
    const bad = await runConsoleForm(page, 'getRoom', { roomId: 'no-such-room' });
    expect(bad.state).toBe('error');
    expect(bad.value.name).toBe('CharlaError');
  });

  it('sendMessage() sends and resolves with the stored message; getMessages() pages history (default 20, limit, from an id)', async () => {
    const text = `desde la consola ${Date.now()}`;
    const sent = await ok('sendMessage', { message: JSON.stringify({ type: 'TEXT', text }) });
    expect(sent).toMatchObject({ type: 'TEXT', text, roomId: botRoomId, senderId: user });
    expect(['DELIVERED', 'DELIVERED_CHANNEL', 'DELIVERED_USER']).toContain(sent.status);
    await need(messagesRegion(page).getByText(text), 'the sent message in the list');

    const all = await ok('getMessages', { limit: '' });
    expect(all.length).toBeLessThanOrEqual(20);
    const two = await ok('getMessages', { limit: '2' });
    expect(two).toHaveLength(2);
    const ids = (all as Array<{ id: string }>).map((m) => m.id);
    const mine = ids.indexOf(sent.id);
    expect(mine).toBeGreaterThan(1);
    const before = await ok('getMessages', { limit: '2', id: sent.id });
    expect(before.map((m: { id: string }) => m.id)).toEqual(ids.slice(mine - 2, mine));

    const invalid = await runConsoleForm(page, 'sendMessage', {
      message: JSON.stringify({ type: 'IMAGE', mediaUrl: 'ftp://nope/x.png' }),
    });
    expect(invalid.state).toBe('error');
    await runConsoleForm(page, 'getMessages', { limit: '', id: '' });
  });

  it('disconnect() closes the live connection and connect() opens it again', async () => {
    await ok('disconnect');
    await until('the widget to be idle', async () =>
      (await page.locator('#state-connection').textContent()) === 'idle' ? true : undefined,
    );
    await ok('connect');
    await until('the widget to be connected', async () =>
      (await page.locator('#state-connection').textContent()) === 'connected' ? true : undefined,
    );
  });

  it('disableInputs() disables the composer; enableInputs() enables it', async () => {
    await ok('disableInputs');
    await until('the input to be disabled', async () =>
      (await messageInput(page).isDisabled()) ? true : undefined,
    );
    expect(
      await panel(page)
        .getByRole('button', { name: /Adjuntar/ })
        .isDisabled(),
    ).toBe(true);
    await shot(page, J, 'inputs-disabled');
    await ok('enableInputs');
    await until('the input to be enabled', async () =>
      !(await messageInput(page).isDisabled()) ? true : undefined,
    );
  });
});

describe('journey: every widgetInstance method from the QA console (group widget)', () => {
  it('setContacts / addContacts / addContact fill the home menu; startLoading / stopLoading show and hide its loader', async () => {
    await connectAs(DEMO_GROUP_API_KEY);
    await ok('open');
    await ok('showHomeMenu');
    await ok('setContacts', {
      contacts: JSON.stringify([
        { id: 'carol', names: 'Carol Díaz' },
        { id: 'dave', names: 'Dave Pérez' },
      ]),
    });
    await need(
      panel(page).getByRole('button', { name: /Carol Díaz/ }),
      'Carol in the contacts (setContacts)',
    );
    await ok('addContacts', { contacts: JSON.stringify([{ id: 'bob', names: 'Bob Ruiz' }]) });
    await ok('addContact', { contact: JSON.stringify({ id: 'alice', names: 'Alice Martín' }) });
    for (const name of ['Carol Díaz', 'Dave Pérez', 'Bob Ruiz', 'Alice Martín']) {
      await need(panel(page).getByRole('button', { name: new RegExp(name) }), `${name} in the contacts`);
    }
    await ok('startLoading');
    await need(
      panel(page)
        .getByRole('status')
        .filter({ hasText: /Cargando/ }),
      'the contacts loader (startLoading)',
    );
    await shot(page, J, 'contacts-loading');
    await ok('stopLoading');
    await until('the loader to go', async () =>
      (await panel(page)
        .getByRole('status')
        .filter({ hasText: /Cargando/ })
        .count()) === 0
        ? true
        : undefined,
    );
  });

  it('openRoomWithUser() opens a room with that user', async () => {
    const room = await ok('openRoomWithUser', { id: 'alice', names: 'Alice Martín' });
    directRoomId = room.id;
    expect(room.members).toEqual(expect.arrayContaining(['alice', user]));
    await until('the current room to be the new one', async () =>
      (await state('state-room'))?.trim() === directRoomId ? true : undefined,
    );
    await need(messageInput(page), 'the chat with Alice');
    await shot(page, J, 'room-with-alice');
  });

  it('setContactsForRoom / addRoomContacts / addRoomContact fill the room contacts; their loader shows and hides', async () => {
    await ok('setContactsForRoom', { contacts: JSON.stringify([{ id: 'carol', names: 'Carol Díaz' }]) });
    await ok('addRoomContacts', { contacts: JSON.stringify([{ id: 'dave', names: 'Dave Pérez' }]) });
    await ok('addRoomContact', { contact: JSON.stringify({ id: 'bob', names: 'Bob Ruiz' }) });
    await panel(page)
      .getByRole('button', { name: /Añadir personas/ })
      .click();
    for (const name of ['Carol Díaz', 'Dave Pérez', 'Bob Ruiz']) {
      await need(
        panel(page).getByRole('button', { name: new RegExp(name) }),
        `${name} among the room contacts`,
      );
    }
    await ok('startLoadingForRoom');
    await need(
      panel(page)
        .getByRole('status')
        .filter({ hasText: /Cargando/ }),
      'the room contacts loader',
    );
    await shot(page, J, 'room-contacts-loading');
    await ok('stopLoadingForRoom');
    await until('the room loader to go', async () =>
      (await panel(page)
        .getByRole('status')
        .filter({ hasText: /Cargando/ })
        .count()) === 0
        ? true
        : undefined,
    );
    await panel(page).getByRole('button', { name: 'Volver' }).click();
  });

  it('addMember(id) and addMembers([...]) add members; leaveRoom / joinRoom take one out and back', async () => {
    const added = await ok('addMember', { member: 'carol', roomId: directRoomId });
    expect(added).toMatchObject({ status: true });
    expect(await members(directRoomId)).toEqual(expect.arrayContaining(['alice', 'carol', user]));

    const many = await ok('addMembers', {
      roomId: directRoomId,
      members: JSON.stringify([{ referenceId: 'dave', names: 'Dave Pérez', memberType: 'Client' }]),
    });
    expect(many).toMatchObject({ status: true });
    expect(await members(directRoomId)).toContain('dave');

    const left = await ok('leaveRoom', { roomId: directRoomId, userId: 'dave' });
    expect(left).toMatchObject({ status: true });
    expect(await members(directRoomId)).not.toContain('dave');
    const joined = await ok('joinRoom', { roomId: directRoomId, userId: 'dave' });
    expect(joined).toMatchObject({ status: true });
    expect(await members(directRoomId)).toContain('dave');
    expect((await ok('getMembers', { roomId: directRoomId })).length).toBe(4);
  });

  it('setCurrentRoom() switches the room shown', async () => {
    const rooms = await service.app.charla.db.query<{ room_id: string }>(
      'SELECT room_id FROM room_members WHERE user_id = $1 AND room_id <> $2 LIMIT 1',
      [user, directRoomId],
    );
    const other = rooms.rows[0]?.room_id;
    expect(other, 'the user has another room (the bot room of the group widget’s bot)').toBeTruthy();
    await ok('setCurrentRoom', { roomId: other! });
    await until('the current room to change', async () =>
      (await state('state-room'))?.trim() === other ? true : undefined,
    );
    await ok('setCurrentRoom', { roomId: directRoomId });
    await until('and back', async () =>
      (await state('state-room'))?.trim() === directRoomId ? true : undefined,
    );
  });

  it('ran under the strict CSP without unexpected errors', async () => {
    expect(await cspViolations(page)).toEqual([]);
    // The refused calls above (unknown flow, unknown room) show as failed requests.
    expect(unexpected(problems, [/status of 40[0-9]/, /^http 40[0-9] /])).toEqual([]);
  });
});
