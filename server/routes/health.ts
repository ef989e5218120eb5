/**
 * GET /health and GET /ready, for a load balancer or an orchestrator: no
 * credentials, never cached, not in the interface's document (they are not
 * under /v1/), and not logged per request (a balancer asks every few seconds).
 *
 * - /health (liveness): 200 {"status":"ok"} while the process runs, whatever
 *   its database does; restarting a process does not bring a database back.
 * - /ready (readiness): 200 when a `SELECT 1` on the store answers within
 *   2 s and the process is not stopping; else 503 saying which: the database
 *   (down, or slower than that) or the process (told to stop). From SIGTERM the
 *   process answers 503 here for CHARLA_SHUTDOWN_DELAY_MS while it keeps
 *   serving the rest, then shuts down (server/main.ts); once fastify is
 *   closing, every route answers its own 503 and the port closes.
 *
 * A database that does not answer at all (a host gone) would leave each
 * check's `SELECT 1` waiting for a connection: one check runs at a time, and
 * a request arriving while it waits shares it, so a balancer polling an
 * outage does not pile queries up in the pool.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Charla } from '../context.ts';

/** How long the store has to answer `SELECT 1`. */
export const READY_TIMEOUT_MS = 2_000;

const stopping = new WeakSet<Charla>();

/** This process is stopping: /ready answers 503 from now on (SIGTERM, server/main.ts; app.close()). */
export function markStopping(app: FastifyInstance): void {
  stopping.add(app.charla);
}

type Probe = { problem: string | null };

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.charla;
  app.addHook('preClose', async () => markStopping(app));

  let running: { since: number; answer: Promise<Probe> } | null = null;
  let wasDown = false;
  /** null when the store answered `SELECT 1` in time; else what went wrong (for the log, not the body). */
  const databaseProblem = async (): Promise<string | null> => {
    if (!running) {
      const answer: Promise<Probe> = db.query('SELECT 1').then(
        () => ({ problem: null }),
        (err: unknown) => ({ problem: `SELECT 1 failed: ${describe(err)}` }),
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
          resolve({ problem: `no answer to SELECT 1 for ${Math.round((Date.now() - since) / 100) / 10} s` }),
        Math.max(0, since + READY_TIMEOUT_MS - Date.now()),
      );
    });
    const { problem } = await Promise.race([answer, late]);
    clearTimeout(timer);
    // Said when it changes, not at every poll.
    if (problem && !wasDown) app.log.warn(`not ready: the database is down (${problem})`);
    if (!problem && wasDown) app.log.info('ready again: the database answers');
    wasDown = problem !== null;
    return problem;
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
    const problem = await databaseProblem();
    // The check took up to 2 s: the process may have been told to stop meanwhile.
    const stopped = stopping.has(app.charla);
    const body = {
      status: problem || stopped ? 'unavailable' : 'ready',
      process: stopped ? 'stopping' : 'running',
      database: problem ? 'down' : 'ok',
    };
    return reply.code(problem || stopped ? 503 : 200).send(body);
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
