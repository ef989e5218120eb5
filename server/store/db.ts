/**
 * Storage behind one small interface: embedded Postgres (PGlite) by default,
 * a real PostgreSQL when a postgres:// URL is given. Same SQL for both.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { databaseUrlOf } from '../config.ts';
import { connectFailure } from '../connect-failure.ts';
import { lockDataDir } from './dir-lock.ts';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface TransactionOptions {
  /**
   * How long each of its statements may wait for its answer (PostgreSQL; PGlite answers in the
   * process): QUERY_TIMEOUT_MS unless given. The migrations and the demo's seeding give
   * SCHEMA_QUERY_TIMEOUT_MS (their advisory locks wait for another process's).
   */
  queryTimeoutMs?: number;
}

export interface Db extends Queryable {
  /** Runs fn in one transaction; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs several statements (schema changes: each may take SCHEMA_QUERY_TIMEOUT_MS). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
  /** True from the moment close() is called: nothing more should be asked of the store. */
  readonly closed: boolean;
  readonly kind: 'pglite' | 'postgres';
}

/**
 * Lets the event loop go. PGlite answers on this thread without any I/O, so a loop of its queries
 * alone never lets a timer, a socket or another request's handler run: a loop of many statements
 * (pieces of a file, recipients of a campaign, batches of messages) awaits this between them.
 */
export const letOthersRun = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface DbOptions {
  /** postgres://… for PostgreSQL; `memory://` for an in-memory PGlite; unset: PGlite in dataDir. */
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  /**
   * A file holding a dump of a PGlite cluster (PGlite's `dumpDataDir`) that a new embedded store
   * starts from: `memory://`, or a data directory holding no cluster yet. Instead of making the
   * cluster (initdb takes PGlite a few seconds; loading a dump, a fraction of that). The test
   * suite makes one per run (CHARLA_STORE_TEMPLATE for the processes it starts). A file that
   * cannot be read or loaded is passed over, with a warning naming why: the store is made the
   * usual way (a directory left as it was before the try).
   */
  storeTemplate?: string | undefined;
  /** PostgreSQL connections in the pool (the configuration's DATABASE_POOL_SIZE); 10 when not given. */
  poolSize?: number | undefined;
  /** Where warnings go (the app's logger); the console when not given. */
  warn?: Warn | undefined;
}

/** A warning and the error it is about. */
export type Warn = (message: string, err: unknown) => void;

export async function openDb(options: DbOptions): Promise<Db> {
  // Checked again here for callers of buildApp: anything but these three refuses (it used to
  // open a private PGlite).
  const url = databaseUrlOf(options.databaseUrl);
  const warn: Warn = options.warn ?? ((message, err) => console.warn(message, err));
  if (url && url !== 'memory://') return openPostgres(url, options.poolSize ?? 10, warn);
  if (url === 'memory://') {
    return pgliteDb(await openPglite(undefined, options.storeTemplate, warn));
  }
  const release = await lockDataDir(options.dataDir ?? './.charla-data');
  try {
    const lite = await openPglite(options.dataDir ?? './.charla-data', options.storeTemplate, warn);
    return pgliteDb(lite, release);
  } catch (err) {
    await release();
    throw err;
  }
}

/**
 * A PGlite in memory (`dir` undefined) or on a data directory (locked by this process). A new one
 * (in memory, or a directory holding no cluster yet) starts from the template dump when one is
 * given and loads; otherwise the cluster is made (initdb) or, in a directory, opened.
 */
async function openPglite(
  dir: string | undefined,
  template: string | undefined,
  warn: Warn,
): Promise<PGlite> {
  if (template && (dir === undefined || !existsSync(join(dir, 'PG_VERSION')))) {
    const before = dir === undefined ? new Set<string>() : new Set(await readdir(dir));
    try {
      const lite = new PGlite({ dataDir: dir, loadDataDir: new Blob([await readFile(template)]) });
      // A dump that does not load leaves nothing to close: PGlite's close() waits for the start
      // and so only throws its error again; the instance is garbage once dropped here.
      await lite.waitReady;
      return lite;
    } catch (err) {
      // What the try wrote goes, so the usual start finds the directory as it was.
      if (dir !== undefined) {
        for (const name of await readdir(dir)) {
          if (!before.has(name)) await rm(join(dir, name), { recursive: true, force: true });
        }
      }
      const why = err instanceof Error ? err.message : String(err);
      const store = dir === undefined ? 'in-memory store' : `embedded store in ${dir}`;
      warn(`${store}: the template ${template} was passed over (${why}); making a new cluster`, err);
    }
  }
  const lite = new PGlite(dir);
  await lite.waitReady;
  return lite;
}

/**
 * The embedded store over a PGlite; `after` runs once it is closed (the data directory's lock
 * given up). Exported for the tests' global setup, which migrates a PGlite it then dumps.
 */
