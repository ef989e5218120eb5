/**
 * A group widget's people against the real service (in-memory storage, real
 * HTTP, real sockets), as the group audit drove them: a room is read only
 * while its chat shows, a room added while away is news after the catch-up,
 * and a contact the service refuses is an `error` event.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ErrorDetail, MembershipDetail } from '../../src/events/index.ts';
import type { WidgetInstance } from '../../src/widget/instance.ts';
import { waitFor } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

const live = liveWidgets({ widget: { type: 'group' } });

const person = (name: string, userId = `${name.toLowerCase()}-${randomUUID()}`) =>
  live.widget({ userId, userNames: name });

const texts = (w: WidgetInstance, roomId: string) =>
  (w.core.stores.w.$messagesByRoom.get()[roomId] ?? []).map((m) => (m as { text?: string }).text);
const unread = (w: WidgetInstance, roomId: string) => w.stores.$unreadByRoom.get()[roomId] ?? 0;
const view = (w: WidgetInstance) => w.context.stores.$ui.get().view;
/** Longer than the widget's read report takes to go (250 ms): a report that was due has gone. */
const settled = () => new Promise((r) => setTimeout(r, 600));

/** Ana and Beto on the group widget, both panels open, and their direct room with Ana's "uno". */
async function pair() {
  const ana = person('Ana');
  const beto = person('Beto');
  await Promise.all([ana.connect(), beto.connect()]);
  ana.open();
  beto.open();
  const roomId = (await ana.openRoomWithUser({ id: beto.userId, names: 'Beto' })).id;
  await ana.sendMessage({ roomId, type: 'TEXT', text: 'uno' });
  await waitFor(() => texts(beto, roomId).includes('uno'), 5000, '"uno" at Beto’s');
  return { ana, beto, roomId };
}

async function say(from: WidgetInstance, to: WidgetInstance, roomId: string, ...words: string[]) {
  for (const text of words) await from.sendMessage({ roomId, type: 'TEXT', text });
  await waitFor(() => words.every((w) => texts(to, roomId).includes(w)), 5000, `${words.join(', ')}`);
}

describe('a group widget reads a room only while its chat shows', () => {
  it('the room chosen, then Back: what arrives on the home menu stays unread, here and at the service, until the chat shows it', async () => {
    const { ana, beto, roomId } = await pair();
    expect(view(beto)).toBe('home');
    beto.context.actions.selectRoom(roomId);
    await waitFor(() => unread(beto, roomId) === 0, 5000, 'the room read once shown');
    beto.showHomeMenu();
    expect(beto.stores.$currentRoomId.get()).toBe(roomId);

    await say(ana, beto, roomId, 'dos', 'tres');
    await settled();
    expect(unread(beto, roomId)).toBe(2);
    expect((await beto.getRoom(roomId)).unread).toBe(2);
    const sent = ana.core.stores.w.$messagesByRoom.get()[roomId] ?? [];
    expect(sent.filter((m) => m.status === 'DELIVERED_USER')).toEqual([]);

    // A new page of Beto's (a reload) finds them unread too.
    const again = person('Beto', beto.userId);
    await again.connect();
    expect(again.stores.$unreadByRoom.get()[roomId]).toBe(2);
    again.destroy();

    // hideHomeMenu() shows the chat of the current room: read, here and at the service.
    beto.hideHomeMenu();
    expect(unread(beto, roomId)).toBe(0);
    await settled();
    expect((await beto.getRoom(roomId)).unread).toBe(0);
  });

  it('open() brings the panel back on the home menu: the count stays until the room is chosen', async () => {
    const { ana, beto, roomId } = await pair();
    beto.context.actions.selectRoom(roomId);
    beto.showHomeMenu();
    beto.close();
    await say(ana, beto, roomId, 'cuatro');
    expect(unread(beto, roomId)).toBe(1);
    beto.open();
    expect(view(beto)).toBe('home');
    await settled();
    expect(unread(beto, roomId)).toBe(1);
    expect((await beto.getRoom(roomId)).unread).toBe(1);

    beto.context.actions.selectRoom(roomId);
    expect(unread(beto, roomId)).toBe(0);
    await settled();
    expect((await beto.getRoom(roomId)).unread).toBe(0);
  });

  it('the room contacts view is not the chat either; Back to the chat reads the room', async () => {
    const { ana, beto, roomId } = await pair();
    beto.context.actions.selectRoom(roomId);
    beto.context.actions.showRoomContacts();
    await say(ana, beto, roomId, 'cinco', 'seis');
    await settled();
    expect(unread(beto, roomId)).toBe(2);
    expect((await beto.getRoom(roomId)).unread).toBe(2);

    beto.context.actions.hideHomeMenu(); // the room contacts' Back
    expect(view(beto)).toBe('chat');
    expect(unread(beto, roomId)).toBe(0);
    await settled();
    expect((await beto.getRoom(roomId)).unread).toBe(0);
  });

  it('while the chat shows the room, what arrives is read at once (as before)', async () => {
    const { ana, beto, roomId } = await pair();
    beto.context.actions.selectRoom(roomId);
    await say(ana, beto, roomId, 'siete');
    expect(unread(beto, roomId)).toBe(0);
    await settled();
    expect((await beto.getRoom(roomId)).unread).toBe(0);
  });
});

