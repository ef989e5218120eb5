import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath, type Message, type Room } from '../../types/index.ts';
import {
  collect,
  emitAck,
  sendText,
  startLive,
  waitFor,
  type ClientSocket,
  type LiveHarness,
} from './helpers/live.ts';

let h: LiveHarness;
let apiKey: string;

beforeAll(async () => {
  h = await startLive();
  ({ apiKey } = await h.createWidget());
});
afterAll(async () => {
  await h?.close();
});

async function pair(): Promise<{
  a: ClientSocket;
  b: ClientSocket;
  roomId: string;
  tokenA: string;
  tokenB: string;
  userB: string;
}> {
  const userA = `a-${randomUUID()}`;
  const userB = `b-${randomUUID()}`;
  const sa = await h.session(apiKey, userA, { userNames: 'Ana' });
  const sb = await h.session(apiKey, userB, { userNames: 'Beto' });
  const a = await h.connect(sa.token);
  const b = await h.connect(sb.token);
  // The room is made while both are connected: B's socket must be put in it live.
  const res = await h.call('POST', ROUTES.widgetDirectRoom, {
    token: sa.token,
    body: { id: userB, names: 'Beto' },
  });
  expect(res.status).toBe(200);
  const room = (await res.json()) as Room;
  return { a, b, roomId: room.id, tokenA: sa.token, tokenB: sb.token, userB };
}