export function pgliteDb(lite: PGlite, after: () => Promise<void> = async () => {}): Db {
  const wrap = (q: { query: PGlite['query'] }): Queryable => ({
    async query<T>(sql: string, params: unknown[] = []) {
      const r = await q.query<T>(sql, params as unknown[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  const base = wrap(lite);
  let closed = false;
  return {
    kind: 'pglite',
    get closed() {
      return closed;
    },
    query: base.query,
    transaction: (fn) => lite.transaction((tx) => fn(wrap(tx))),
    exec: async (sql) => {
      await lite.exec(sql);
    },
    close: () => {
      closed = true;
      return lite.close().finally(after);
    },
  };
}

/** How long the first connection may take before the start gives up. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * How long a query may wait for a connection of the pool (a new one to open, or one to be given
 * back): past it, "timeout exceeded when trying to connect" (a 503 SERVICE_UNAVAILABLE). Without
 * it a PostgreSQL that stops answering (stopped, a network black hole) rather than refusing kept
 * every request, socket event and the shutdown waiting for good.
 */
export const POOL_CONNECT_TIMEOUT_MS = 10_000;

/**
 * How long a query may wait for its answer once sent ("Query read timeout", a 503): the same
 * database that stops answering, on a connection already open. The connection is then dropped
 * (its answer, if one ever comes, belongs to nobody). Every statement of the service is short: the
 * biggest, a piece of a campaign's recipients, takes a fraction of a second.
 */
export const QUERY_TIMEOUT_MS = 30_000;

/**
 * The migrations' statements, and the waits for the advisory locks of the start (another process's
 * migrations or seeding): an index made on a large table may take minutes on a database that
 * answers. A database that stops answering still fails the start, later. Given by the callers
 * (TransactionOptions), so that no statement of the service's requests has it.
 */
export const SCHEMA_QUERY_TIMEOUT_MS = 15 * 60_000;

/** A statement with its own client-side limit (pg reads query_timeout; its types do not list it). */
function statement(sql: string, params: unknown[] | undefined, timeoutMs: number): pg.QueryConfig {
  const config: pg.QueryConfig & { query_timeout: number } = {
    text: sql,
    query_timeout: timeoutMs,
  };
  if (params) config.values = params;
  return config;
}

/** pg's error when a query had no answer within its query_timeout. */
const isQueryTimeout = (err: unknown): boolean =>
  err instanceof Error && err.message === 'Query read timeout';

/**
 * One connection first, so that a server that is not there, refuses the credentials or has no
 * such database stops the start with one line naming DATABASE_URL, where it points and why,
 * rather than the first migration's bare ECONNREFUSED (or the pool's own wait of
 * POOL_CONNECT_TIMEOUT_MS, said less clearly).
 */
async function checkPostgres(url: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await probe.connect();
  } catch (err) {
    throw new Error(
      `DATABASE_URL: cannot connect to ${postgresAddress(url)} (${connectFailure(err, CONNECT_TIMEOUT_MS)})`,
      {
        cause: err,
      },
    );
  }
  await probe.end();
}

/** host:port of a postgres:// address (a host in the query, as for a Unix socket, wins). */
function postgresAddress(url: string): string {
  const u = new URL(url);
  const host = u.searchParams.get('host') ?? (decodeURIComponent(u.hostname) || 'localhost');
  return `${host}:${u.searchParams.get('port') ?? (u.port || '5432')}`;
}

async function openPostgres(url: string, max: number, warn: Warn): Promise<Db> {
  await checkPostgres(url);
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // An idle client's error (a server restart, a dropped connection) must not crash the process;
  // the pool replaces the client, and the log says what happened.
  pool.on('error', (err) => warn('an idle PostgreSQL connection failed; the pool replaces it', err));
  // Every client keeps a listener of its own for its whole life: a dropped connection errs twice
  // (the server's notice, then the socket's end), and pg-pool listens only once while it lends a
  // client for a query, and not at all once it has given a broken one back. The second error then
  // had no listener and stopped the process (a PostgreSQL restart or failover under load). What
  // failed is said by the pool's listener above, or by the transaction's or query's error.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const wrap = (c: pg.Pool | pg.PoolClient, timeoutMs = QUERY_TIMEOUT_MS): Queryable => ({
    async query<T>(sql: string, params: unknown[] = []) {
      const r = await c.query(statement(sql, params, timeoutMs));
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    },
  });
  const base = wrap(pool);
  return {
    kind: 'postgres',
    get closed() {
      return pool.ending;
    },
    query: base.query,
    async transaction(fn, options) {
      const client = await pool.connect();
      const timeoutMs = options?.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
      // A checked-out client has no listener of its own (the pool's idle one is off while it is
      // lent): the connection dropping then (a server restart, pg_terminate_backend) emitted an
      // unhandled 'error' and stopped the process. Kept, it fails the transaction's next query,
      // and the client is given back broken so the pool ends it instead of lending it again.
      let broken: Error | undefined;
      const onError = (err: Error) => {
        // Said once: a dropped connection errs twice (the server's notice, then the socket's end).
        if (broken) return;
        broken = err;
        warn('a PostgreSQL connection failed during a transaction; the pool replaces it', err);
      };
      client.on('error', onError);
      try {
        await client.query(statement('BEGIN', undefined, timeoutMs));
        const result = await fn(wrap(client, timeoutMs));
        await client.query(statement('COMMIT', undefined, timeoutMs));
        return result;
      } catch (err) {
        // A query that timed out is still the connection's active one: a ROLLBACK would wait behind
        // it for another timeout. The connection is given back broken instead, and dropping it
        // rolls the transaction back.
        if (!broken && isQueryTimeout(err)) broken = err as Error;
        if (!broken) await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.removeListener('error', onError);
        client.release(broken ?? false);
      }
    },
    exec: async (sql) => {
      await pool.query(statement(sql, undefined, SCHEMA_QUERY_TIMEOUT_MS));
    },
    close: () => pool.end(),
  };
}
