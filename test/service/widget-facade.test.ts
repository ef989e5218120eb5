/**
 * The widget facade against the real service in process (in-memory storage,
 * real HTTP, real sockets): every method of the interface's table.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { errorBody, type Message } from '../../types/index.ts';
import type { SendableMessage, WidgetInstance } from '../../src/widget/instance.ts';
import { CharlaError } from '../../src/transport/errors.ts';
import type { MembershipDetail } from '../../src/events/index.ts';
import { BASIC, waitFor } from './helpers/live.ts';
import { liveWidgets, rejection } from './helpers/widgets.ts';
import { userHash } from '../../src/api/index.ts';

const live = liveWidgets();

function widget(userId = `u-${randomUUID()}`, userNames?: string): WidgetInstance {
  return live.widget({ userId, ...(userNames ? { userNames } : {}) });
}

/** Two connected widgets and their direct room. */
async function pair() {
  const userB = `b-${randomUUID()}`;
  const a = widget(`a-${randomUUID()}`, 'Ana');
  const b = widget(userB, 'Beto');
  await Promise.all([a.connect(), b.connect()]);
  const room = await a.openRoomWithUser({ id: userB, names: 'Beto' });
  return { a, b, roomId: room.id, userA: a.userId, userB };
}

describe('widgetInstance against the service', () => {
  it('connects and sends a text that comes back delivered with a sequence, held once', async () => {
    const w = widget();
    const states: string[] = [];
    w.on('connection', (d) => states.push(d.state));
    await w.connect();
    expect(w.stores.$connection.get()).toBe('connected');
    expect(states).toEqual(['connecting', 'connected']);
    const roomId = w.stores.$currentRoomId.get();
    // destroy() is told as disconnect() is: idle, once, last.
    const ended = widget();
    const endStates: string[] = [];
    ended.on('connection', (d) => endStates.push(`${d.previous}>${d.state}`));
    await ended.connect();
    ended.destroy();
    expect(endStates).toEqual(['idle>connecting', 'connecting>connected', 'connected>idle']);
    expect(roomId).toBeTypeOf('string');
    const sent = await w.sendMessage({ type: 'TEXT', text: 'hola' });
    expect(['DELIVERED', 'DELIVERED_CHANNEL']).toContain(sent.status);
    expect(sent.seq).toBeTypeOf('number');
    expect(sent.roomId).toBe(roomId);
    expect(w.context.stores.$currentMessages.get().filter((m) => m.id === sent.id)).toHaveLength(1);
  });

  it('sends each of the eight message types and the other member receives them in order', async () => {
    const { a, b, roomId } = await pair();
    const got: Message[] = [];
    b.on('message', (d) => {
      if (d.roomId === roomId) got.push(d.message);
    });
    const id = randomUUID();
    const inputs: SendableMessage[] = [
      { type: 'TEXT', text: 'texto', id },
      { type: 'IMAGE', mediaUrl: 'https://example.com/a.png', caption: 'foto' },
      { type: 'AUDIO', mediaUrl: 'https://example.com/a.ogg' },
      { type: 'VIDEO', mediaUrl: 'https://example.com/a.mp4', caption: 'vídeo' },
      { type: 'DOCUMENT', mediaUrl: 'https://example.com/a.pdf', caption: 'doc' },
      { type: 'LOCATION', lat: '-12.0464', lng: '-77.0428' },
      { type: 'POSTBACK', text: 'Sí', payload: { choice: 'yes' } },
      { type: 'EVENT', slug: 'page-view', description: 'visited', eventPayload: { path: '/precios' } },
    ];
    const sent: Message[] = [];
    for (const m of inputs) sent.push(await a.sendMessage({ roomId, ...m }));
    expect(sent.map((m) => m.type)).toEqual(inputs.map((m) => m.type));
    expect(sent[0]?.id).toBe(id);
    await waitFor(() => got.length === 8, 5000, 'eight messages on B');
    expect(got.map((m) => m.id)).toEqual(sent.map((m) => m.id));
    expect(got[1]).toMatchObject({ type: 'IMAGE', mediaUrl: 'https://example.com/a.png', caption: 'foto' });
    expect(got[5]).toMatchObject({ type: 'LOCATION', lat: '-12.0464', lng: '-77.0428' });
    expect(got[7]).toMatchObject({ type: 'EVENT', slug: 'page-view', eventPayload: { path: '/precios' } });
    // B's store holds each once, ordered by sequence.
    b.setCurrentRoom(roomId);
    const held = b.context.stores.$currentMessages.get();
    expect(held.map((m) => m.id)).toEqual(sent.map((m) => m.id));
  });

  it('rejects invalid arguments at once and sends nothing', async () => {
    const w = widget();
    await w.connect();
    const roomId = w.stores.$currentRoomId.get() as string;
    const before = await w.getMessages({ roomId });
    const bad = [
      w.sendMessage({ type: 'TEXT' } as never),
      w.sendMessage({ type: 'TEXT', text: '' }),
      w.sendMessage({ type: 'IMAGE', mediaUrl: 'http://evil.example/a.png' }),
      w.sendMessage({ type: 'IMAGE', mediaUrl: 'javascript:alert(1)' }),
      w.sendMessage({ type: 'LOCATION', lat: '100', lng: '0' }),
      w.sendMessage({
        type: 'EVENT',
        slug: 'x',
        description: '',
        eventPayload: { n: 1 } as unknown as Record<string, string>,
      }),
      w.sendMessage({ type: 'STICKER' } as never),
      w.sendMessage({ type: 'TEXT', text: 'x', roomId: '' }),
      w.sendMessage({ type: 'TEXT', text: 'x', id: 'not-a-uuid' }),
    ];
    for (const p of bad) {
      const e = await rejection(p);
      expect(e.key).toBe('VALIDATION_ERROR');
      expect(e.code).toBe('E0400');
    }
    expect((await rejection(w.getRoom(''))).key).toBe('VALIDATION_ERROR');
    expect((await rejection(w.getMembers(undefined as unknown as string))).key).toBe('VALIDATION_ERROR');
    expect((await rejection(w.joinRoom(roomId, ''))).key).toBe('VALIDATION_ERROR');
    expect((await rejection(w.getMessages({ roomId, limit: 0 }))).key).toBe('VALIDATION_ERROR');
    // A void method does not throw: the bad argument changes nothing and the error event says why.
    const errors: string[] = [];
    w.on('error', (d) => errors.push(`${d.operation}:${d.error.key}`));
    const current = w.core.stores.w.$currentRoomId.get();
    expect(() => w.setCurrentRoom('')).not.toThrow();
    expect(errors).toEqual(['setCurrentRoom:VALIDATION_ERROR']);
    expect(w.core.stores.w.$currentRoomId.get()).toBe(current);
    const after = await w.getMessages({ roomId });
    expect(after.map((m) => m.id)).toEqual(before.map((m) => m.id));
    expect(w.core.outbox.size).toBe(0);
  });

  it('getRoom and getMembers give the room with its members', async () => {
    const { a, roomId, userA, userB } = await pair();
    const room = await a.getRoom(roomId);
    expect(room.id).toBe(roomId);
    expect(room.type).toBe('direct');
    expect(room.members).toEqual(expect.arrayContaining([userA, userB]));
    const members = await a.getMembers(roomId);
    expect(members.map((m) => m.referenceId).sort()).toEqual([userA, userB].sort());
    expect(a.stores.$rooms.get().some((r) => r.id === roomId)).toBe(true);
  });

  it('rejects with the service error body for a room the user is not in', async () => {
    const { roomId } = await pair();
    const outsider = widget();
    const e = await rejection(outsider.getRoom(roomId));
    expect(e.httpStatus).toBe(403);
    expect(e.key).toBe('NOT_A_MEMBER');
    expect(e.body.status).toBe(0);
    expect(e.body.statusMessage).toBe('failed');
  });

  it('setCurrentRoom switches only to a room of the user; another leaves the current room and says why', async () => {
    const { a, roomId } = await pair();
    const outsider = widget();
    await outsider.connect();
    const home = outsider.stores.$currentRoomId.get();
    expect(home).toBeTypeOf('string');
    const errors: string[] = [];
    outsider.on('error', (d) => errors.push(`${d.operation}:${d.error.key}`));
    outsider.setCurrentRoom(roomId);
    outsider.setCurrentRoom('not-a-room-of-anyone');
    await waitFor(() => errors.length === 2, 5000, 'two error events');
    expect(errors.sort()).toEqual(['setCurrentRoom:NOT_A_MEMBER', 'setCurrentRoom:NOT_A_MEMBER']);
    expect(outsider.stores.$currentRoomId.get()).toBe(home);
    expect(outsider.stores.$rooms.get().some((r) => r.id === roomId)).toBe(false);
    // A room of the user's this page does not hold yet (a new page, before any sync): the service confirms it.
    await a.addMember(outsider.userId, roomId);
    const fresh = widget(outsider.userId);
    fresh.setCurrentRoom(roomId);
    await waitFor(() => fresh.stores.$currentRoomId.get() === roomId, 5000, 'the room made current');
    expect(fresh.context.stores.$ui.get().view).toBe('chat');
  });

  it('a normal widget starts on its bot conversation; a group widget on its home menu', async () => {
    const normal = widget();
    await normal.connect();
    expect(normal.context.stores.$ui.get().view).toBe('chat');
    const botRoom = normal.stores.$currentRoomId.get();
    expect(botRoom).toBeTruthy();
    expect((await normal.getRoom(botRoom!)).type).toBe('bot');

    const { apiKey: groupKey } = await live.h.createWidget({ type: 'group' });
    const group = live.widget({ apiKey: groupKey, userId: `g-${randomUUID()}` });
    await group.connect();
    expect(group.context.stores.$ui.get().view).toBe('home');
  });

  it('openRoomWithUser finds the same direct room again and makes it current', async () => {
    const { a, roomId, userB } = await pair();
    const again = await a.openRoomWithUser({ id: userB, names: 'Beto' });
    expect(again.id).toBe(roomId);
    expect(a.stores.$currentRoomId.get()).toBe(roomId);
    expect(a.context.stores.$ui.get().view).toBe('chat');
  });

  it('tells the other user of a new direct room (addedToRoom, me), once', async () => {
    const userB = `b-${randomUUID()}`;
    const a = widget(`a-${randomUUID()}`, 'Ana');
    const b = widget(userB, 'Beto');
    await Promise.all([a.connect(), b.connect()]);
    const seenB: MembershipDetail[] = [];
    b.on('addedToRoom', (d) => seenB.push(d));
    const room = await a.openRoomWithUser({ id: userB, names: 'Beto' });
    await waitFor(() => seenB.length > 0, 5000, 'addedToRoom on B');
    expect(seenB[0]).toMatchObject({ type: 'me', roomId: room.id, member: { referenceId: userB } });
    expect(b.stores.$rooms.get().some((r) => r.id === room.id)).toBe(true);
    // Opened again (found, not made): no news. A message there: no news either.
    await a.openRoomWithUser({ id: userB, names: 'Beto' });
    const got: string[] = [];
    b.on('message', (d) => got.push(String(d.message.id)));
    const sent = await a.sendMessage({ roomId: room.id, type: 'TEXT', text: 'hola' });
    await waitFor(() => got.includes(String(sent.id)), 5000, 'the message on B');
    expect(seenB).toHaveLength(1);
  });

  it('leaveRoom and joinRoom answer ApiResponse and tell both sides (me / other)', async () => {
    const { a, b, roomId, userB } = await pair();
    const seenA: MembershipDetail[] = [];
    const seenB: MembershipDetail[] = [];
    a.on('removedFromRoom', (d) => seenA.push(d));
    b.on('removedFromRoom', (d) => seenB.push(d));
    a.on('addedToRoom', (d) => seenA.push(d));
    b.on('addedToRoom', (d) => seenB.push(d));
    const left = await a.leaveRoom(roomId, userB);
    expect(left).toMatchObject({ status: true, statusMessage: 'success' });
    expect(Array.isArray(left.message)).toBe(true);
    await waitFor(() => seenB.length === 1 && seenA.length === 1, 5000, 'leave events');
    expect(seenB[0]).toMatchObject({ type: 'me', roomId });
    expect(seenA[0]).toMatchObject({ type: 'other', roomId });
    expect(seenA[0]?.member.referenceId).toBe(userB);
    expect(b.stores.$rooms.get().some((r) => r.id === roomId)).toBe(false);

    const joined = await a.joinRoom(roomId, userB);
    expect(joined).toMatchObject({ status: true });
    await waitFor(() => seenB.length === 2, 5000, 'join event');
    expect(seenB[1]).toMatchObject({ type: 'me', roomId });
    // B is back in the room: it gets what A sends.
    const got: Message[] = [];
    b.on('message', (d) => got.push(d.message));
    const sent = await a.sendMessage({ roomId, type: 'TEXT', text: 'de vuelta' });
    await waitFor(() => got.some((m) => m.id === sent.id), 5000, 'message after rejoin');
  });

  it('addMember (contact or id) and addMembers add to the room', async () => {
    const { a, roomId } = await pair();
    const c1 = `c-${randomUUID()}`;
    const c2 = `c-${randomUUID()}`;
    const r1 = await a.addMember({ id: c1, names: 'Carla' }, roomId);
    expect(r1).toMatchObject({ status: true });
    const r2 = await a.addMember(c2, roomId);
    expect(r2).toMatchObject({ status: true });
    const r3 = await a.addMembers(roomId, [
      { referenceId: `d-${randomUUID()}`, names: 'Dani' },
      { referenceId: c1 },
    ]);
    expect(r3).toMatchObject({ status: true });
    expect((r3 as { message: string[] }).message).toHaveLength(2);
    const members = await a.getMembers(roomId);
    const refs = members.map((m) => m.referenceId);
    expect(refs).toEqual(expect.arrayContaining([c1, c2]));
    expect(members.every((m) => m.memberType === 'Client')).toBe(true);
    expect((await rejection(a.addMembers(roomId, []))).key).toBe('VALIDATION_ERROR');
    expect((await rejection(a.addMember({ names: 'no id' } as never, roomId))).key).toBe('VALIDATION_ERROR');
  });

  it('getMessages returns the latest 20 by default, newest last, and pages back from an id', async () => {
    const { a, roomId } = await pair();
    const sent: Message[] = [];
    const sends: Promise<Message>[] = [];
    for (let i = 0; i < 30; i++) sends.push(a.sendMessage({ roomId, type: 'TEXT', text: `n${i}` }));
    sent.push(...(await Promise.all(sends)));
    const latest = await a.getMessages({ roomId });
    expect(latest).toHaveLength(20);
    expect(latest.map((m) => m.id)).toEqual(sent.slice(10).map((m) => m.id));
    const page = await a.getMessages({ roomId, limit: 5, id: sent[10]?.id as string });
    expect(page.map((m) => m.id)).toEqual(sent.slice(5, 10).map((m) => m.id));
    // Message UUIDs are case-insensitive (stored in lower case): the id as a caller wrote it pages too.
    const upper = await a.getMessages({ roomId, limit: 5, id: (sent[10]?.id as string).toUpperCase() });
    expect(upper.map((m) => m.id)).toEqual(sent.slice(5, 10).map((m) => m.id));
  });

  it('setFlow rejects an unknown flow with the service error and a bad flowId at once', async () => {
    const w = widget();
    await w.connect();
    const e = await rejection(w.setFlow('no-such-flow', { plan: 'pro' }));
    expect(e.httpStatus).toBe(404);
    expect(e.key).toBe('NOT_FOUND');
    expect((await rejection(w.setFlow(''))).key).toBe('VALIDATION_ERROR');
    expect((await rejection(w.setFlow('x', { n: 1 } as unknown as Record<string, string>))).key).toBe(
      'VALIDATION_ERROR',
    );
  });

  it('a message the service refuses becomes FAILED with its reason, and retry sends it again', async () => {
    const { a, roomId } = await pair();
    const outsider = widget();
    await outsider.connect();
    const errors: string[] = [];
    outsider.on('error', (d) => errors.push(d.error.key));
    const e = await rejection(outsider.sendMessage({ roomId, type: 'TEXT', text: 'no soy miembro' }));
    expect(e.key).toBe('NOT_A_MEMBER');
    const failed = outsider.core.findMessage(
      String(outsider.core.stores.w.$messagesByRoom.get()[roomId]?.[0]?.id),
    );
    expect(failed?.status).toBe('FAILED');
    expect(failed?.error?.key).toBe('NOT_A_MEMBER');
    expect(errors).toContain('NOT_A_MEMBER');
    // The visitor reads the error's text for people, in the widget's language (Spanish by default).
    // Here it names the message too: the room shown may not be the one the message was for.
    expect(outsider.core.stores.w.$lastError.get()?.message).toBe(
      'No se pudo enviar «no soy miembro»: no formas parte de esa conversación.',
    );
    expect(outsider.core.outbox.size).toBe(0);
    // Let the outsider in, then retry: same id, delivered.
    await a.addMember(outsider.userId, roomId);
    const delivered = await outsider.core.retry(String(failed?.id));
    expect(delivered.id).toBe(failed?.id);
    expect(['DELIVERED', 'DELIVERED_CHANNEL']).toContain(delivered.status);
    // Messages go again: the refusal's banner has left the chat.
    expect(outsider.core.stores.w.$lastError.get()).toBeNull();
  });

  it('the banner of a refused message stays until a later message is stored, and only that banner goes', async () => {
    const { roomId } = await pair();
    const outsider = widget();
    await outsider.connect();
    await rejection(outsider.sendMessage({ roomId, type: 'TEXT', text: 'no soy miembro' }));
    expect(outsider.core.stores.w.$lastError.get()?.key).toBe('NOT_A_MEMBER');
    const own = outsider.core.currentSession!.botRoomId;
    await outsider.sendMessage({ roomId: own, type: 'TEXT', text: 'en mi sala sí' });
    expect(outsider.core.stores.w.$lastError.get()).toBeNull();
    // Another error shown since (not a send's) is not taken away by a message that goes.
    await rejection(outsider.sendMessage({ roomId, type: 'TEXT', text: 'otra vez fuera' }));
    const other = { message: 'otra cosa', key: 'NOT_FOUND' };
    outsider.core.stores.w.$lastError.set(other);
    await outsider.sendMessage({ roomId: own, type: 'TEXT', text: 'y otra' });
    expect(outsider.core.stores.w.$lastError.get()).toBe(other);
  });

  it('refuses a file’s caption past 1,024 characters (code points) before uploading anything', async () => {
    const { a, roomId } = await pair();
    const stored = async () =>
      Number((await live.h.app.charla.db.query<{ n: string }>('SELECT count(*) AS n FROM media')).rows[0]!.n);
    const before = await stored();
    const file = Object.assign(new Blob(['%PDF'], { type: 'application/pdf' }), { name: 'a.pdf' });
    for (const caption of ['c'.repeat(1025), '😀'.repeat(1025)]) {
      const error = await rejection(a.context.actions.sendFile(file, 'DOCUMENT', caption));
      expect(error.key).toBe('VALIDATION_ERROR');
      expect(error.body.validationError).toHaveProperty('caption');
    }
    // A kind named after what every object inherits is no kind of file.
    for (const type of ['constructor', 'toString', '__proto__']) {
      const error = await rejection(a.context.actions.sendFile(file, type as 'DOCUMENT', 'c'));
      expect(error.key, type).toBe('VALIDATION_ERROR');
      expect(error.body.validationError, type).toHaveProperty('type');
    }
    expect(await stored()).toBe(before);
    // Characters are code points, as the service counts them: 1,024 emoji (2,048 UTF-16 units) fit.
    expect(await a.context.actions.sendFile(file, 'DOCUMENT', '😀'.repeat(1024))).toMatchObject({
      roomId,
      type: 'DOCUMENT',
      caption: '😀'.repeat(1024),
    });
  });

  it('refreshes an expired signed media address in the store', async () => {
    const { a, roomId } = await pair();
    const file = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });
    const sent = await a.context.actions.sendFile(Object.assign(file, { name: 'p.png' }), 'IMAGE', 'pie');
    const url = (sent as { mediaUrl: string }).mediaUrl;
    expect(url).toMatch(/\/v1\/media\/.+sig=/);
    // The same media, signed to have expired a minute ago.
    const key = live.h.app.charla.signer.mediaKeyOf(url, [live.h.baseUrl]) as string;
    const expired = live.h.app.charla.signer.sign(key, -60, live.h.baseUrl);
    const m = await a.sendMessage({ roomId, type: 'IMAGE', mediaUrl: expired });
    a.core.refreshExpiredMedia(roomId);
    await waitFor(
      () => {
        const held = a.core.findMessage(String(m.id)) as { mediaUrl?: string } | undefined;
        return held?.mediaUrl !== undefined && held.mediaUrl !== expired;
      },
      5000,
      'fresh address',
    );
    const fresh = (a.core.findMessage(String(m.id)) as { mediaUrl: string }).mediaUrl;
    const res = await fetch(fresh);
    expect(res.status).toBe(200);
    expect((await fetch(expired)).status).toBe(403);
  });

  it('open, close(disable), enable, views, contacts, loaders and inputs drive the stores and events', async () => {
    const w = widget();
    await w.connect();
    const events: string[] = [];
    w.on('open', () => events.push('open')).on('close', (d) => events.push(`close:${d.disabled}`));
    w.open();
    w.open();
    w.close(true);
    expect(w.context.stores.$ui.get()).toMatchObject({ open: false, launcherDisabled: true });
    w.enable();
    expect(w.context.stores.$ui.get().launcherDisabled).toBe(false);
    expect(events).toEqual(['open', 'close:true']);
    w.hideHomeMenu();
    expect(w.context.stores.$ui.get().view).toBe('chat');
    w.showHomeMenu();
    expect(w.context.stores.$ui.get().view).toBe('home');
    w.setContacts([{ id: 1, names: 'Uno' }]);
    w.addContacts([{ id: 2 }, { id: 1, names: 'Uno bis' }]);
    w.addContact({ id: 'tres' });
    expect(w.context.stores.$contacts.get()).toEqual([
      { id: 1, names: 'Uno bis' },
      { id: 2 },
      { id: 'tres' },
    ]);
    w.disableInputs();
    expect(w.context.stores.$ui.get().inputsDisabled).toBe(true);
    w.enableInputs();
    expect(w.context.stores.$ui.get().inputsDisabled).toBe(false);
  });
  it('counts unread per room while closed, clears it on open, and seen messages become DELIVERED_USER for the sender', async () => {
    const { a, b, roomId } = await pair();
    const sent = await Promise.all(
      [1, 2, 3].map((n) => a.sendMessage({ roomId, type: 'TEXT', text: `u${n}` })),
    );
    await waitFor(() => (b.stores.$unreadByRoom.get()[roomId] ?? 0) === 3, 5000, 'three unread on B');
    expect(b.stores.$unreadTotal.get()).toBeGreaterThanOrEqual(3);
    b.setCurrentRoom(roomId);
    b.open();
    expect(b.stores.$unreadByRoom.get()[roomId]).toBe(0);
    b.context.actions.markSeen(
      roomId,
      sent.map((m) => String(m.id)),
    );
    await waitFor(
      () => sent.every((m) => a.core.findMessage(String(m.id))?.status === 'DELIVERED_USER'),
      5000,
      'DELIVERED_USER on the sender side',
    );
    // The service keeps the read state: a new page of B starts at 0 unread.
    await new Promise((r) => setTimeout(r, 400));
    const again = widget(b.userId);
    await again.connect();
    expect(again.stores.$unreadByRoom.get()[roomId]).toBe(0);
    // Its first sync loads the room's latest page as history: held, not announced as new.
    expect(again.core.findMessage(String(sent[2]?.id))).toBeDefined();
  });
  it('opens a new session when the handshake refuses the old token, and carries on', async () => {
    const w = widget();
    await w.connect();
    const session = w.core.currentSession as { token: string };
    session.token = 'not-a-valid-token';
    const states: string[] = [];
    w.on('connection', (d) => states.push(d.state));
    w.core.liveSocket?.io.engine?.close();
    await waitFor(() => states.at(-1) === 'connected', 10_000, 'connected again');
    expect(w.core.currentSession?.token).not.toBe('not-a-valid-token');
    const m = await w.sendMessage({ type: 'TEXT', text: 'sigo aquí' });
    expect(m.seq).toBeTypeOf('number');
  });

  it('a handshake the service refuses (and no new session to be had) is one error event, not two', async () => {
    let sessions = 0;
    // The first session is the service's; every later one is refused (a key revoked meanwhile).
    const refusingLater: typeof fetch = async (input, init) => {
      if (String(input).includes('/session') && ++sessions > 1)
        return Response.json(errorBody('UNAUTHORIZED'), { status: 401 });
      return fetch(input, init);
    };
    const w = live.widget({ userId: `hs-${randomUUID()}`, fetch: refusingLater });
    const errors: string[] = [];
    w.on('error', (d) => errors.push(`${d.operation}:${d.error.key}`));
    const session = (await w.core.ensureSession()) as { token: string };
    session.token = 'not-a-valid-token';
    const e = await rejection(w.connect());
    expect(e.key).toBe('UNAUTHORIZED');
    expect(sessions).toBe(2);
    expect(errors).toEqual(['connect:UNAUTHORIZED']);
    expect(w.stores.$connection.get()).toBe('error');
  });

  it('tells news from history: after a reload the first page is history however recent, what comes next is news', async () => {
    const { apiKey, botId } = await live.h.createWidget();
    const userId = `news-${randomUUID()}`;
    const botSays = async (text: string) => {
      const res = await fetch(`${live.h.baseUrl}/v1/bots/${botId}/messages`, {
        method: 'POST',
        headers: { authorization: BASIC, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'text', userId, text }),
      });
      expect(res.status).toBe(200);
    };
    const shown = (w: WidgetInstance, text: string) =>
      w.context.stores.$currentMessages.get().find((m) => 'text' in m && m.text === text);
    const first = live.widget({ apiKey, userId });
    await first.connect();
    await botSays('hola 1');
    await waitFor(() => !!shown(first, 'hola 1'), 5000, 'hola 1 live');
    expect(first.context.actions.isNews(shown(first, 'hola 1')!)).toBe(true);
    // The page reloads a moment later: the same user, a new instance, the room's latest page.
    const second = live.widget({ apiKey, userId });
    await second.connect();
    await waitFor(() => !!shown(second, 'hola 1'), 5000, 'hola 1 as history');
    expect(second.context.actions.isNews(shown(second, 'hola 1')!)).toBe(false);
    await botSays('hola 2');
    await waitFor(() => !!shown(second, 'hola 2'), 5000, 'hola 2 live');
    expect(second.context.actions.isNews(shown(second, 'hola 2')!)).toBe(true);
  });

  it('rejects connect() with the service error when the origin is not allowed', async () => {
    const { apiKey: listed } = await live.h.createWidget({
      credentials: { whiteList: ['https://allowed.example'] },
    });
    const w = live.widget({ apiKey: listed, userId: `o-${randomUUID()}` });
    const errors: string[] = [];
    w.on('error', (d) => errors.push(`${d.operation}:${d.error.key}`));
    const e = await rejection(w.connect());
    expect(e.httpStatus).toBe(403);
    expect(e.key).toBe('ORIGIN_NOT_ALLOWED');
    expect(errors).toEqual(['connect:ORIGIN_NOT_ALLOWED']);
    expect(w.stores.$connection.get()).toBe('error');
  });
  it('setFlow starts a flow of the bot with storedParams, and a chosen option answers it', async () => {
    await live.h.insertBot('demo-bot', 'Demo Bot');
    const { apiKey: demoKey } = await live.h.createWidget({ botId: 'demo-bot' });
    const w = live.widget({ apiKey: demoKey, userId: `f-${randomUUID()}` });
    await w.connect();
    const got: Message[] = [];
    w.on('message', (d) => got.push(d.message));
    const res = await w.setFlow('order_status', { name: 'Ana', orderId: 'A-17' });
    expect(res).toMatchObject({ status: true });
    const text = (m: Message) => (m as { text?: string }).text ?? '';
    // The flow's question: the bot's greeting menu (options too) may arrive after the listener is on.
    const asks = (m: Message) => m.options?.some((o) => o.title === 'Nada más') ?? false;
    await waitFor(() => got.some(asks), 10_000, 'the options message');
    expect(got.some((m) => text(m) === 'Hola Ana: tu pedido A-17 está en camino.')).toBe(true);
    const ask = got.find(asks) as Message;
    const nothingMore = ask.options?.find((o) => o.title === 'Nada más');
    expect(nothingMore).toBeDefined();
    const answer = await w.context.actions.chooseOption(ask, nothingMore as NonNullable<typeof nothingMore>);
    expect(answer).toMatchObject({ type: 'POSTBACK', text: 'Nada más' });
    await waitFor(
      () => got.some((m) => text(m) === '¡Perfecto! Aquí estaré si me necesitas.'),
      10_000,
      'the flow goes on',
    );
  });
  it('a message sent while offline shows as CREATED and is delivered once when the connection returns', async () => {
    const { a, b, roomId } = await pair();
    const got: Message[] = [];
    b.on('message', (d) => got.push(d.message));
    a.disconnect();
    // Not connected and not trying, while the browser has its network: idle, not offline.
    expect(a.stores.$connection.get()).toBe('idle');
    const pending = a.sendMessage({ roomId, type: 'TEXT', text: 'sin conexión' });
    const id = String(a.core.outbox.list()[0]?.message.id);
    expect(a.core.findMessage(id)?.status).toBe('CREATED');
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toHaveLength(0);
    await a.connect();
    const delivered = await pending;
    expect(String(delivered.id)).toBe(id);
    await waitFor(() => got.some((m) => String(m.id) === id), 5000, 'B gets it');
    await new Promise((r) => setTimeout(r, 200));
    expect(got.filter((m) => String(m.id) === id)).toHaveLength(1);
    expect((await a.getMessages({ roomId })).filter((m) => String(m.id) === id)).toHaveLength(1);
  });

  it('is offline when the browser loses the network, and connected again as soon as it is back', async () => {
    const w = live.widget({
      userId: `o-${randomUUID()}`,
      // socket.io alone would wait this long: only the `online` nudge brings it back in time.
      reconnectionDelay: 30_000,
      reconnectionDelayMax: 30_000,
    });
    await w.connect();
    const states: string[] = [];
    w.on('connection', (d) => states.push(d.state));
    // The page's `offline` event (create-widget.ts wires it to the window) while the link still stands.
    w.core.networkLost();
    expect(w.stores.$connection.get()).toBe('offline');
    // `online`: the link outlived the outage.
    w.core.reconnectNow();
    expect(w.stores.$connection.get()).toBe('connected');
    // This time the outage takes the link with it (and the browser says it is offline).
    const network = { onLine: false };
    const had = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', { configurable: true, value: network });
    try {
      w.core.networkLost();
      w.core.liveSocket?.io.engine?.close();
      expect(w.stores.$connection.get()).toBe('offline');
      network.onLine = true;
    } finally {
      if (had) Object.defineProperty(globalThis, 'navigator', had);
      else delete (globalThis as { navigator?: unknown }).navigator;
    }
    w.core.reconnectNow();
    await waitFor(() => w.stores.$connection.get() === 'connected', 5000, 'connected again at once');
    expect(states).toEqual(['offline', 'connected', 'offline', 'reconnecting', 'connected']);
    const sent = await w.sendMessage({ type: 'TEXT', text: 'de vuelta' });
    expect(sent.seq).toBeTypeOf('number');
  });

  it('created with no network: offline, not error, and connected as soon as the network is back', async () => {
    const network = { onLine: false };
    const had = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', { configurable: true, value: network });
    let cut = true;
    try {
      const w = live.widget({
        userId: `n-${randomUUID()}`,
        fetch: (input, init) =>
          cut ? Promise.reject(new TypeError('Failed to fetch')) : globalThis.fetch(input, init),
      });
      const states: string[] = [];
      w.on('connection', (d) => states.push(d.state));
      const e = await rejection(w.connect());
      expect(e.code).toBe('E0001');
      expect(w.stores.$connection.get()).toBe('offline');
      // A first connection that failed while the browser had its network is an error; the page's
      // `offline` event then says offline.
      network.onLine = true;
      await rejection(w.connect());
      expect(w.stores.$connection.get()).toBe('error');
      w.core.networkLost();
      expect(w.stores.$connection.get()).toBe('offline');
      cut = false;
      w.core.reconnectNow();
      await waitFor(() => w.stores.$connection.get() === 'connected', 5000, 'connected once back');
      expect(states).toEqual([
        'connecting',
        'offline',
        'connecting',
        'error',
        'offline',
        'connecting',
        'connected',
      ]);
    } finally {
      if (had) Object.defineProperty(globalThis, 'navigator', had);
      else delete (globalThis as { navigator?: unknown }).navigator;
    }
  });

  it('autoShow opens the panel once connected', async () => {
    const w = live.widget({ userId: `s-${randomUUID()}`, autoShow: true });
    const opened: unknown[] = [];
    w.on('open', (d) => opened.push(d));
    expect(w.stores.$open.get()).toBe(false);
    await w.connect();
    expect(w.stores.$open.get()).toBe(true);
    expect(opened).toHaveLength(1);
  });
});

