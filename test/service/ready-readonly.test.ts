/**
 * GET /ready on a database that answers but takes no write (server/routes/health.ts): a failover
 * onto a replica, or transactions read-only by default. 503 with "database":"read-only", and 200
 * again once it takes writes; it said ready while every write failed.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, ON_POSTGRES, startServer, until, type Server } from './helpers/http.ts';

const servers: Server[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const server of servers) await server.close().catch(() => {});
  for (const cleanup of cleanups) await cleanup();
});

async function ready(server: Server) {
  const res = await fetch(`${server.base}/ready`);
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}
const readOnly = {
  status: 503,
  body: { status: 'unavailable', process: 'running', database: 'read-only' },
};
const fine = { status: 200, body: { status: 'ready', process: 'running', database: 'ok' } };

describe('GET /ready on a read-only database', () => {
  it('answers 503 "read-only" on the embedded store, and 200 once it takes writes again', async () => {
    const server = await startServer({ databaseUrl: 'memory://' });
    servers.push(server);
    expect(await ready(server)).toEqual(fine);
    // The embedded store has one connection: the setting is the whole store's.
    await server.app.charla.db.exec('SET default_transaction_read_only = on');
    expect(await ready(server)).toEqual(readOnly);
    await server.app.charla.db.exec('SET default_transaction_read_only = off');
    expect(await ready(server)).toEqual(fine);
  });

  it.runIf(ON_POSTGRES)(
    'answers 503 "read-only" on PostgreSQL, and 200 once it takes writes again',
    async () => {
      // A database of this test's own, so that making it read-only touches nobody else.
      const name = `charla_ro_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      const appName = `charla-ready-ro-${name.slice(-8)}`;
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      cleanups.push(async () => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      });
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(DATABASE_URL);
      url.pathname = `/${name}`;
      url.searchParams.set('application_name', appName);
      const server = await startServer({ databaseUrl: url.toString() });
      servers.push(server);
      expect(await ready(server)).toEqual(fine);
      // New sessions take the database's setting: the service's own are ended (only they), and
      // its pool opens new ones.
      const renew = () =>
        admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`,
          [name, appName],
        );
      await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
      await renew();
      const seen = await until(async () => {
        const r = await ready(server);
        return r.body['database'] === 'read-only' ? r : null;
      }, 15_000);
      expect(seen).toEqual(readOnly);

      await admin.query(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
      await renew();
      await until(async () => (await ready(server)).status === 200, 15_000);
      expect(await ready(server)).toEqual(fine);
    },
  );
});
