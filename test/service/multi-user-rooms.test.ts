/**
 * Several people in rooms at once, each with the widget library against the
 * real service: the room list on every member's side, two tabs of one user,
 * a direct room after one of the pair left, and removal while offline.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Message, Room } from '../../types/index.ts';
import type { WidgetInstance } from '../../src/widget/instance.ts';
import type { MembershipDetail } from '../../src/events/index.ts';
import { BASIC, waitFor } from './helpers/live.ts';
import { liveWidgets, rejection } from './helpers/widgets.ts';

const live = liveWidgets({ widget: { type: 'group' } });

function widget(userId: string, userNames: string): WidgetInstance {
  return live.widget({ userId, userNames });
}

async function people(...names: string[]): Promise<WidgetInstance[]> {
  const ws = names.map((n) => widget(`${n.toLowerCase()}-${randomUUID()}`, n));
  await Promise.all(ws.map((w) => w.connect()));
  return ws;
}

/** Ana, Beto and Carla in one room: Ana's direct room with Beto, Carla added by Ana. */
async function groupOfThree() {
  const [ana, beto, carla] = (await people('Ana', 'Beto', 'Carla')) as [
    WidgetInstance,
    WidgetInstance,
    WidgetInstance,
  ];
  const room = await ana.openRoomWithUser({ id: beto.userId, names: 'Beto' });
  await ana.addMember({ id: carla.userId, names: 'Carla' }, room.id);
  await waitFor(() => roomOf(carla, room.id) !== undefined, 5000, 'Carla’s room');
  return { ana, beto, carla, room };
}

const roomOf = (w: WidgetInstance, roomId: string): Room | undefined =>
  w.stores.$rooms.get().find((r) => r.id === roomId);
const texts = (w: WidgetInstance, roomId: string): string[] =>
  (w.core.stores.w.$messagesByRoom.get()[roomId] ?? []).map((m) => (m as { text?: string }).text ?? '');
const lastText = (w: WidgetInstance, roomId: string) =>
  (roomOf(w, roomId)?.lastMessage as (Message & { text?: string }) | null | undefined)?.text;

describe('the room list on every member’s side', () => {
  it('shows each room’s last message and puts the busiest room first, live and after a reload', async () => {
    const [ana, beto] = (await people('Ana', 'Beto')) as [WidgetInstance, WidgetInstance];
    const room = await ana.openRoomWithUser({ id: beto.userId, names: 'Beto' });
    await waitFor(() => roomOf(beto, room.id) !== undefined, 5000, 'Beto’s new room');
    // The bot's greeting made the bot room the latest; the direct room is empty so far.
    await ana.sendMessage({ roomId: room.id, type: 'TEXT', text: 'hola Beto' });
    await waitFor(() => lastText(beto, room.id) === 'hola Beto', 5000, 'Beto’s preview');
    await waitFor(() => lastText(ana, room.id) === 'hola Beto', 5000, 'Ana’s preview');
    for (const w of [ana, beto]) {
      expect(w.stores.$rooms.get()[0]?.id).toBe(room.id);
      expect(roomOf(w, room.id)?.lastMessageAt).toBe(
        (roomOf(w, room.id)?.lastMessage as Message | undefined)?.createdAt,
      );
    }
    await beto.sendMessage({ roomId: room.id, type: 'TEXT', text: 'hola Ana' });
    await waitFor(() => lastText(ana, room.id) === 'hola Ana', 5000, 'Ana’s second preview');
    expect(lastText(beto, room.id)).toBe('hola Ana');
    expect(beto.stores.$unreadByRoom.get()[room.id]).toBe(1);
    expect(ana.stores.$unreadByRoom.get()[room.id]).toBe(1);

    // A reload (a new page of the same user) sees the same list.
    const again = widget(beto.userId, 'Beto');
    await again.connect();
    expect(again.stores.$rooms.get().map((r) => r.id)).toEqual(beto.stores.$rooms.get().map((r) => r.id));
    expect(lastText(again, room.id)).toBe('hola Ana');
    expect(again.stores.$unreadByRoom.get()[room.id]).toBe(1);
  });

  it('a direct room made a group is a group for the two who were in it too, named after its members', async () => {
    const [ana, beto, carla] = (await people('Ana', 'Beto', 'Carla')) as [
      WidgetInstance,
      WidgetInstance,
      WidgetInstance,
    ];
    const room = await ana.openRoomWithUser({ id: beto.userId, names: 'Beto' });
    await waitFor(() => roomOf(beto, room.id) !== undefined, 5000, 'Beto’s new room');
    expect(roomOf(beto, room.id)).toMatchObject({ type: 'direct', name: 'Ana' });
    await ana.addMember({ id: carla.userId, names: 'Carla' }, room.id);
    for (const w of [ana, beto, carla]) {
      await waitFor(() => roomOf(w, room.id)?.type === 'group', 5000, 'the room a group');
      // No name of its own: each side names it after the others (roomName in the components).
      expect(roomOf(w, room.id)?.name).toBe('');
      expect(roomOf(w, room.id)?.members).toHaveLength(3);
    }
    // What a reload gets is the same.
    const again = widget(beto.userId, 'Beto');
    await again.connect();
    expect(roomOf(again, room.id)).toMatchObject({ type: 'group', name: '' });
  });
});

