/**
 * The transport loses nothing: two widgets exchange 1,000 messages each way
 * through the real service while their connections are dropped 100 times and
 * the service restarts twice (storage in a PGlite directory, so it survives).
 * Asserted on what both widgets and the service hold: nothing lost, nothing
 * doubled, each sender's order kept. And a send made just before a reload is
 * delivered once by the next page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ROUTES, type Message } from '../../types/index.ts';
import type { WidgetInstance } from '../../src/widget/instance.ts';
import { createOutboxStorage } from '../../src/transport/outbox-storage.ts';
import { startOnDataDir } from './helpers/http.ts';
import { serviceWidget } from './helpers/widgets.ts';

const BASIC = `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`;
const PER_SIDE = 1000;
const DISCONNECTS = 100;
const RESTARTS = 2;

let dataDir: string;
let app: FastifyInstance;
let port = 0;
let baseUrl: string;
let apiKey: string;
const made: WidgetInstance[] = [];

async function start(): Promise<void> {
  // 1,000 messages a side as fast as the outbox goes is far past a person's rate: the socket rate limit
  // (live-rate-limit.test.ts) is raised out of the way so this test measures delivery, not waiting.
  ({ app, port, baseUrl } = await startOnDataDir(dataDir, port, {
    socketRate: 1_000_000,
    socketBurst: 1_000_000,
  }));
}

/** Runs a restart phase, saying so when it takes unusually long (a hang then names its phase). */
async function phase<T>(what: string, work: Promise<T>): Promise<T> {
  const started = Date.now();
  const slow = setInterval(
    () => console.log(`chaos: ${what} still running after ${Math.round((Date.now() - started) / 1000)} s`),
    30_000,
  );
  try {
    return await work;
  } finally {
    clearInterval(slow);
  }
}

async function restart(): Promise<void> {
  await phase('app.close()', app.close());
  await phase('start()', start());
}

function widget(userId: string, namespace = `ns-${randomUUID()}`): WidgetInstance {
  return serviceWidget(made, {
    apiKey,
    baseUrl,
    userId,
    namespace,
    reconnectionDelay: 50,
    reconnectionDelayMax: 400,
    ackTimeoutMs: 5_000,
  });
}

async function waitFor(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Drops the live connection under the widget as a network failure would (socket.io reconnects by itself). */
function drop(w: WidgetInstance): void {
  w.core.liveSocket?.io.engine?.close();
}

async function storedRows(roomId: string) {
  const r = await app.charla.db.query<{
    id: string;
    seq: string;
    sender_id: string;
    body: { text?: string };
  }>('SELECT id, seq, sender_id, body FROM messages WHERE room_id = $1 ORDER BY seq', [roomId]);
  return r.rows;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'charla-chaos-'));
  await start();
  const res = await fetch(baseUrl + ROUTES.createWidget, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({ bot: {}, widget: { properties: { type: 'normal' } } }),
  });
  const body = (await res.json()) as { data: { ApiKey: { key: string } } };
  apiKey = body.data.ApiKey.key;
}, 120_000);

