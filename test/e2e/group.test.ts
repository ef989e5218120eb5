/**
 * Journey: the group chat demo (`/group.html`, Alice and Bob side by side in
 * two frames on the `group` widget). Alice starts a chat with Bob from her
 * contacts, they write to each other live, Alice adds Carol from the room
 * contacts (Carol, on her own page, gets the room and its history), and Bob
 * leaves the room: Alice sees him go, and the service no longer counts him.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import {
  closeJourney,
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
  until,
  type Service,
} from './helpers.ts';

const J = 'group';
let service: Service;
let browser: Browser;
let page: Page;
let problems: string[];
let alice: FrameLocator;
let bob: FrameLocator;
let roomId: string;

async function membersOf(room: string): Promise<string[]> {
  const { rows } = await service.app.charla.db.query<{ user_id: string }>(
    'SELECT user_id FROM room_members WHERE room_id = $1 ORDER BY user_id',
    [room],
  );
  return rows.map((r) => r.user_id);
}

async function send(frame: FrameLocator, text: string): Promise<void> {
  await messageInput(frame).fill(text);
  await messageInput(frame).press('Enter');
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, `${service.base}/group.html`, { width: 1400, height: 1000 }));
  alice = page.frameLocator('iframe[name="alice"]');
  bob = page.frameLocator('iframe[name="bob"]');
});

closeJourney(J, () => ({ page, browser, service }));

describe('journey: two users chat in a group room', () => {
  it('each user sees the group widget with their contacts', async () => {
    for (const [frame, other] of [
      [alice, 'Bob Ruiz'],
      [bob, 'Alice Martín'],
    ] as const) {
      await need(panel(frame), 'the group widget open at once (autoShow)');
      await need(
        panel(frame).getByRole('button', { name: new RegExp(other) }),
        `the contact ${other} in the home menu (setContacts)`,
      );
    }
    await shot(page, J, 'both-home');
  });

  it('Alice starts a chat with Bob; they write to each other live', async () => {
    await panel(alice)
      .getByRole('button', { name: /Bob Ruiz/ })
      .first()
      .click();
    await need(messageInput(alice), 'Alice’s composer in the new room');
    roomId = await until('Alice’s current room', async () => {
      const text = (await alice.locator('#current-room').textContent())?.trim();
      return text && text !== 'ninguna' ? text : undefined;
    });
    await send(alice, 'Hola Bob, ¿repasamos el pedido de mañana?');
    await need(
      messagesRegion(alice).getByText('Hola Bob, ¿repasamos el pedido de mañana?'),
      'Alice’s own message',
    );

    // Bob gets the room live and opens it.
    await panel(bob)
      .getByRole('button', { name: /Alice Martín/ })
      .first()
      .click();
    await need(
      messagesRegion(bob).getByText('Hola Bob, ¿repasamos el pedido de mañana?'),
      'Alice’s message on Bob’s side',
    );
    await send(bob, '¡Claro! Te escucho.');
    await need(messagesRegion(alice).getByText('¡Claro! Te escucho.'), 'Bob’s answer on Alice’s side, live');
    expect(await membersOf(roomId)).toEqual(['alice', 'bob']);
    await shot(page, J, 'chatting');
  });

  it('Alice adds Carol from the room contacts; Carol gets the room, but not what Alice and Bob said alone', async () => {
    const { page: carolPage, problems: carolProblems } = await openPage(
      browser,
      `${service.base}/group-user.html?user=carol`,
      {
        width: 700,
        height: 900,
      },
    );
    await need(panel(carolPage), 'Carol’s widget');

    await panel(alice)
      .getByRole('button', { name: /Añadir personas/ })
      .click();
    const carol = panel(alice).getByRole('button', { name: /Carol Díaz/ });
    await need(carol, 'Carol among the room contacts (setContactsForRoom)');
    await shot(page, J, 'room-contacts');
    await carol.first().click();
    await until('Carol to be a member', async () =>
      (await membersOf(roomId)).includes('carol') ? true : undefined,
    );
    expect(await membersOf(roomId)).toEqual(['alice', 'bob', 'carol']);
    await need(bob.getByText(/entra Carol Díaz/), 'Bob told that Carol joined (addedToRoom, type other)');
    // Back from the room contacts to the conversation.
    if (!(await messageInput(alice).isVisible()))
      await panel(alice).getByRole('button', { name: 'Volver' }).click();
    await need(messageInput(alice), 'Alice back in the conversation');

    // Carol sees the room appear and what is said from now on; the direct conversation
    // before she came stays Alice's and Bob's.
    await need(
      panel(carolPage).getByRole('button', { name: /Alice Martín|Bob Ruiz/ }),
      'the room in Carol’s list',
    );
    await carolPage.evaluate(
      (id) =>
        (
          window as unknown as { groupWidget: { setCurrentRoom(id: string): void } }
        ).groupWidget.setCurrentRoom(id),
      roomId,
    );
    await send(alice, 'Bienvenida, Carol');
    await need(messagesRegion(carolPage).getByText('Bienvenida, Carol'), 'what is said after she came');
    expect(
      await messagesRegion(carolPage).getByText('Hola Bob, ¿repasamos el pedido de mañana?').count(),
    ).toBe(0);
    await send(carolPage as unknown as FrameLocator, 'Hola a los dos 👋');
    await need(messagesRegion(alice).getByText('Hola a los dos 👋'), 'Carol’s message on Alice’s side');
    await need(messagesRegion(bob).getByText('Hola a los dos 👋'), 'Carol’s message on Bob’s side');
    await shot(page, J, 'three-in-room');
    expect(await cspViolations(carolPage)).toEqual([]);
    expect(unexpected(carolProblems)).toEqual([]);
    await carolPage.context().close();
  });

  it('Bob leaves the room: Alice sees him go and he is no longer a member', async () => {
    await bob.getByRole('button', { name: 'Salir de la sala actual' }).click();
    await until('Bob to leave', async () => (!(await membersOf(roomId)).includes('bob') ? true : undefined));
    await need(alice.getByText(/sale Bob Ruiz/), 'Alice told that Bob left (removedFromRoom, type other)');
    await need(bob.getByText(/he salido de la sala/), 'Bob told that he left (removedFromRoom, type me)');
    expect(await membersOf(roomId)).toEqual(['alice', 'carol']);
    // Alice and Carol go on without him.
    await send(alice, 'Seguimos nosotras.');
    await need(messagesRegion(alice).getByText('Seguimos nosotras.'), 'Alice’s message after Bob left');
    await shot(page, J, 'bob-left');
  });

  it('ran under the strict CSP without errors', async () => {
    expect(await cspViolations(page)).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });
});
