/**
 * GET /health and GET /ready, for a load balancer or an orchestrator: no
 * credentials, never cached, not in the interface's document (they are not
 * under /v1/), and not logged per request (a balancer asks every few seconds).
 *
 * - /health (liveness): 200 {"status":"ok"} while the process runs, whatever
 *   its database does; restarting a process does not bring a database back.
 * - /ready (readiness): 200 when the store answers within 2 s, takes writes
 *   and the process is not stopping; else 503 saying which: the database
 *   (down, or slower than that; or read-only: a failover onto a replica, in
 *   recovery or with read-only transactions, where every write would fail; or
 *   the embedded store's disk full, under 8 MB free) or the process (told to stop). From SIGTERM the
 *   process answers 503 here for CHARLA_SHUTDOWN_DELAY_MS while it keeps
 *   serving the rest, then shuts down (server/main.ts); once fastify is
 *   closing, every route answers its own 503 and the port closes.
 *
 * A database that does not answer at all (a host gone) would leave each
 * check's query waiting for a connection: one check runs at a time, and
 * a request arriving while it waits shares it, so a balancer polling an
 * outage does not pile queries up in the pool.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Charla } from '../context.ts';
import { CHECKPOINT_MIN_FREE_BYTES, diskFree } from '../store/reclaim.ts';

/** How long the store has to answer the check. */
export const READY_TIMEOUT_MS = 2_000;

const stopping = new WeakSet<Charla>();

/** This process is stopping: /ready answers 503 from now on (SIGTERM, server/main.ts; app.close()). */
export function markStopping(app: FastifyInstance): void {
  stopping.add(app.charla);
}

/** What the check found: the database down (and why, for the log), read-only, or neither. */
type Probe = { problem: string | null; readOnly: boolean };

/**
 * Answers on both stores: a replica (in recovery) or a database whose transactions are read-only
 * (default_transaction_read_only, as some failovers leave it) takes no write.
 */
const CHECK = `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS read_only`;

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.charla;
  app.addHook('preClose', async () => markStopping(app));

  let running: { since: number; answer: Promise<Probe> } | null = null;
  let was: 'ok' | 'down' | 'read-only' = 'ok';
  /** What the store's answer says: down (and why, for the log, not the body), read-only, or ok. */
  const databaseState = async (): Promise<Probe> => {
    if (!running) {
      const answer: Promise<Probe> = db.query<{ read_only: boolean }>(CHECK).then(
        (r) => ({ problem: null, readOnly: r.rows[0]?.read_only === true }),
        (err: unknown) => ({ problem: `the check failed: ${describe(err)}`, readOnly: false }),
      );
      const check = { since: Date.now(), answer };
      running = check;
      void answer.then(() => {
        if (running === check) running = null;
      });
    }
    const { since, answer } = running;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Probe>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            problem: `no answer to the check for ${Math.round((Date.now() - since) / 100) / 10} s`,
            readOnly: false,
          }),
        Math.max(0, since + READY_TIMEOUT_MS - Date.now()),
      );
    });
    const probe = await Promise.race([answer, late]);
    clearTimeout(timer);
    // Said when it changes, not at every poll.
    const now = probe.problem ? 'down' : probe.readOnly ? 'read-only' : 'ok';
    if (now !== was) {
      if (now === 'down') app.log.warn(`not ready: the database is down (${probe.problem})`);
      else if (now === 'read-only')
        app.log.warn(
          'not ready: the database is read-only (a replica, or read-only transactions): no write would succeed',
        );
      else
        app.log.info(
          was === 'down' ? 'ready again: the database answers' : 'ready again: the database takes writes',
        );
    }
    was = now;
    return probe;
  };

  const { config } = app.charla;
  let wasFull = false;
  /**
   * The embedded store's disk has under 8 MB free: it takes no write (each fails 500) and its
   * upkeep waits (server/store/reclaim.ts). Not asked of PostgreSQL, whose disk is its own host's.
   */
  const diskFull = async (): Promise<boolean> => {
    if (config.databaseUrl) return false;
    const free = await (config.diskFree ?? diskFree)(config.dataDir).catch(() => Number.POSITIVE_INFINITY);
    const full = free < CHECKPOINT_MIN_FREE_BYTES;
    if (full !== wasFull)
      app.log.warn(
        full
          ? `not ready: the embedded store's disk has ${Math.floor(free / 1024)} KB free; no write would succeed`
          : "ready again: the embedded store's disk has room",
      );
    wasFull = full;
    return full;
  };

  const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store');
  app.get('/health', { logLevel: 'warn' }, async (_request, reply) => {
    noStore(reply);
    return { status: 'ok' };
  });
  app.get('/ready', { logLevel: 'warn' }, async (_request, reply) => {
    noStore(reply);
    if (stopping.has(app.charla))
      return reply.code(503).send({ status: 'unavailable', process: 'stopping', database: 'not checked' });
    const [{ problem, readOnly }, full] = await Promise.all([databaseState(), diskFull()]);
    // The check took up to 2 s: the process may have been told to stop meanwhile.
    const stopped = stopping.has(app.charla);
    const unready = problem !== null || readOnly || full || stopped;
    const body = {
      status: unready ? 'unavailable' : 'ready',
      process: stopped ? 'stopping' : 'running',
      database: problem ? 'down' : readOnly ? 'read-only' : full ? 'disk-full' : 'ok',
    };
    return reply.code(unready ? 503 : 200).send(body);
  });
}

/** An error's code and message, for the log (pg's and PGlite's errors alike). */
function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return `${typeof code === 'string' ? `${code} ` : ''}${err.message}`.trim() || err.name;
  }
  return String(err);
}
