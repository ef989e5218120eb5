/**
 * server/scale/redis-adapter.ts on its own: two socket.io servers in this
 * process, one Redis, real socket.io clients. What the service processes rely
 * on: a broadcast on one server reaches the other's sockets, server-side
 * operations see every server's sockets, and a Redis restart in the middle of
 * a stream of broadcasts loses and doubles nothing.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Server } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { attachRedisAdapter, reconnectDelay, type RedisFanout } from '../../server/scale/redis-adapter.ts';
import {
  requireServices,
  restartRedis,
  sleep,
  startRedis,
  stopRedis,
  waitFor,
  withRedis,
} from './harness.ts';

interface Peer {
  io: Server;
  http: HttpServer;
  fanout: RedisFanout;
  url: string;
  logs: string[];
}

let services: ReturnType<typeof requireServices>;
const peers: Peer[] = [];
const clients: ClientSocket[] = [];
let prefix = '';

async function peer(options: { commandTimeoutMs?: number } = {}): Promise<Peer> {
  const http = createServer();
  const io = new Server(http, { transports: ['websocket'] });
  const logs: string[] = [];
  const log = {
    info: (_o: object, m?: string) => logs.push(`info ${m ?? ''}`),
    warn: (_o: object, m?: string) => logs.push(`warn ${m ?? ''}`),
    error: (_o: object, m?: string) => logs.push(`error ${m ?? ''}`),
  };
  const fanout = attachRedisAdapter(io, services.redisUrl, log, { keyPrefix: prefix, ...options });
  await fanout.ready;
  io.on('connection', (socket) => {
    const room = socket.handshake.auth['room'];
    if (typeof room === 'string') void socket.join(room);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const addr = http.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const p = { io, http, fanout, url, logs };
  peers.push(p);
  return p;
}

async function client(url: string, room: string): Promise<ClientSocket> {
  const socket = connect(url, { transports: ['websocket'], auth: { room }, reconnection: true });
  clients.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return socket;
}

beforeAll(() => {
  services = requireServices();
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  for (const p of peers.splice(0)) {
    await new Promise<void>((r) => p.io.close(() => r()));
    await p.fanout.close();
  }
});

afterAll(async () => {
  if (!services) return;
  // Leave no stream behind in the shared Redis.
  await withRedis(services.redisUrl, async (c) => {
    const keys = await c.keys('cluster-test-*');
    if (keys.length > 0) await c.del(keys);
  });
});

describe('attachRedisAdapter', () => {
  it('delivers a broadcast made on one server to a socket of the other', async () => {
    prefix = `cluster-test-${Date.now()}-a`;
    const a = await peer();
    const b = await peer();
    const onB = await client(b.url, 'room-1');
    const elsewhere = await client(b.url, 'room-2');
    const got: string[] = [];
    const stray: string[] = [];
    onB.on('hello', (v: string) => got.push(v));
    elsewhere.on('hello', (v: string) => stray.push(v));
    // The reader starts at the stream's end: give it a moment to be polling.
    await sleep(300);
    a.io.to('room-1').emit('hello', 'from A');
    await waitFor('the broadcast on B', () => got.length === 1, 5000);
    await sleep(200);
    expect(got).toEqual(['from A']);
    expect(stray).toEqual([]);
  });

  it('lets a server act on sockets of the other (fetchSockets, socketsJoin)', async () => {
    prefix = `cluster-test-${Date.now()}-b`;
    const a = await peer();
    const b = await peer();
    const s = await client(b.url, 'lobby');
    await sleep(300);
    const seen = await a.io.in('lobby').fetchSockets();
    expect(seen.map((x) => x.id)).toEqual([s.id]);
    a.io.in('lobby').socketsJoin('later');
    const got: number[] = [];
    s.on('n', (n: number) => got.push(n));
    await waitFor(
      'the join to land on B',
      async () => (await a.io.in('later').fetchSockets()).length === 1,
      5000,
    );
    a.io.to('later').emit('n', 1);
    await waitFor('the broadcast to the joined room', () => got.length === 1, 5000);
    expect(got).toEqual([1]);
  });

  it('loses and doubles nothing when Redis restarts in the middle of a stream of broadcasts', async () => {
    prefix = `cluster-test-${Date.now()}-c`;
    const a = await peer();
    const b = await peer();
    const onA = await client(a.url, 'chat');
    const onB = await client(b.url, 'chat');
    const gotA: number[] = [];
    const gotB: number[] = [];
    onA.on('n', (n: number) => gotA.push(n));
    onB.on('n', (n: number) => gotB.push(n));
    await sleep(300);

    const total = 120;
    let restarted = false;
    for (let i = 0; i < total; i++) {
      // Alternate the sending server so both directions cross the restart.
      (i % 2 === 0 ? a : b).io.to('chat').emit('n', i);
      if (i === total / 2) {
        await restartRedis(services.redisUrl, 300);
        restarted = true;
      }
      await sleep(10);
    }
    expect(restarted).toBe(true);
    const want = Array.from({ length: total }, (_, i) => i);
    await waitFor(
      'every broadcast on both servers',
      () => gotA.length >= total && gotB.length >= total,
      30_000,
    );
    await sleep(500);
    expect([...gotA].sort((x, y) => x - y)).toEqual(want);
    expect([...gotB].sort((x, y) => x - y)).toEqual(want);
    // The outage was logged once per connection loss, not once per retry.
    const warnings = a.logs.filter((l) => l.startsWith('warn')).length;
    expect(warnings).toBeGreaterThanOrEqual(1);
    expect(warnings).toBeLessThanOrEqual(2);
    expect(a.logs.some((l) => l.includes('reconnected'))).toBe(true);
    expect(a.fanout.isReady()).toBe(true);
  });

  it('keeps what is broadcast during a long outage and delivers it when Redis is back', async () => {
    prefix = `cluster-test-${Date.now()}-e`;
    const a = await peer();
    const b = await peer();
    const onB = await client(b.url, 'chat');
    const got: string[] = [];
    onB.on('m', (v: string) => got.push(v));
    await sleep(300);
    a.io.to('chat').emit('m', 'before');
    await waitFor('the first broadcast', () => got.length === 1, 5000);
    await stopRedis(services.redisUrl);
    try {
      // Longer than the Redis client's own 5 s default command timeout.
      a.io.to('chat').emit('m', 'during');
      // Server-side queries answer at once with this process's sockets instead of hanging.
      await waitFor('B to notice the outage', () => !b.fanout.isReady(), 5000);
      const started = Date.now();
      const seen = await b.io.in('chat').fetchSockets();
      // Both ways answer this process's sockets; only a round trip through Redis would wait for the
      // 1 s query timeout first. Before it, then: none was attempted (a semantic bound, not a speed).
      expect(Date.now() - started).toBeLessThan(1000);
      expect(seen.map((s) => s.id)).toEqual([onB.id]);
      await sleep(6500);
      expect(got).toEqual(['before']);
    } finally {
      await startRedis(services.redisUrl);
    }
    await waitFor('the broadcast made during the outage', () => got.length === 2, 15_000);
    a.io.to('chat').emit('m', 'after');
    await waitFor('the broadcast after the outage', () => got.length === 3, 5000);
    expect(got).toEqual(['before', 'during', 'after']);
  });

  it('after an outage longer than its broadcast queue, closes its own live connections so they catch up', async () => {
    prefix = `cluster-test-${Date.now()}-q`;
    // A queue of 1.5 s instead of 60 s: what waited longer was dropped.
    const a = await peer({ commandTimeoutMs: 1500 });
    const b = await peer({ commandTimeoutMs: 1500 });
    const onA = await client(a.url, 'chat');
    const onB = await client(b.url, 'chat');
    const reasons: string[] = [];
    for (const c of [onA, onB]) c.on('disconnect', (reason) => reasons.push(reason));
    await sleep(300);
    await stopRedis(services.redisUrl);
    try {
      a.io.to('chat').emit('m', 'dropped after 1.5 s');
      await sleep(3000);
    } finally {
      await startRedis(services.redisUrl);
    }
    // Both processes saw the outage outlast their queue: each closed its own sockets (the widget
    // then reconnects and syncs), and said why.
    await waitFor('both sockets closed by their server', () => reasons.length === 2, 15_000);
    expect(reasons).toEqual(['io server disconnect', 'io server disconnect']);
    expect(a.logs.join('\n')).toMatch(/outlasted the broadcast queue/);
    expect(b.logs.join('\n')).toMatch(/outlasted the broadcast queue/);
  });

  it('starts while Redis is down without failing, and says so once', async () => {
    prefix = `cluster-test-${Date.now()}-d`;
    // An address where nothing listens: the client keeps retrying, the process does not fail.
    const http = createServer();
    const io = new Server(http);
    const logs: string[] = [];
    const log = { info: () => {}, warn: (_o: object, m?: string) => logs.push(m ?? ''), error: () => {} };
    const fanout = attachRedisAdapter(io, 'redis://127.0.0.1:1', log, {
      keyPrefix: prefix,
      maxReconnectDelayMs: 200,
    });
    await sleep(1000);
    expect(fanout.isReady()).toBe(false);
    expect(logs.length).toBe(1);
    await new Promise<void>((r) => io.close(() => r()));
    await fanout.close();
  });

  it('backs off between reconnect attempts up to a cap', () => {
    expect(reconnectDelay(0)).toBeGreaterThanOrEqual(100);
    expect(reconnectDelay(0)).toBeLessThan(200);
    expect(reconnectDelay(1000)).toBeGreaterThanOrEqual(2000);
    expect(reconnectDelay(1000)).toBeLessThan(2100);
  });
});