describe('live messages', () => {
  it('shows two members each other’s messages in the same order, numbered by the room', async () => {
    const { a, b, roomId } = await pair();
    const gotA = collect(a);
    const gotB = collect(b);
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      sends.push(sendText(i % 2 ? b : a, roomId, `m${i}`));
    }
    const acks = (await Promise.all(sends)) as { ok: boolean; data: Message }[];
    expect(acks.every((x) => x.ok)).toBe(true);
    await waitFor(() => gotA.length === 20 && gotB.length === 20, 5000, 'all 20 on both sides');
    const ids = (l: Message[]) => l.map((m) => m.id);
    expect(ids(gotA)).toEqual(ids(gotB));
    const seqs = gotA.map((m) => m.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => (x ?? 0) - (y ?? 0)));
    expect(new Set(seqs).size).toBe(20);
    // The acknowledgement is the stored message: DELIVERED_CHANNEL since the other member is connected.
    expect(acks[0]?.data.status).toBe('DELIVERED_CHANNEL');
    expect(acks[0]?.data.seq).toBeTypeOf('number');
  });

  it('stores a retried send once and acknowledges the stored copy', async () => {
    const { a, b, roomId, tokenA } = await pair();
    const gotB = collect(b);
    const id = randomUUID();
    const first = (await sendText(a, roomId, 'once', id)) as { ok: true; data: Message };
    const second = (await sendText(a, roomId, 'once', id)) as { ok: true; data: Message };
    expect(first.ok && second.ok).toBe(true);
    expect(second.data).toEqual(first.data);
    await new Promise((r) => setTimeout(r, 100));
    expect(gotB.filter((m) => m.id === id)).toHaveLength(1);
    const res = await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId }), { token: tokenA });
    const { messages } = (await res.json()) as { messages: Message[] };
    expect(messages.filter((m) => m.id === id)).toHaveLength(1);
  });

  it('fills the gap after a forced disconnect with exactly the missed messages', async () => {
    const { a, b, roomId, tokenB } = await pair();
    const before = (await sendText(a, roomId, 'seen live')) as { ok: true; data: Message };
    const lastSeq = before.data.seq as number;
    b.disconnect();
    const missed: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = (await sendText(a, roomId, `missed ${i}`)) as { ok: true; data: Message };
      missed.push(String(r.data.id));
    }
    const b2 = await h.connect(tokenB);
    const res = (await emitAck(b2, 'messages:sync', { after: { [roomId]: lastSeq } })) as {
      ok: true;
      data: { messages: Message[]; rooms: Room[] };
    };
    expect(res.ok).toBe(true);
    const inRoom = res.data.messages.filter((m) => m.roomId === roomId);
    expect(inRoom.map((m) => m.id)).toEqual(missed);
    expect(res.data.rooms.map((r) => r.id)).toContain(roomId);
    // And live again after the reconnect.
    const got = collect(b2);
    await sendText(a, roomId, 'after');
    await waitFor(
      () => got.some((m) => m.type === 'TEXT' && m.text === 'after'),
      3000,
      'live after reconnect',
    );
  });

  it('rejects a bad event in its acknowledgement, stores nothing, and keeps others connected', async () => {
    const { a, b, roomId, tokenA } = await pair();
    const bad = await emitAck(a, 'message:send', {
      id: randomUUID(),
      roomId,
      type: 'TEXT',
      text: 'x'.repeat(5000),
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(bad.error.validationError)).toContain('/text');
    }
    const wrongShape = await emitAck(a, 'message:send', { nonsense: true } as never);
    expect(wrongShape.ok).toBe(false);
    const notUuid = await emitAck(a, 'message:send', { id: 'nope', roomId, type: 'TEXT', text: 'hi' });
    expect(notUuid.ok).toBe(false);
    const badType = await emitAck(a, 'message:send', {
      id: randomUUID(),
      roomId,
      type: 'HTML',
      text: '<b>',
    } as never);
    expect(badType.ok).toBe(false);
    const res = await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId }), { token: tokenA });
    expect(((await res.json()) as { messages: Message[] }).messages).toHaveLength(0);
    expect(a.connected && b.connected).toBe(true);
    const good = await sendText(a, roomId, 'still fine');
    expect(good.ok).toBe(true);
  });

  it('refuses a non-member on the socket and on REST', async () => {
    const { roomId } = await pair();
    const outsider = await h.session(apiKey, `c-${randomUUID()}`);
    const c = await h.connect(outsider.token);
    const got = collect(c);
    const r = await sendText(c, roomId, 'let me in');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.error.key).toBe('NOT_A_MEMBER');
    for (const [method, route] of [
      ['GET', ROUTES.widgetRoom],
      ['GET', ROUTES.widgetRoomMembers],
      ['GET', ROUTES.widgetRoomMessages],
    ] as const) {
      const res = await h.call(method, routePath(route, { roomId }), { token: outsider.token });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { key: string } }).error.key).toBe('NOT_A_MEMBER');
    }
    const seen = await emitAck(c, 'messages:seen', { roomId, ids: [] });
    expect(seen.ok).toBe(false);
    expect(got).toHaveLength(0);
  });

  it('marks messages DELIVERED_USER when the other widget showed them, and resets unread on read', async () => {
    const { a, b, roomId, tokenB } = await pair();
    const statuses: { id: string; status: string }[] = [];
    a.on('message:status', (s) => statuses.push(s));
    const sent = (await sendText(a, roomId, 'look')) as { ok: true; data: Message };
    const id = String(sent.data.id);
    const roomBefore = (await (
      await h.call('GET', routePath(ROUTES.widgetRoom, { roomId }), { token: tokenB })
    ).json()) as Room;
    expect(roomBefore.unread).toBe(1);
    const seen = await emitAck(b, 'messages:seen', { roomId, ids: [id] });
    expect(seen).toEqual({ ok: true, data: { updated: 1 } });
    await waitFor(
      () => statuses.some((s) => s.id === id && s.status === 'DELIVERED_USER'),
      3000,
      'status event',
    );
    const read = await emitAck(b, 'room:read', { roomId });
    expect(read).toEqual({ ok: true, data: { unread: 0 } });
    const roomAfter = (await (
      await h.call('GET', routePath(ROUTES.widgetRoom, { roomId }), { token: tokenB })
    ).json()) as Room;
    expect(roomAfter.unread).toBe(0);
    expect(roomAfter.lastMessage?.id).toBe(id);
  });
});