describe('two tabs of one visitor', () => {
  it('both get each message once, agree on unread counts, and a message sent from one shows once in the other', async () => {
    const [ana, beto] = (await people('Ana', 'Beto')) as [WidgetInstance, WidgetInstance];
    const beto2 = widget(beto.userId, 'Beto');
    await beto2.connect();
    const room = await ana.openRoomWithUser({ id: beto.userId, names: 'Beto' });
    await waitFor(() => roomOf(beto2, room.id) !== undefined, 5000, 'the room in the second tab');

    await ana.sendMessage({ roomId: room.id, type: 'TEXT', text: 'uno' });
    await ana.sendMessage({ roomId: room.id, type: 'TEXT', text: 'dos' });
    for (const w of [beto, beto2]) {
      await waitFor(() => texts(w, room.id).length === 2, 5000, 'both messages');
      expect(texts(w, room.id)).toEqual(['uno', 'dos']);
      expect(w.stores.$unreadByRoom.get()[room.id]).toBe(2);
    }

    // Beto reads the room in the first tab: the second tab counts it read too.
    beto.setCurrentRoom(room.id);
    beto.open();
    expect(beto.stores.$unreadByRoom.get()[room.id]).toBe(0);
    await waitFor(() => beto2.stores.$unreadByRoom.get()[room.id] === 0, 5000, 'the second tab read');

    // While the first tab shows the room, what arrives is read there, and so in the second tab.
    await ana.sendMessage({ roomId: room.id, type: 'TEXT', text: 'tres' });
    await waitFor(() => texts(beto2, room.id).length === 3, 5000, 'the third message');
    await waitFor(() => beto2.stores.$unreadByRoom.get()[room.id] === 0, 5000, 'the third read');
    expect(beto.stores.$unreadByRoom.get()[room.id]).toBe(0);

    // Sent from the second tab: once in each tab and for Ana.
    const sent = await beto2.sendMessage({ roomId: room.id, type: 'TEXT', text: 'desde la otra' });
    for (const w of [beto, beto2, ana]) {
      await waitFor(() => texts(w, room.id).includes('desde la otra'), 5000, 'the reply');
      expect(texts(w, room.id)).toEqual(['uno', 'dos', 'tres', 'desde la otra']);
      expect(w.core.findMessage(String(sent.id))?.seq).toBe(sent.seq);
    }
    expect(ana.stores.$unreadByRoom.get()[room.id]).toBe(1);
    expect(beto.stores.$unreadByRoom.get()[room.id]).toBe(0);
    expect(beto2.stores.$unreadByRoom.get()[room.id]).toBe(0);
  });
});

