/**
 * PostgreSQL only: a database that stops answering (stopped with SIGSTOP, a network black hole)
 * rather than refusing. The pool waits at most POOL_CONNECT_TIMEOUT_MS for a connection and a query
 * at most QUERY_TIMEOUT_MS for its answer (server/store/db.ts), both a 503 SERVICE_UNAVAILABLE;
 * and app.close() completes. Before, the requests and the shutdown waited for good.
 */
import { randomUUID } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import {
  openDb,
  POOL_CONNECT_TIMEOUT_MS,
  QUERY_TIMEOUT_MS,
  SCHEMA_QUERY_TIMEOUT_MS,
  type Db,
} from '../../server/store/db.ts';
import { migrate } from '../../server/store/migrate.ts';
import { ERRORS } from '../../types/index.ts';
import { BASIC, DATABASE_URL, ON_POSTGRES, PUBLIC_BASE, storageFor } from './helpers/http.ts';

/** The service's connections are named so that only they are ended (other files share the database). */
const appName = `charla-db-timeout-${randomUUID().slice(0, 8)}`;

/**
 * A TCP relay to PostgreSQL that can turn into a black hole: `silence()` stops forwarding bytes
 * either way on the connections it holds (they stay open) and takes new ones without answering.
 */
async function relayTo(target: URL) {
  let silent = false;
  const sockets = new Set<Socket>();
  const keep = (s: Socket) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  };
  const pairs: Array<[Socket, Socket]> = [];
  const server = createServer((client) => {
    keep(client);
    if (silent) return;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    keep(upstream);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const)
      a.on('close', () => b.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    pairs.push([client, upstream]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    silence: () => {
      silent = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.runIf(ON_POSTGRES)('a PostgreSQL that stops answering', () => {
  it('answers 503 SERVICE_UNAVAILABLE within the pool and query timeouts, and app.close() completes', async () => {
    const target = new URL(DATABASE_URL);
    const relay = await relayTo(target);
    cleanups.push(() => relay.close());
    const { databaseUrl, drop } = await storageFor({ databaseUrl: DATABASE_URL });
    cleanups.push(drop);
    cleanups.push(async () => {
      // Only this file's service's connections (the relay's end already cut them).
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = $1`,
        [appName],
      );
      await admin.end();
    });
    const through = new URL(databaseUrl!);
    through.hostname = '127.0.0.1';
    through.port = String(relay.port);
    through.searchParams.set('application_name', appName);
    const app = await buildApp({
      publicBaseUrl: PUBLIC_BASE,
      scheduler: false,
      logger: false,
      databaseUrl: through.toString(),
      databasePoolSize: 2,
    });
    let closed = false;
    cleanups.push(async () => {
      if (!closed) await app.close().catch(() => {});
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const list = () =>
      fetch(`${base}/v1/campaigns?botId=b&startAt=2026-01-01&endAt=2026-01-02`, {
        headers: { authorization: BASIC },
      });
    // Connections open in the pool, answering.
    const warm = await Promise.all([list(), list()]);
    expect(warm.map((r) => r.status)).toEqual([200, 200]);

    relay.silence();
    const asked = Date.now();
    // Two take the pool's connections (their queries then wait for an answer); the third waits
    // for a connection.
    const answers = await Promise.all(
      [list(), list(), list()].map(async (p) => {
        const res = await p;
        return {
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          key: ((await res.json()) as { error?: { key?: string } }).error?.key,
          took: Date.now() - asked,
        };
      }),
    );
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 503, retryAfter: '1', key: ERRORS.SERVICE_UNAVAILABLE.key });
      expect(answer.took).toBeLessThan(QUERY_TIMEOUT_MS + 5_000);
    }
    const first = Math.min(...answers.map((a) => a.took));
    expect(first).toBeGreaterThanOrEqual(POOL_CONNECT_TIMEOUT_MS - 500);
    expect(first).toBeLessThan(POOL_CONNECT_TIMEOUT_MS + 5_000);

    const closing = Date.now();
    await app.close();
    closed = true;
    expect(Date.now() - closing).toBeLessThan(QUERY_TIMEOUT_MS + 5_000);
  }, 150_000);

  it('gives a transaction the statement limit it asks for (the migrations ask for the schema changes’ one)', async () => {
    const relay = await relayTo(new URL(DATABASE_URL));
    cleanups.push(() => relay.close());
    const through = new URL(DATABASE_URL);
    through.hostname = '127.0.0.1';
    through.port = String(relay.port);
    through.searchParams.set('application_name', appName);
    const db = await openDb({ databaseUrl: through.toString(), poolSize: 1 });
    cleanups.push(() => db.close().catch(() => {}));

    // What migrate() asks of its transaction, on the real store.
    const asked: Array<number | undefined> = [];
    const watched: Db = {
      ...db,
      kind: db.kind,
      closed: db.closed,
      query: db.query,
      transaction: (fn, options) => {
        asked.push(options?.queryTimeoutMs);
        return db.transaction(fn, options);
      },
    };
    await migrate(watched, []);
    expect(asked).toEqual([SCHEMA_QUERY_TIMEOUT_MS]);

    // A second for a statement inside the transaction, where a request's would wait QUERY_TIMEOUT_MS
    // (longer than this test may run): the database stops answering once BEGIN went through.
    expect(QUERY_TIMEOUT_MS).toBeGreaterThan(25_000);
    let began = false;
    await expect(
      db.transaction(
        async (tx) => {
          began = true;
          relay.silence();
          await tx.query('SELECT 1');
        },
        { queryTimeoutMs: 1_000 },
      ),
    ).rejects.toThrow('Query read timeout');
    expect(began).toBe(true);
  }, 25_000);
});
