/**
 * Which storage errors are transient (the database out of reach, or the connection dropped: a
 * 503 SERVICE_UNAVAILABLE to try again) and which are not (UNKNOWN_ERROR), told apart on real
 * errors of node-postgres, pg-pool and PGlite, not made-up objects.
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openDb } from '../../server/store/db.ts';
import { ApiError, serviceUnavailable, storageUnavailable } from '../../server/http/errors.ts';
import { ERRORS } from '../../types/index.ts';
import { ON_POSTGRES } from './helpers/http.ts';

const url = process.env['DATABASE_URL'] ?? '';

/** What a promise rejected with (one that resolves fails the test). */
async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
}

const servers: NetServer[] = [];
const sockets = new Set<Socket>();
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

/** A TCP port that takes connections and never answers (a database host that hangs). */
async function silentPort(): Promise<number> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('storageUnavailable', () => {
  it('is true for a database that refuses the connection (ECONNREFUSED)', async () => {
    const client = new pg.Client({ host: '127.0.0.1', port: await closedPort(), user: 'x', database: 'x' });
    const err = await failure(client.connect());
    expect((err as { code?: string }).code).toBe('ECONNREFUSED');
    expect(storageUnavailable(err)).toBe(true);
  });

  it('is true for a pool that cannot connect in time (Connection terminated due to connection timeout)', async () => {
    const pool = new pg.Pool({
      host: '127.0.0.1',
      port: await silentPort(),
      user: 'x',
      database: 'x',
      connectionTimeoutMillis: 100,
    });
    pool.on('error', () => {});
    const err = await failure(pool.query('SELECT 1'));
    expect(String((err as Error).message)).toMatch(/timeout/i);
    expect(storageUnavailable(err)).toBe(true);
    await pool.end();
  });

  it('is false for a client’s and the code’s own errors, and for what the embedded store refuses', async () => {
    const lite = await openDb({ databaseUrl: 'memory://', storeTemplate: inject('pgliteTemplate') });
    const syntax = await failure(lite.query('SELEC 1'));
    const unique = await failure(
      lite.exec('CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1); INSERT INTO t VALUES (1);'),
    );
    await lite.close();
    expect(storageUnavailable(syntax)).toBe(false);
    expect(storageUnavailable(unique)).toBe(false);
    expect(storageUnavailable(new ApiError('NOT_FOUND'))).toBe(false);
    expect(storageUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(storageUnavailable(null)).toBe(false);
    expect(storageUnavailable('Connection terminated')).toBe(false);
  });

  it('is the interface’s 503 SERVICE_UNAVAILABLE with the wait in data.retryAfterMs', () => {
    const e = serviceUnavailable();
    expect(e.httpStatus).toBe(503);
    expect(e.body).toMatchObject({
      statusMessage: 'failed',
      status: 0,
      error: { code: ERRORS.SERVICE_UNAVAILABLE.code, key: 'SERVICE_UNAVAILABLE' },
      data: { retryAfterMs: expect.any(Number) },
    });
  });
});

describe.skipIf(!ON_POSTGRES)('storageUnavailable on PostgreSQL', () => {
  /** A connected client and an administrator's client that can end it. */
  async function victim() {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {});
    await client.connect();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const end = async () => {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await admin.end();
    };
    return { client, end };
  }

  it('is true for a query whose backend was ended (57P01) and for the next query on that client', async () => {
    const { client, end } = await victim();
    const running = failure(client.query('SELECT pg_sleep(10)'));
    await new Promise((r) => setTimeout(r, 100));
    await end();
    const err = await running;
    expect((err as { code?: string }).code).toBe('57P01');
    expect(storageUnavailable(err)).toBe(true);
    const next = await failure(client.query('SELECT 1'));
    expect(storageUnavailable(next)).toBe(true);
    await client.end().catch(() => {});
  });

  it('is true for a pool whose every connection is lent past its connection timeout', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 100 });
    const held = await pool.connect();
    const err = await failure(pool.query('SELECT 1'));
    expect(String((err as Error).message)).toMatch(/timeout exceeded when trying to connect/);
    expect(storageUnavailable(err)).toBe(true);
    held.release();
    await pool.end();
  });

  it('is false for what PostgreSQL refuses as wrong (a syntax error, a division by zero)', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const syntax = await failure(client.query('SELEC 1'));
    const division = await failure(client.query('SELECT 1/0'));
    await client.end();
    expect((syntax as { code?: string }).code).toBe('42601');
    expect((division as { code?: string }).code).toBe('22012');
    expect(storageUnavailable(syntax)).toBe(false);
    expect(storageUnavailable(division)).toBe(false);
  });
});
