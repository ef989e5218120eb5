/**
 * PostgreSQL only (the CI's second pass): a pooled connection that dies while idle, or while a
 * transaction holds it (the server restarted, an administrator ended it, a network cut), neither
 * crashes the process nor goes unheard. The pool replaces it, the next query works, and the
 * warning reaches the log.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../server/store/db.ts';
import { ON_POSTGRES } from './helpers/http.ts';

const url = process.env['DATABASE_URL'] ?? '';
let db: Db | undefined;
let admin: pg.Client | undefined;

afterEach(async () => {
  await admin?.end();
  await db?.close();
  admin = db = undefined;
});

describe.skipIf(!ON_POSTGRES)('an idle PostgreSQL connection that dies', () => {
  it('is logged as a warning and replaced; the next query answers', async () => {
    const warnings: { message: string; err: unknown }[] = [];
    db = await openDb({ databaseUrl: url, warn: (message, err) => warnings.push({ message, err }) });
    const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = rows[0]!.pid;

    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const ended = await admin.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pid]);
    expect(ended.rows[0]!.ok).toBe(true);

    const deadline = Date.now() + 10_000;
    while (warnings.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(warnings.map((w) => w.message)).toEqual([
      'an idle PostgreSQL connection failed; the pool replaces it',
    ]);
    expect(String((warnings[0]!.err as Error).message)).toMatch(/terminat/i);

    const after = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(after.rows[0]!.pid).not.toBe(pid);
  });

  it('while a transaction holds it: the transaction fails, the process lives on, the next one answers', async () => {
    const warnings: { message: string; err: unknown }[] = [];
    db = await openDb({ databaseUrl: url, warn: (message, err) => warnings.push({ message, err }) });
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const terminator = admin;
    let pid = 0;
    const failed = await db
      .transaction(async (tx) => {
        pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await terminator.query('SELECT pg_terminate_backend($1)', [pid]);
        // The connection drops while the transaction waits between two queries.
        const deadline = Date.now() + 10_000;
        while (warnings.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        await tx.query('SELECT 1');
        return 'committed';
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failed).toBeInstanceOf(Error);
    expect(warnings[0]?.message).toBe(
      'a PostgreSQL connection failed during a transaction; the pool replaces it',
    );
    expect(String((warnings[0]!.err as Error).message)).toMatch(/terminat/i);
    const next = await db.transaction((tx) => tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'));
    expect(next.rows[0]!.pid).not.toBe(pid);
    expect((await db.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n).toBe(1);
  });

  it('ended again and again under load, in and out of transactions: no error escapes, the pool answers after', async () => {
    // A dropped connection errs twice; pg-pool listened only once while lending a client for a
    // query, so the second error stopped the process (15 of them in one run before the fix).
    const escaped: unknown[] = [];
    const onUncaught = (err: unknown) => escaped.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      // Its own connections only (other test files share the database): named for this test.
      const name = `charla-idle-${process.pid}-${Date.now()}`;
      const own = new URL(url);
      own.searchParams.set('application_name', name);
      db = await openDb({ databaseUrl: own.toString(), warn: () => {} });
      admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const adminPid = (await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const open = db;
      let stop = false;
      let failed = 0;
      let answered = 0;
      const worker = async (inTransaction: boolean) => {
        while (!stop) {
          try {
            if (inTransaction) {
              await open.transaction(async (tx) => {
                await tx.query('SELECT 1');
                await new Promise((r) => setTimeout(r, Math.random() * 5));
                await tx.query('SELECT 2');
              });
            } else {
              await open.query('SELECT pg_sleep(0.002)');
            }
            answered += 1;
          } catch {
            failed += 1;
          }
        }
      };
      const workers = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => worker(i % 2 === 0));
      for (let round = 0; round < 80; round += 1) {
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> $1 AND application_name = $2`,
          [adminPid, name],
        );
        await new Promise((r) => setTimeout(r, 25));
      }
      stop = true;
      await Promise.all(workers);
      // Let the sockets' last errors arrive.
      await new Promise((r) => setTimeout(r, 200));
      expect(failed).toBeGreaterThan(0);
      expect(answered).toBeGreaterThan(0);
      expect(escaped).toEqual([]);
      expect((await open.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n).toBe(1);
      expect((await open.transaction((tx) => tx.query<{ n: number }>('SELECT 2 AS n'))).rows[0]!.n).toBe(2);
    } finally {
      process.removeListener('uncaughtException', onUncaught);
    }
  });
});