describe('identity verification from the widget', () => {
  it('connects with the userHash the backend made, and is refused (401, no session, a console warning) with a wrong one or without it', async () => {
    const { apiKey, identitySecret } = await live.h.createWidget({
      credentials: { identityVerification: true },
    });
    const make = (userHash?: string) =>
      live.widget({ apiKey, userId: 'verified-ana', ...(userHash ? { userHash } : {}) });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const good = make(await userHash(identitySecret, 'verified-ana'));
      await good.connect();
      expect(good.stores.$connection.get()).toBe('connected');
      expect(warn).not.toHaveBeenCalled();
      const bad = make('0'.repeat(64));
      const e = await rejection(bad.connect());
      expect(e.httpStatus).toBe(401);
      expect(e.key).toBe('UNAUTHORIZED');
      expect(bad.stores.$connection.get()).toBe('error');
      expect(bad.context.stores.$lastError.get()?.code).toBe('E0401');
      // The page's developer reads why in the console, without an `error` listener.
      expect(warn.mock.calls).toEqual([['Charla cannot start: userHash does not match userId.']]);
      const none = make();
      expect((await rejection(none.connect())).key).toBe('UNAUTHORIZED');
      expect(warn).toHaveBeenCalledTimes(2);
    } finally {
      warn.mockRestore();
    }
  });
});