afterAll(async () => {
  for (const w of made) w.destroy();
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('widget transport under chaos', () => {
  it(`delivers ${PER_SIDE} messages each way through ${DISCONNECTS} drops and ${RESTARTS} restarts: 0 lost, 0 doubled, order kept`, async () => {
    const a = widget(`a-${randomUUID()}`);
    const b = widget(`b-${randomUUID()}`);
    await Promise.all([a.connect(), b.connect()]);
    const room = await a.openRoomWithUser({ id: b.userId, names: 'B' });
    const roomId = room.id;
    await waitFor(() => b.stores.$rooms.get().some((r) => r.id === roomId), 10_000, 'B sees the room');

    const arrivals = { a: new Map<string, number>(), b: new Map<string, number>() };
    a.on(
      'message',
      (d) =>
        d.roomId === roomId &&
        arrivals.a.set(String(d.message.id), (arrivals.a.get(String(d.message.id)) ?? 0) + 1),
    );
    b.on(
      'message',
      (d) =>
        d.roomId === roomId &&
        arrivals.b.set(String(d.message.id), (arrivals.b.get(String(d.message.id)) ?? 0) + 1),
    );

    const sends: Promise<Message>[] = [];
    const ROUNDS = 20;
    const perRound = PER_SIDE / ROUNDS;
    const dropsPerRound = DISCONNECTS / ROUNDS;
    let drops = 0;
    let restarts = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < perRound; i++) {
        const n = round * perRound + i;
        sends.push(a.sendMessage({ roomId, type: 'TEXT', text: `a-${n}` }));
        sends.push(b.sendMessage({ roomId, type: 'TEXT', text: `b-${n}` }));
        if (i % Math.floor(perRound / dropsPerRound) === 0 && drops < DISCONNECTS) {
          drop(drops % 2 === 0 ? a : b);
          drops++;
        }
        if (i % 10 === 0) await new Promise((r) => setTimeout(r, 5));
      }
      if ((round === 6 || round === 13) && restarts < RESTARTS) {
        await restart();
        restarts++;
      }
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(drops).toBe(DISCONNECTS);
    expect(restarts).toBe(RESTARTS);

    let settled = 0;
    for (const p of sends)
      void p.then(
        () => settled++,
        () => settled++,
      );
    // Progress for a run that takes long on a busy machine (and the state if it never ends).
    const progress = setInterval(() => {
      console.log(
        `chaos: ${settled}/${sends.length} settled; outbox A ${a.core.outbox.size} B ${b.core.outbox.size}; ` +
          `A ${a.stores.$connection.get()} B ${b.stores.$connection.get()}`,
      );
    }, 15_000);
    const delivered = await Promise.all(sends).finally(() => clearInterval(progress));
    expect(delivered).toHaveLength(2 * PER_SIDE);
    expect(delivered.every((m) => m.status !== 'CREATED' && m.status !== 'FAILED')).toBe(true);

    // The service holds each message once, and each sender's messages in send order.
    const rows = await storedRows(roomId);
    expect(rows).toHaveLength(2 * PER_SIDE);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2 * PER_SIDE);
    const textsBy = (prefix: string) =>
      rows.map((r) => r.body.text ?? '').filter((t) => t.startsWith(prefix));
    const expected = (prefix: string) => Array.from({ length: PER_SIDE }, (_, n) => `${prefix}${n}`);
    expect(textsBy('a-')).toEqual(expected('a-'));
    expect(textsBy('b-')).toEqual(expected('b-'));
    const seqs = rows.map((r) => Number(r.seq));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));

    // Both widgets hold exactly what the service holds, in the same order.
    const serviceOrder = rows.map((r) => r.id);
    const held = (w: WidgetInstance) =>
      (w.core.stores.w.$messagesByRoom.get()[roomId] ?? []).map((m) => String(m.id));
    await waitFor(
      () => held(a).length === 2 * PER_SIDE && held(b).length === 2 * PER_SIDE,
      30_000,
      'both widgets hold every message',
    ).catch((e: Error) => {
      throw new Error(`${e.message}: A holds ${held(a).length}, B holds ${held(b).length}`);
    });
    expect(held(a)).toEqual(serviceOrder);
    expect(held(b)).toEqual(serviceOrder);
    expect(a.core.outbox.size).toBe(0);
    expect(b.core.outbox.size).toBe(0);

    // Each side was told of each of the other side's messages exactly once.
    const fromA = new Set(rows.filter((r) => r.sender_id === a.userId).map((r) => r.id));
    const fromB = new Set(rows.filter((r) => r.sender_id === b.userId).map((r) => r.id));
    expect(fromA.size).toBe(PER_SIDE);
    expect(fromB.size).toBe(PER_SIDE);
    for (const id of fromA) expect(arrivals.b.get(id)).toBe(1);
    for (const id of fromB) expect(arrivals.a.get(id)).toBe(1);
    expect([...arrivals.a.values(), ...arrivals.b.values()].every((n) => n === 1)).toBe(true);
  }, 600_000); // generous: on a loaded 2-core machine this run was seen to take several times its usual ~40 s

  it('delivers once a message sent just before the page reloads', async () => {
    const userId = `r-${randomUUID()}`;
    const namespace = `reload-${randomUUID()}`;
    const storage = createOutboxStorage(namespace, 'memory');
    const first = widget(userId, namespace);
    await first.connect();
    const roomId = first.stores.$currentRoomId.get() as string;
    // The send goes out on the socket and the page goes away before the acknowledgement.
    const pending = first.sendMessage({ type: 'TEXT', text: 'justo antes de recargar' });
    pending.catch(() => undefined);
    const id = String(first.core.outbox.list()[0]?.message.id);
    await first.core.outbox.settled();
    first.destroy();
    expect((await storage.load()).map((e) => String(e.message.id))).toEqual([id]);

    // The next page: same user, same storage namespace.
    const second = widget(userId, namespace);
    await second.connect();
    await waitFor(() => second.core.outbox.size === 0, 10_000, 'outbox flushed');
    await waitFor(
      () => second.core.findMessage(id)?.seq !== undefined,
      10_000,
      'message held with a sequence',
    );
    const rows = (await storedRows(roomId)).filter((r) => r.id === id);
    expect(rows).toHaveLength(1);
    expect(second.core.findMessage(id)?.status).not.toBe('FAILED');
    expect(await storage.load()).toEqual([]);
    // A third page has nothing left to send.
    second.destroy();
    const third = widget(userId, namespace);
    await third.connect();
    expect(third.core.outbox.size).toBe(0);
    expect((await storedRows(roomId)).filter((r) => r.id === id)).toHaveLength(1);
  });
  it('fills a gap longer than one sync page (the service caps a room at 1,000 per sync)', async () => {
    const a = widget(`ga-${randomUUID()}`);
    const b = widget(`gb-${randomUUID()}`);
    await Promise.all([a.connect(), b.connect()]);
    const { id: roomId } = await a.openRoomWithUser({ id: b.userId, names: 'B' });
    await a.sendMessage({ roomId, type: 'TEXT', text: 'antes' });
    a.disconnect();
    const missed = await Promise.all(
      Array.from({ length: 1100 }, (_, i) => b.sendMessage({ roomId, type: 'TEXT', text: `g${i}` })),
    );
    await a.connect();
    const held = new Set((a.core.stores.w.$messagesByRoom.get()[roomId] ?? []).map((m) => String(m.id)));
    expect(missed.filter((m) => !held.has(String(m.id)))).toEqual([]);
    const list = a.core.stores.w.$messagesByRoom.get()[roomId] ?? [];
    expect(list).toHaveLength(1101);
    expect(list.map((m) => m.seq)).toEqual([...list.map((m) => m.seq)].sort((x, y) => (x ?? 0) - (y ?? 0)));
  }, 120_000);
});
