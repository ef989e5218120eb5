/**
 * Storage behind one small interface: embedded Postgres (PGlite) by default,
 * a real PostgreSQL when a postgres:// URL is given. Same SQL for both.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
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
  /**
   * With `memory://` and a storeTemplate: once closed, the store's PGlite is emptied and kept, and
   * the next such store of this process takes it instead of loading the template again (about a
   * second of CPU; emptying takes a twentieth). One whose schema changed is closed instead. The
   * test suite's services set it (hundreds of starts in one worker process).
   */
  reuseStores?: boolean | undefined;
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
    if (options.reuseStores && options.storeTemplate) return reusedMemoryStore(options.storeTemplate, warn);
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
  const making = dir !== undefined && (await startMaking(dir));
  const lite = await makeOrOpen(dir, dir === undefined || making ? template : undefined, warn);
  // Made and started: the next start opens it (a start cut before this made it again).
  if (making) await rm(join(dir, MAKING), { force: true });
  return lite;
}

/** openPglite's PGlite: made from `template` when one is given (a new cluster), else made by initdb or opened. */
async function makeOrOpen(
  dir: string | undefined,
  template: string | undefined,
  warn: Warn,
): Promise<PGlite> {
  if (template) {
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
 * Written before a cluster is made in a directory, removed once it has started: PGlite writes the
 * cluster's files one by one (PG_VERSION among the last), so a first start cut short (Ctrl-C, a
 * container stopped, a full disk) leaves some; the next start finds this file and makes it again.
 */
const MAKING = 'charla.making';
/** What a data directory may hold besides a cluster: the lock, a volume's lost+found, dot files. */
const NOT_THE_CLUSTERS = (name: string) =>
  name === 'charla.lock' || name === 'charla.lock.takeover' || name === 'lost+found' || name.startsWith('.');

/**
 * Whether a cluster is to be made in `dir` (none there yet), the directory made ready for it: what
 * an unfinished making left is removed. A directory without PG_VERSION that holds anything else
 * is refused: a cluster that lost that file (a partial restore, a backup that skipped small files)
 * or a directory of other files would be written over by a new, empty cluster, and what it held
 * lost.
 */
async function startMaking(dir: string): Promise<boolean> {
  const names = await readdir(dir);
  if (names.includes(MAKING)) {
    for (const name of names)
      if (!NOT_THE_CLUSTERS(name)) await rm(join(dir, name), { recursive: true, force: true });
  } else if (existsSync(join(dir, 'PG_VERSION'))) {
    return false;
  } else {
    const others = names.filter((name) => !NOT_THE_CLUSTERS(name));
    if (others.length > 0) {
      const shown = others.slice(0, 5).join(', ') + (others.length > 5 ? ', …' : '');
      throw new Error(
        `The data directory ${dir} holds files (${shown}) but no database (no PG_VERSION): not starting, ` +
          'so that nothing in it is written over. Restore the directory whole, or set CHARLA_DATA_DIR ' +
          'to an empty or new directory.',
      );
    }
  }
  await writeFile(join(dir, MAKING), `${process.pid}\n`);
  return true;
}

/** In-memory PGlites of closed stores, emptied, by the template they were loaded from (reuseStores). */
const spareStores = new Map<string, PGlite[]>();
/** What each template's schema looks like once loaded: a store whose schema changed is not kept. */
const templateShapes = new Map<string, string>();
/** The shape of a template that holds rows of its own: emptying would lose them, so none is kept. */
const HOLDS_ROWS = 'holds rows';

/** How many emptied PGlites of `template` wait for their next store (tests). */
export const spareStoreCount = (template: string): number => spareStores.get(template)?.length ?? 0;

/** The names of the tables a store empties when it is kept (all but the migrations' record). */
async function tablesToEmpty(lite: PGlite): Promise<string[]> {
  const tables = await lite.query<{ name: string }>(
    `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) AS name FROM pg_tables
     WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND tablename <> 'charla_migrations'`,
  );
  return tables.rows.map((t) => t.name);
}

/** A fingerprint of a PGlite's schema: tables, columns, constraints, triggers, functions, migrations. */
async function shapeOf(lite: PGlite): Promise<string> {
  const schema = await lite.query<{ shape: string }>(
    `SELECT md5(coalesce(string_agg(x, ';' ORDER BY x), '')) AS shape FROM (
       SELECT n.nspname::text || '.' || c.relname::text || ':' || c.relkind::text AS x
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
       UNION ALL SELECT c.relname::text || '.' || a.attname::text || ':' || format_type(a.atttypid, a.atttypmod)
         || ':' || a.attnotnull::text || ':' || a.atthasdef::text
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
       UNION ALL SELECT 'default ' || c.relname::text || '.' || d.adnum::text || ' ' || pg_get_expr(d.adbin, d.adrelid)
         FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public'
       UNION ALL SELECT 'constraint ' || conname::text || ' ' || pg_get_constraintdef(c.oid)
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'
       UNION ALL SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i
         JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
       UNION ALL SELECT 'trigger ' || pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text FROM pg_trigger t
         WHERE NOT t.tgisinternal
       UNION ALL SELECT 'function ' || CASE WHEN p.prokind IN ('f', 'p') THEN pg_get_functiondef(p.oid) ELSE p.proname::text END
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
     ) AS parts`,
  );
  const migrated = await lite.query<{ ids: string | null }>(
    `SELECT CASE WHEN to_regclass('public.charla_migrations') IS NULL THEN NULL
       ELSE (SELECT string_agg(id, ',' ORDER BY id) FROM charla_migrations) END AS ids`,
  );
  return `${schema.rows[0]?.shape ?? ''}|${migrated.rows[0]?.ids ?? ''}`;
}

/**
 * An in-memory store from `template`: a spare PGlite of an earlier store when there is one, else
 * the template loaded. Closing it empties its tables (the migrations' record kept) and keeps it, or
 * closes it when its schema is not the template's any more (a test's trigger, an older schema).
 */
async function reusedMemoryStore(template: string, warn: Warn): Promise<Db> {
  let lite = spareStores.get(template)?.pop();
  if (!lite) {
    lite = await openPglite(undefined, template, warn);
    if (!templateShapes.has(template)) {
      let rows = false;
      for (const table of await tablesToEmpty(lite))
        rows ||= (await lite.query(`SELECT 1 FROM ${table} LIMIT 1`)).rows.length > 0;
      templateShapes.set(template, rows ? HOLDS_ROWS : await shapeOf(lite));
    }
  }
  const kept = lite;
  return pgliteDb(kept, undefined, async () => {
    try {
      const shape = templateShapes.get(template);
      if (shape === HOLDS_ROWS || (await shapeOf(kept)) !== shape) throw new Error('not as loaded');
      const tables = await tablesToEmpty(kept);
      if (tables.length) await kept.exec(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY CASCADE`);
      // Session state too: prepared statements, settings, advisory locks, LISTENs.
      await kept.exec('DISCARD ALL');
      const spares = spareStores.get(template) ?? [];
      spareStores.set(template, spares);
      spares.push(kept);
    } catch {
      await kept.close().catch(() => {});
    }
  });
}

/**
 * The embedded store over a PGlite; `after` runs once it is closed (the data directory's lock
 * given up), and `end` is how the PGlite itself ends (closed; emptied and kept for reuseStores).
 * Once closed, the store refuses what it is asked (its PGlite may serve another store already).
 * Exported for the tests' global setup, which migrates a PGlite it then dumps.
 */
export function pgliteDb(
  lite: PGlite,
  after: () => Promise<void> = async () => {},
  end: () => Promise<void> = () => lite.close(),
): Db {
  let closed = false;
  let ending: Promise<void> | undefined;
  const open = () => {
    if (closed) throw new Error('The store is closed.');
  };
  const wrap = (q: { query: PGlite['query'] }, checked: boolean): Queryable => ({
    async query<T>(sql: string, params: unknown[] = []) {
      if (checked) open();
      const r = await q.query<T>(sql, params as unknown[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  const base = wrap(lite, true);
  return {
    kind: 'pglite',
    get closed() {
      return closed;
    },
    query: base.query,
    // A transaction begun before close() ends as it would have: the PGlite ends after it.
    transaction: async (fn) => {
      open();
      return lite.transaction((tx) => fn(wrap(tx, false)));
    },
    exec: async (sql) => {
      open();
      await lite.exec(sql);
    },
    // Once: a second close() waits for the first (a PGlite kept twice would serve two stores).
    close: () => {
      closed = true;
      ending ??= end().finally(after);
      return ending;
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
