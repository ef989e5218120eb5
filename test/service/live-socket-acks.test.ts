/**
 * The socket answers what it is sent: every event that carries an
 * acknowledgement gets one (an event it does not have, a missing payload,
 * extra arguments), a message id reused for something else is refused as
 * room posts refuse it, and a flooding socket is closed once, with one
 * warning.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { Ack, ErrorBody, Message } from '../../types/index.ts';
import { FLOOD_BURSTS } from '../../server/live/rate-limit.ts';
import { emitAck, sendText, waitFor, type ClientSocket } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

/** Emits any event with any arguments, the acknowledgement last; resolves with it, or 'no ack' after 3 s. */
function emitRaw(socket: ClientSocket, event: string, ...args: unknown[]): Promise<Ack<unknown> | 'no ack'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('no ack'), 3000);
    (socket as unknown as { emit(ev: string, ...a: unknown[]): void }).emit(
      event,
      ...args,
      (res: Ack<unknown>) => {
        clearTimeout(timer);
        resolve(res);
      },
    );
  });
}

function expectError(ack: Ack<unknown> | 'no ack', key: string, code: string): ErrorBody {
  expect(ack, 'an acknowledgement').not.toBe('no ack');
  const res = ack as Ack<unknown>;
  expect(res.ok).toBe(false);
  const error = (res as { error: ErrorBody }).error;
  expect(error).toMatchObject({ status: 0, statusMessage: 'failed', error: { key, code } });
  return error;
}

describe('socket events with an acknowledgement', () => {
  const live = liveWidgets();

  async function user() {
    const s = await live.h.session(live.apiKey, `acks-${randomUUID()}`);
    return { roomId: s.botRoomId, socket: await live.h.connect(s.token) };
  }

  it('answers an unknown event 404 and a missing payload or extra arguments 400, changing nothing', async () => {
    const { socket, roomId } = await user();
    const before = await live.h.messageCount(roomId);
    const seen: Message[] = [];
    socket.on('message:new', (m) => seen.push(m));

    const unknown = expectError(await emitRaw(socket, 'rooms:list', {}), 'NOT_FOUND', 'E0404');
    expect(String(unknown.message)).toMatch(/message:send/);
    for (const event of ['room:read', 'messages:sync', 'messages:seen', 'message:send']) {
      const error = expectError(await emitRaw(socket, event), 'VALIDATION_ERROR', 'E0400');
      expect(Object.keys(error.validationError), event).toEqual(['/']);
    }
    const text = { id: randomUUID(), roomId, type: 'TEXT', text: 'con un argumento de más' };
    expectError(await emitRaw(socket, 'message:send', text, 'extra'), 'VALIDATION_ERROR', 'E0400');
    expectError(await emitRaw(socket, 'room:read', { roomId }, { roomId }), 'VALIDATION_ERROR', 'E0400');

    // Nothing was stored or sent, and the socket still works.
    expect(await live.h.messageCount(roomId)).toBe(before);
    const ok = await sendText(socket, roomId, 'sigo aquí');
    expect(ok.ok).toBe(true);
    await waitFor(
      () => seen.some((m) => (m as { text?: string }).text === 'sigo aquí'),
      3000,
      'the later message',
    );
    expect(seen.map((m) => (m as { text?: string }).text)).toEqual(['sigo aquí']);
  });

  it('carries out an event sent without an acknowledgement: the message is stored once and reaches the room', async () => {
    const { socket, roomId } = await user();
    const seen: Message[] = [];
    socket.on('message:new', (m) => seen.push(m));
    const before = await live.h.messageCount(roomId);
    const id = randomUUID();
    const bare = socket as unknown as { emit(ev: string, arg: unknown): void };
    bare.emit('message:send', { id, roomId, type: 'TEXT', text: 'sin acuse' });
    await waitFor(() => seen.some((m) => m.id === id), 3000, 'the message sent without an acknowledgement');
    expect(await live.h.messageCount(roomId)).toBe(before + 1);
    // The same id again, with an acknowledgement: the stored copy, not a second message.
    const again = await emitRaw(socket, 'message:send', { id, roomId, type: 'TEXT', text: 'sin acuse' });
    expect((again as Ack<Message>).ok, JSON.stringify(again)).toBe(true);
    expect(((again as { data: Message }).data as { text?: string }).text).toBe('sin acuse');
    expect(await live.h.messageCount(roomId)).toBe(before + 1);
    // A bad one without an acknowledgement changes nothing (nobody to tell), and the socket goes on:
    // a message missing its text, one sent with an argument too many.
    bare.emit('message:send', { id: randomUUID(), roomId, type: 'TEXT' });
    (bare as unknown as { emit(ev: string, a: unknown, b: unknown): void }).emit(
      'message:send',
      { id: randomUUID(), roomId, type: 'TEXT', text: 'con un argumento de más' },
      'extra',
    );
    const ok = await sendText(socket, roomId, 'después');
    expect(ok.ok).toBe(true);
    expect(await live.h.messageCount(roomId)).toBe(before + 2);
  });

  it('refuses a sync that is not {after: {...}} with 400, as every other event (null, a string, a number, {}, {after: null})', async () => {
    const { socket, roomId } = await user();
    for (const payload of [null, 'x', 5, true, [], {}, { after: null }, { after: [] }, { after: 'x' }]) {
      const error = expectError(await emitRaw(socket, 'messages:sync', payload), 'VALIDATION_ERROR', 'E0400');
      expect(Object.keys(error.validationError).length, JSON.stringify(payload)).toBe(1);
    }
    // The well-formed ones still answer: none held ({}), or from a sequence.
    for (const after of [{}, { [roomId]: 0 }]) {
      const ack = await emitRaw(socket, 'messages:sync', { after });
      expect((ack as Ack<unknown>).ok, JSON.stringify(after)).toBe(true);
    }
  });

  it('refuses a small frame nested thousands deep (400), with or without an acknowledgement, and keeps serving', async () => {
    const { socket, roomId } = await user();
    const other = await user();
    // Too deep for this client's JSON.stringify to write: the frame goes out as it is, past socket.io's encoder.
    const engine = (socket as unknown as { io: { engine: { send(text: string): void } } }).io.engine;
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    for (const depth of [5_000, 30_000]) {
      engine.send(`2["anything",${nested(depth)}]`);
      engine.send(`2["message:send",${nested(depth)}]`);
    }
    // With an acknowledgement (id 900, which this client never asked for: the answer is read raw).
    const answered = new Promise<string>((resolve) =>
      (
        socket as unknown as { io: { engine: { on(ev: 'message', fn: (d: string) => void): void } } }
      ).io.engine.on('message', (data) => {
        if (typeof data === 'string' && data.startsWith('3900')) resolve(data);
      }),
    );
    engine.send(`2900["message:send",${nested(20_000)}]`);
    const [res] = JSON.parse((await answered).slice(4)) as [Ack<unknown>];
    expect(expectError(res, 'VALIDATION_ERROR', 'E0400').validationError).toEqual({
      '/': 'nests objects or arrays more than 64 levels deep',
    });

    // The service is alive for this socket and for another user's.
    expect((await sendText(socket, roomId, 'después del marco')).ok).toBe(true);
    expect((await sendText(other.socket, other.roomId, 'y para otro')).ok).toBe(true);
    expect(socket.connected).toBe(true);
  });

  it('refuses a message id this room holds for other content or type with 400 naming /id; a retry gets the stored copy', async () => {
    const { socket, roomId } = await user();
    const id = randomUUID();
    const first = await sendText(socket, roomId, 'original', id);
    expect(first.ok).toBe(true);
    const stored = (first as { data: Message }).data;

    const changed = await sendText(socket, roomId, 'cambiado', id);
    expect(expectError(changed, 'VALIDATION_ERROR', 'E0400').validationError).toHaveProperty('/id');
    const otherType = await emitAck(socket, 'message:send', {
      id,
      roomId,
      type: 'LOCATION',
      lat: '1',
      lng: '2',
    } as never);
    expect(expectError(otherType, 'VALIDATION_ERROR', 'E0400').validationError).toHaveProperty('/id');

    // The exact retry (in either case of the id) is the stored message.
    for (const again of [id, id.toUpperCase()]) {
      const retry = await sendText(socket, roomId, 'original', again);
      expect(retry.ok).toBe(true);
      expect((retry as { data: Message }).data).toMatchObject({ id, seq: stored.seq, text: 'original' });
    }
    const { rows } = await live.h.app.charla.db.query<{ body: { text: string } }>(
      'SELECT body FROM messages WHERE id = $1',
      [id],
    );
    expect(rows.map((r) => r.body.text)).toEqual(['original']);
  });
});

