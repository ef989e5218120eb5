/**
 * PostgreSQL only: the service's database dropping its connections (pg_terminate_backend, as a
 * restart or failover does) and then out of reach for longer than the widget's five tries of an
 * unknown error (the database down) while a widget sends. The service says SERVICE_UNAVAILABLE
 * (503 with Retry-After over HTTP), the widget keeps every message CREATED in its outbox and sends
 * it again until it is stored: each stored exactly once, none FAILED, every sendMessage resolved.
 */
import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server as NetServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../types/index.ts';
import { ERRORS } from '../../types/index.ts';
import { BASIC, waitFor } from './helpers/live.ts';
import { ON_POSTGRES } from './helpers/http.ts';
import { liveWidgets } from './helpers/widgets.ts';

const url = process.env['DATABASE_URL'] ?? '';
/** The service's connections are named so that only they are ended (other files share the database). */
const appName = `charla-transient-${randomUUID().slice(0, 8)}`;

/**
 * A TCP relay between the service and PostgreSQL: `cut()` ends every connection and refuses new
 * ones (the database host down), `restore()` lets them through again.
 */
class Relay {
  private server: NetServer | undefined;
  private readonly open = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.open.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          this.open.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = new Promise((r) => server?.close(r));
    for (const s of this.open) s.destroy();
    await closed;
  }

  restore(): Promise<void> {
    return this.start();
  }
}

const target = new URL(url || 'postgres://x@127.0.0.1:5432/x');
const relay = new Relay({ host: target.hostname, port: Number(target.port || 5432) });
const relayed = (): string => {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(relay.port);
  u.searchParams.set('application_name', appName);
  return u.toString();
};

// Listening before the service of liveWidgets() is given its address.
if (ON_POSTGRES) await relay.start();
let admin: pg.Client | undefined;
beforeAll(async () => {
  if (!ON_POSTGRES) return;
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await relay.cut().catch(() => {});
});