describe('leaving', () => {
  it('after one of a pair left their direct room, opening it again from either side brings both back to it', async () => {
    const [ana, beto] = (await people('Ana', 'Beto')) as [WidgetInstance, WidgetInstance];
    const room = await ana.openRoomWithUser({ id: beto.userId, names: 'Beto' });
    await ana.sendMessage({ roomId: room.id, type: 'TEXT', text: 'antes' });
    await beto.leaveRoom(room.id, beto.userId);
    await waitFor(() => roomOf(ana, room.id)?.members.length === 1, 5000, 'Beto gone on Ana’s side');

    // Beto comes back to Ana: the same room (made once), and he is in it again.
    const back = await beto.openRoomWithUser({ id: ana.userId, names: 'Ana' });
    expect(back.id).toBe(room.id);
    expect([...back.members].sort()).toEqual([ana.userId, beto.userId].sort());
    await waitFor(() => roomOf(ana, room.id)?.members.length === 2, 5000, 'Beto back on Ana’s side');
    // He sees what is said from his return on, not what was said before he left.
    expect((await beto.getMessages({ roomId: room.id })).map((m) => (m as { text?: string }).text)).toEqual(
      [],
    );
    await beto.sendMessage({ roomId: room.id, type: 'TEXT', text: 'he vuelto' });
    await waitFor(() => texts(ana, room.id).includes('he vuelto'), 5000, 'Beto’s message to Ana');

    // The same from the side of the one who stayed.
    await beto.leaveRoom(room.id, beto.userId);
    await waitFor(() => roomOf(beto, room.id) === undefined, 5000, 'the room gone from Beto’s list');
    const reopened = await ana.openRoomWithUser({ id: beto.userId, names: 'Beto' });
    expect(reopened.id).toBe(room.id);
    expect(reopened.members).toContain(beto.userId);
    await waitFor(() => roomOf(beto, room.id) !== undefined, 5000, 'the room back in Beto’s list');
    await ana.sendMessage({ roomId: room.id, type: 'TEXT', text: '¿sigues?' });
    await waitFor(() => texts(beto, room.id).includes('¿sigues?'), 5000, 'Ana’s message to Beto');
  });

  it('a member removed from the room they are in is told so, live, and taken to the bot room', async () => {
    const { ana, beto, carla: cara, room } = await groupOfThree();
    beto.setCurrentRoom(room.id);
    expect(beto.core.stores.w.$lastError.get()).toBeNull();
    await ana.leaveRoom(room.id, beto.userId);
    await waitFor(() => beto.stores.$currentRoomId.get() !== room.id, 5000, 'Beto taken out');
    expect(beto.stores.$currentRoomId.get()).toBe(beto.core.currentSession?.botRoomId);
    expect(beto.core.stores.w.$lastError.get()).toMatchObject({
      message: 'Ya no formas parte de esa conversación.',
      key: 'NOT_A_MEMBER',
    });
    // Removed while on the room's "add to the conversation" list: back to the chat (the list was for
    // that room), and a contact chosen there is not added to the bot room.
    const caraBot = cara.core.currentSession?.botRoomId;
    cara.setCurrentRoom(room.id);
    cara.setContactsForRoom([{ id: 'dani', names: 'Dani' }]);
    cara.context.actions.showRoomContacts();
    await ana.leaveRoom(room.id, cara.userId);
    await waitFor(() => cara.stores.$currentRoomId.get() === caraBot, 5000, 'Cara taken out');
    expect(cara.core.stores.w.$ui.get().view).toBe('chat');
    // The list the page gave for that room is not offered for the bot room.
    expect(cara.core.stores.w.$roomContacts.get()).toEqual([]);
    const refused = await cara.context.actions.addMember({ id: beto.userId, names: 'Beto' }, room.id).then(
      () => null,
      (e: { key?: string }) => e.key,
    );
    expect(refused).toBe('NOT_A_MEMBER');
    expect((await cara.getMembers(caraBot!)).map((m) => m.referenceId)).not.toContain(beto.userId);

    // One removed from a room they were not looking at is not interrupted.
    const { ana: other, carla } = await groupOfThree();
    const shown = carla.stores.$currentRoomId.get();
    const rooms = other.stores.$rooms.get().filter((r) => r.members.includes(carla.userId));
    await other.leaveRoom(rooms[0]!.id, carla.userId);
    await waitFor(() => !carla.stores.$rooms.get().some((r) => r.id === rooms[0]!.id), 5000, 'Carla out');
    expect(carla.stores.$currentRoomId.get()).toBe(shown);
    expect(carla.core.stores.w.$lastError.get()).toBeNull();
  });

  it('a member removed while offline finds the room gone when back: told once, out of it, refused NOT_A_MEMBER', async () => {
    const { ana, beto, carla, room } = await groupOfThree();
    carla.setCurrentRoom(room.id);
    const removed: MembershipDetail[] = [];
    carla.on('removedFromRoom', (d) => removed.push(d));

    carla.core.disconnect();
    await ana.leaveRoom(room.id, carla.userId);
    await ana.sendMessage({ roomId: room.id, type: 'TEXT', text: 'sin Carla' });
    await carla.connect();

    expect(roomOf(carla, room.id)).toBeUndefined();
    expect(carla.stores.$currentRoomId.get()).toBe(carla.core.currentSession?.botRoomId);
    expect(removed).toEqual([expect.objectContaining({ type: 'me', roomId: room.id })]);
    expect(texts(carla, room.id)).not.toContain('sin Carla');
    expect((await rejection(carla.sendMessage({ roomId: room.id, type: 'TEXT', text: '¿hola?' }))).key).toBe(
      'NOT_A_MEMBER',
    );
    expect((await rejection(carla.getMessages({ roomId: room.id }))).key).toBe('NOT_A_MEMBER');
    // A second reconnect does not tell her again.
    carla.core.disconnect();
    await carla.connect();
    expect(removed).toHaveLength(1);
  });
});