describe('a room the user was added to while away', () => {
  it('is addedToRoom (me) once after the catch-up; a reload replays nothing', async () => {
    const { ana, roomId } = await pair();
    const carla = person('Carla');
    await carla.connect();
    carla.open();
    const events: string[] = [];
    const added: MembershipDetail[] = [];
    carla.on('open', () => events.push('open'));
    carla.on('addedToRoom', (d) => {
      events.push('addedToRoom');
      added.push(d);
    });

    carla.disconnect();
    await ana.addMember({ id: carla.userId, names: 'Carla' }, roomId);
    await ana.sendMessage({ roomId, type: 'TEXT', text: 'despues' });
    await carla.connect();
    await waitFor(() => carla.stores.$rooms.get().some((r) => r.id === roomId), 5000, 'the room at Carla’s');
    await settled();
    expect(events).toEqual(['addedToRoom']);
    expect(added[0]).toMatchObject({ type: 'me', roomId, member: { referenceId: carla.userId } });

    // Away and back again with nothing new: no second event.
    carla.disconnect();
    await carla.connect();
    await settled();
    expect(added).toHaveLength(1);

    // A new page of Carla's: her rooms load, nothing is replayed.
    const again = person('Carla', carla.userId);
    const replayed: MembershipDetail[] = [];
    again.on('addedToRoom', (d) => replayed.push(d));
    await again.connect();
    expect(again.stores.$rooms.get().some((r) => r.id === roomId)).toBe(true);
    await settled();
    expect(replayed).toEqual([]);
  });
});

describe('a contact the service refuses', () => {
  it('chosen in the home menu (the user, the bot) or the room contacts (the bot): an `error` event each, nothing opened', async () => {
    const ana = person('Ana');
    await ana.connect();
    ana.open();
    const errors: ErrorDetail[] = [];
    ana.on('error', (d) => errors.push(d));
    ana.setContacts([{ id: ana.userId }, { id: live.botId }]);
    const rooms = ana.stores.$rooms.get().length;

    for (const contact of ana.context.stores.$contacts.get())
      await expect(ana.context.actions.openRoomWithUser(contact)).rejects.toMatchObject({
        key: 'VALIDATION_ERROR',
      });
    expect(errors.map((e) => [e.operation, e.error.key, e.error.httpStatus])).toEqual([
      ['openRoomWithUser', 'VALIDATION_ERROR', 400],
      ['openRoomWithUser', 'VALIDATION_ERROR', 400],
    ]);
    expect(view(ana)).toBe('home');
    expect(ana.stores.$rooms.get()).toHaveLength(rooms);

    const roomId = (await ana.openRoomWithUser({ id: `beto-${randomUUID()}`, names: 'Beto' })).id;
    ana.context.actions.showRoomContacts();
    ana.setContactsForRoom([{ id: live.botId }]);
    await expect(ana.context.actions.addMember({ id: live.botId })).rejects.toMatchObject({
      key: 'VALIDATION_ERROR',
    });
    expect(errors.slice(2).map((e) => [e.operation, e.error.key])).toEqual([
      ['addMember', 'VALIDATION_ERROR'],
    ]);
    expect((await ana.getMembers(roomId)).map((m) => m.referenceId)).not.toContain(live.botId);
  });
});