/** Ends every connection of this file's service (only those: other files share the database). */
async function endServiceConnections(): Promise<number> {
  const r = await admin!.query<{ ended: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1`,
    [appName],
  );
  return r.rows.filter((x) => x.ended).length;
}

const live = ON_POSTGRES ? liveWidgets({ live: { databaseUrl: relayed() } }) : undefined;

describe.skipIf(!ON_POSTGRES)('a widget sending while the database drops connections and goes away', () => {
  it('keeps every message CREATED until stored, then has each stored once, none FAILED', async () => {
    const w = live!.widget({ userId: `u-${randomUUID()}` });
    await w.connect();
    const roomId = w.stores.$currentRoomId.get()!;
    const statuses = new Map<string, Set<string>>();
    const note = () => {
      for (const m of w.context.stores.$currentMessages.get()) {
        const seen = statuses.get(String(m.id)) ?? new Set<string>();
        seen.add(m.status);
        statuses.set(String(m.id), seen);
      }
    };
    const unsubscribe = w.context.stores.$currentMessages.subscribe(note);
    const sent: Message[] = [];
    const refused: unknown[] = [];
    const ids: string[] = [];
    const send = (n: number) => {
      const id = randomUUID();
      ids.push(id);
      return w.sendMessage({ type: 'TEXT', text: `m ${n}`, roomId, id }).then(
        (m) => void sent.push(m),
        (err: unknown) => void refused.push(err),
      );
    };
    const sends: Promise<void>[] = [];

    // Connections dropped again and again while 60 messages go.
    let ended = 0;
    for (let n = 0; n < 60; n++) {
      sends.push(send(n));
      if (n % 3 === 0) ended += await endServiceConnections();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(ended).toBeGreaterThan(0);

    // Then the database out of reach for 12 s, longer than the widget's tries of an unknown error
    // (1 + 2 + 3 + 4 s): what is sent meanwhile waits; an HTTP operation says 503 meanwhile.
    await relay.cut();
    for (let n = 60; n < 80; n++) sends.push(send(n));
    const res = await fetch(`${live!.h.baseUrl}/v1/bots/${live!.botId}/messages`, {
      method: 'POST',
      headers: { authorization: BASIC, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'text', userId: 'u-http', text: 'hola' }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(await res.json()).toMatchObject({
      status: 0,
      statusMessage: 'failed',
      error: { code: ERRORS.SERVICE_UNAVAILABLE.code, key: 'SERVICE_UNAVAILABLE' },
      data: { retryAfterMs: expect.any(Number) },
    });
    await new Promise((r) => setTimeout(r, 12_000));
    // Still waiting, none FAILED.
    expect(refused).toEqual([]);
    const waiting = w.context.stores.$currentMessages
      .get()
      .filter((m) => ids.slice(60).includes(String(m.id)));
    expect(waiting.map((m) => m.status)).toEqual(Array(20).fill('CREATED'));
    // What the chat's notice reads ("El servicio no responde ahora…"): the service cannot store.
    expect(w.context.stores.$serviceBusy.get()).toBe(true);
    expect(w.stores.$connection.get()).toBe('connected');
    await relay.restore();

    await Promise.all(sends);
    unsubscribe();
    expect(refused).toEqual([]);
    expect(sent).toHaveLength(80);
    expect(new Set(sent.map((m) => m.id))).toEqual(new Set(ids));
    for (const id of ids) expect([...(statuses.get(id) ?? [])]).not.toContain('FAILED');
    // Stored exactly once each, and nothing else in the room.
    const { rows } = await live!.h.app.charla.db.query<{ id: string; n: string }>(
      'SELECT id, count(*) AS n FROM messages WHERE room_id = $1 GROUP BY id',
      [roomId],
    );
    const mine = rows.filter((r) => ids.includes(r.id));
    expect(mine).toHaveLength(80);
    expect(mine.every((r) => Number(r.n) === 1)).toBe(true);
    await waitFor(() => w.context.stores.$currentMessages.get().every((m) => m.status !== 'CREATED'));
    expect(w.context.stores.$serviceBusy.get()).toBe(false);
  }, 90_000);

  it('a connection lost while the database is out of reach comes back by itself once it is back', async () => {
    // The reconnect's handshake is refused SERVICE_UNAVAILABLE, and socket.io does not try again
    // after a refused handshake: the widget stayed in `error`, its message waiting, for good.
    const w = live!.widget({ userId: `b-${randomUUID()}` });
    await w.connect();
    const roomId = w.stores.$currentRoomId.get()!;
    await relay.cut();
    const states: string[] = [];
    w.on('connection', (d) => states.push(d.state));
    w.core.liveSocket?.io.engine?.close(); // a network blip
    await waitFor(() => states.includes('error'), 10_000, 'the handshake refused');
    const pending = w.sendMessage({ type: 'TEXT', text: 'durante el corte', roomId });
    await new Promise((r) => setTimeout(r, 3_000));
    await relay.restore();
    const stored = await pending;
    expect(stored.status).not.toBe('FAILED');
    await waitFor(() => w.stores.$connection.get() === 'connected', 40_000, 'connected again');
  }, 90_000);

  it('a first connection refused while the database is out of reach is made once it is back', async () => {
    await relay.cut();
    const w = live!.widget({ userId: `f-${randomUUID()}` });
    const failed = await w.connect().then(
      () => null,
      (err: unknown) => err as { key?: string },
    );
    expect(failed?.key).toBe('SERVICE_UNAVAILABLE');
    await new Promise((r) => setTimeout(r, 2_000));
    await relay.restore();
    // Nothing waits in its outbox: it connects anyway, without another connect() from the page.
    await waitFor(() => w.stores.$connection.get() === 'connected', 40_000, 'connected once it is back');
    const sent = await w.sendMessage({ type: 'TEXT', text: 'ya' });
    expect(sent.seq).toBeTypeOf('number');
  }, 90_000);
});