describe('a retry of a message whose payload has several keys', () => {
  const live = liveWidgets();

  it('is the stored message, whatever order the stored copy keeps its keys in (an option chosen, sent again)', async () => {
    const s = await live.h.session(live.apiKey, `acks-${randomUUID()}`);
    const socket = await live.h.connect(s.token);
    const choice = {
      id: randomUUID(),
      roomId: s.botRoomId,
      type: 'POSTBACK',
      text: 'Planes',
      // The widget's own order; the service's JSON storage orders keys by length first.
      payload: { payload: 'plans', title: 'Planes', replyTo: randomUUID(), b: { zz: 1, a: 2 } },
    };
    const first = await emitAck(socket, 'message:send', choice as never);
    expect(first.ok).toBe(true);
    const again = await emitAck(socket, 'message:send', choice as never);
    expect(again.ok, JSON.stringify(again)).toBe(true);
    expect((again as { data: Message }).data.seq).toBe((first as { data: Message }).data.seq);
  });
});

describe('a socket that keeps flooding', () => {
  const BURST = 5;
  const live = liveWidgets({ live: { socketBurst: BURST, socketRate: 5 } });

  it('is closed once, with one warning, however much it had already sent', async () => {
    const warn = vi.spyOn(live.h.app.log, 'warn');
    try {
      const s = await live.h.session(live.apiKey, `flood-${randomUUID()}`);
      const socket = await live.h.connect(s.token);
      const closed = new Promise<string>((resolve) => socket.on('disconnect', resolve));
      // Far more than the FLOOD_BURSTS × burst refusals that close it, sent at once, without acknowledgements.
      const bare = socket as unknown as { emit(ev: string, arg: unknown): void };
      for (let i = 0; i < FLOOD_BURSTS * BURST * 20; i++) bare.emit('room:read', { roomId: s.botRoomId });
      expect(await closed).toBe('io server disconnect');
      // Let every packet it had in flight reach the server.
      await new Promise((r) => setTimeout(r, 500));
      const floods = warn.mock.calls.filter((c) => String(c[1] ?? c[0]).includes('kept flooding'));
      expect(floods).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });
});