/** A promise's outcome, or 'pending' when it has not settled within `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | 'pending'> {
  return Promise.race([
    p.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms)),
  ]);
}

describe('widgetInstance as a customer calls it (conformance review)', () => {
  it('sendMessage without roomId before connect() opens the session and sends to the bot room', async () => {
    const w = widget();
    const sent = await w.sendMessage({ type: 'TEXT', text: 'lo primero' });
    expect(sent.roomId).toBe(w.core.currentSession?.botRoomId);
    expect(['DELIVERED', 'DELIVERED_CHANNEL']).toContain(sent.status);
    // The rest of the message is still checked at the call, before any session.
    const fresh = widget();
    const e = await rejection(fresh.sendMessage({ type: 'TEXT', text: '' }));
    expect(e.body.validationError).toHaveProperty('text');
    expect(fresh.core.currentSession).toBeNull();
  });

  it('a send that can never go (the session is refused) rejects with that error and is FAILED, not pending for ever', async () => {
    const w = live.widget({ apiKey: 'ck_wrong-key', userId: 'nobody' });
    const errors: string[] = [];
    w.on('error', (d) => errors.push(`${d.operation}:${d.error.key}`));
    const roomId = randomUUID();
    const outcome = await within(w.sendMessage({ roomId, type: 'TEXT', text: 'nunca' }), 5000);
    expect(outcome).not.toBe('pending');
    expect((outcome as { error: CharlaError }).error).toBeInstanceOf(CharlaError);
    expect((outcome as { error: CharlaError }).error.key).toBe('UNAUTHORIZED');
    expect(w.core.outbox.size).toBe(0);
    const held = w.core.stores.w.$messagesByRoom.get()[roomId] ?? [];
    expect(held.map((m) => m.status)).toEqual(['FAILED']);
    expect(errors).toContain('sendMessage:UNAUTHORIZED');
  });

  it('a message queued while the service is unreachable goes once it can be reached', async () => {
    let down = true;
    const flaky: typeof fetch = (input, init) =>
      down ? Promise.reject(new TypeError('Failed to fetch')) : fetch(input, init);
    const first = widget();
    await first.connect();
    const roomId = first.stores.$currentRoomId.get() as string;
    const userId = first.userId;
    first.destroy();
    const w = live.widget({ userId, fetch: flaky });
    const pending = w.sendMessage({ roomId, type: 'TEXT', text: 'cuando vuelva' });
    await waitFor(() => w.stores.$connection.get() === 'error', 5000, 'the first attempt fails');
    down = false;
    const outcome = await within(pending, 10_000);
    expect(outcome).not.toBe('pending');
    const sent = (outcome as { value: Message }).value;
    expect(sent.status).toMatch(/^DELIVERED/);
    expect(w.stores.$connection.get()).toBe('connected');
  });

  it('addMember with neither a Contact nor an id string says what it takes', async () => {
    const w = widget();
    const e = await rejection(w.addMember(77 as unknown as string, 'r1'));
    expect(e.key).toBe('VALIDATION_ERROR');
    expect(e.body.validationError['member']).toMatch(/Contact.*id string/);
  });

  it('an id reused for another message is refused (VALIDATION_ERROR at id), as the service refuses it; the very same message again is the stored one', async () => {
    const { a, roomId } = await pair();
    const inputs: SendableMessage[] = [
      { type: 'TEXT', text: 'original' },
      { type: 'IMAGE', mediaUrl: 'https://example.com/a.png', caption: 'foto' },
      { type: 'LOCATION', lat: -12.0464, lng: -77.0428 },
      { type: 'POSTBACK', text: 'Sí', payload: { choice: 'yes', nested: { b: 1, a: [1, 2] } } },
      { type: 'EVENT', slug: 'page-view', description: 'visited', eventPayload: { path: '/precios' } },
    ];
    for (const input of inputs) {
      const id = randomUUID();
      const stored = await a.sendMessage({ roomId, id, ...input });
      // The exact retry, written again (keys in another order), resolves with the stored copy.
      const again = await a.sendMessage(
        Object.fromEntries(Object.entries({ id, roomId, ...input }).reverse()) as SendableMessage,
      );
      expect(again, input.type).toMatchObject({ id, seq: stored.seq, status: stored.status });
      for (const other of [
        { ...input, type: 'TEXT', text: 'DIFFERENT' },
        { type: 'LOCATION', lat: 1, lng: 2 },
        { ...input, roomId: a.stores.$rooms.get().find((r) => r.id !== roomId)?.id },
      ]) {
        if (other.type === input.type && JSON.stringify(other) === JSON.stringify(input)) continue;
        const error = await rejection(a.sendMessage({ roomId, ...other, id } as SendableMessage));
        expect(error.key, `${input.type} -> ${JSON.stringify(other)}`).toBe('VALIDATION_ERROR');
        expect(error.body.validationError).toHaveProperty('id');
      }
      // Nothing else was stored or shown under that id.
      const held = a.core.findMessage(id) as Message & { text?: string };
      expect(held).toMatchObject({ id, type: input.type, seq: stored.seq });
    }
    // The same refusal after a reload, from the history it loads.
    const first = await a.sendMessage({ roomId, type: 'TEXT', text: 'antes de recargar' });
    const reloaded = live.widget({ userId: a.userId });
    await reloaded.connect();
    reloaded.setCurrentRoom(roomId);
    await reloaded.getMessages({ roomId });
    expect(reloaded.core.findMessage(String(first.id))).toBeDefined();
    const refused = await rejection(
      reloaded.sendMessage({ roomId, id: String(first.id), type: 'TEXT', text: 'otro texto' }),
    );
    expect(refused.key).toBe('VALIDATION_ERROR');
    expect(
      await reloaded.sendMessage({ roomId, id: String(first.id), type: 'TEXT', text: 'antes de recargar' }),
    ).toMatchObject({ id: first.id, seq: first.seq });
  });

  it('LOCATION takes any finite numeric coordinate in range (no exponent or float noise refused)', async () => {
    const w = widget();
    await w.connect();
    const tiny = await w.sendMessage({ type: 'LOCATION', lat: 1e-7, lng: 0.1 + 0.2 });
    expect(tiny).toMatchObject({ lat: '0.0000001', lng: '0.3' });
    const plain = await w.sendMessage({ type: 'LOCATION', lat: -12.0464, lng: -77.0428 });
    expect(plain).toMatchObject({ lat: '-12.0464', lng: '-77.0428' });
    for (const [lat, lng] of [
      [91, 0],
      [0, -180.5],
      [Number.NaN, 0],
      [0, Number.POSITIVE_INFINITY],
    ] as const) {
      expect((await rejection(w.sendMessage({ type: 'LOCATION', lat, lng }))).key).toBe('VALIDATION_ERROR');
    }
  });
});