describe('a message typed offline into a room the visitor is removed from meanwhile', () => {
  it('is refused NOT_A_MEMBER and the error names the message, not the room now shown', async () => {
    const { ana, carla, room } = await groupOfThree();
    carla.setCurrentRoom(room.id);
    carla.core.disconnect();
    await ana.leaveRoom(room.id, carla.userId);
    // Typed while offline: queued, sent when the connection is back, and refused there.
    const sent = carla.sendMessage({ roomId: room.id, type: 'TEXT', text: 'enviado tras ser expulsada' });
    await carla.connect();
    expect((await rejection(sent)).key).toBe('NOT_A_MEMBER');
    // The chat has moved to the bot room: the banner says which message could not go, and why.
    expect(carla.stores.$currentRoomId.get()).not.toBe(room.id);
    expect(carla.core.stores.w.$lastError.get()?.message).toBe(
      'No se pudo enviar «enviado tras ser expulsada»: no formas parte de esa conversación.',
    );
  });
});

describe('a business posting into a live room', () => {
  it('reaches every member live once, retried or not, and not a member removed in between', async () => {
    const { ana, beto, carla, room } = await groupOfThree();
    const post = (text: string, id: string) =>
      fetch(`${live.h.baseUrl}/v1/rooms/${room.id}/message`, {
        method: 'POST',
        headers: { authorization: BASIC, 'content-type': 'application/json' },
        body: JSON.stringify({ senderId: 'erp', messages: [{ id, type: 'TEXT', text }] }),
      });
    const first = randomUUID();
    expect((await post('pedido 1', first)).status).toBe(200);
    await beto.sendMessage({ roomId: room.id, type: 'TEXT', text: 'gracias' });
    expect((await post('pedido 1', first)).status).toBe(200);
    for (const w of [ana, beto, carla]) {
      await waitFor(() => texts(w, room.id).includes('gracias'), 5000, 'the post and the answer');
      expect(texts(w, room.id)).toEqual(['pedido 1', 'gracias']);
      expect(lastText(w, room.id)).toBe('gracias');
    }
    await ana.leaveRoom(room.id, carla.userId);
    await waitFor(() => roomOf(carla, room.id) === undefined, 5000, 'Carla out');
    expect((await post('pedido 2', randomUUID())).status).toBe(200);
    await ana.sendMessage({ roomId: room.id, type: 'TEXT', text: 'listo' });
    for (const w of [ana, beto]) {
      await waitFor(() => texts(w, room.id).includes('listo'), 5000, 'the second post');
      expect(texts(w, room.id)).toEqual(['pedido 1', 'gracias', 'pedido 2', 'listo']);
    }
    // Carla heard neither (she would have got the post before Ana's message had it reached her).
    expect(texts(carla, room.id)).toEqual(['pedido 1', 'gracias']);
    expect((await rejection(carla.getMessages({ roomId: room.id }))).key).toBe('NOT_A_MEMBER');
  });
});
