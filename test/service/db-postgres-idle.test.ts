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
});
