/** Reads the environment, builds the service and listens. */
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { configFromEnv, configWarnings, type Config } from './config.ts';
import { markStopping } from './routes/health.ts';

let config: Config | undefined;
let app: FastifyInstance | undefined;
let listening = false;
try {
  config = configFromEnv();
  // Before the migrations: a process that cannot reach the others' Redis must not start alone.
  if (config.redisUrl) await (await import('./scale/redis-adapter.ts')).checkRedis(config.redisUrl);
  app = await buildApp(config);
  for (const warning of configWarnings(config)) app.log.warn(warning);
  await app.listen({ port: config.port, host: config.host });
  listening = true;
} catch (err) {
  await cannotStart(err);
}
if (!app || !config || !listening) throw new Error('unreachable');
// Told to stop, the process says so on GET /ready (503) at once; with CHARLA_SHUTDOWN_DELAY_MS it
// keeps serving that long, so a balancer polling /ready stops sending before the port closes. A
// second signal stops without waiting: during the delay it starts the shutdown, and once the
// shutdown runs it ends the process at once (a close held by a database that stopped answering, or
// by responses still being written, kept the process alive whatever the operator sent).
let shutdown: 'no' | 'delayed' | 'closing' = 'no';
let delay: NodeJS.Timeout | undefined;
const close = () => {
  clearTimeout(delay);
  shutdown = 'closing';
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
/**
 * A signal again within this many ms of the one before is the same one delivered twice: a stop sent
 * to the process group (Ctrl+C in a terminal, `kill -- -PGID`, systemd's control-group stop) reaches
 * this process directly and again through `npm start`'s relay (npm, then tsx), which stopped it at
 * once, with no shutdown, as if asked twice. An operator's second signal comes later than this.
 */
const REPEAT_MS = 250;
let lastSignalAt = -Infinity;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // Counted from the first of a burst: signals sent every 200 ms on a hung shutdown still stop it.
    const at = performance.now();
    if (at - lastSignalAt < REPEAT_MS) return;
    lastSignalAt = at;
    if (shutdown === 'closing') {
      app.log.warn(
        `${signal} while shutting down: stopping at once, without waiting for the shutdown to end`,
      );
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    }
    if (shutdown === 'delayed' || config.shutdownDelayMs === 0) return close();
    markStopping(app);
    shutdown = 'delayed';
    app.log.info(
      `${signal}: /ready answers 503; stopping in ${config.shutdownDelayMs} ms (CHARLA_SHUTDOWN_DELAY_MS)`,
    );
    delay = setTimeout(close, config.shutdownDelayMs);
  });
}

// Said once the signals are handled (a supervisor may stop the process as soon as it reads this).
// The address the service signs its own media for (CHARLA_PUBLIC_URL, else the host and port it
// listens on): opened under another name (localhost for 127.0.0.1), the demo bot's pictures and
// sounds would be another origin than the page, which its Content-Security-Policy refuses.
const shown = app.charla.baseUrlFor();
// Without the static files (CHARLA_SERVE_STATIC=0) there are no pages to open here: the API's address.
console.log(
  !config.serveStatic
    ? `\n  Charla is running: the API at ${shown}/v1/ (no pages: CHARLA_SERVE_STATIC=0)\n`
    : config.seedDemo
      ? `\n  Charla is running: open ${shown}/\n  QA console: ${shown}/console.html\n`
      : `\n  Charla is running: the API at ${shown}/v1/, the widget at ${shown}/charla.js (no demo pages without the demo data)\n`,
);

/**
 * A start that failed: one line on stderr, "Charla cannot start: …", naming the variable at fault
 * where it is known, and exit code 1. The stack only with LOG_LEVEL=debug or trace. What was
 * opened (the data directory's lock, the pool) is closed first.
 */
async function cannotStart(err: unknown): Promise<never> {
  const e = err instanceof Error ? err : new Error(describe(err));
  const code = (e as { code?: unknown }).code ?? (err as { code?: unknown } | null)?.code;
  const where = config ? `${config.host}:${config.port}` : '';
  let why = e.message;
  const store = config && !config.databaseUrl ? dataDirProblem(e, config.dataDir) : null;
  if (app && !listening && code === 'EADDRINUSE')
    why = `PORT: ${where} is already in use (EADDRINUSE); stop what listens there or set another PORT`;
  else if (app && !listening && (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'))
    why = `HOST: cannot listen on ${config?.host} (${String(code)}): not an address of this machine`;
  else if (app && !listening && code === 'EACCES')
    why = `PORT: not allowed to listen on ${where} (EACCES); ports below 1024 need privileges`;
  else if (store) why = store;
  console.error(`Charla cannot start: ${why}`);
  if (['debug', 'trace'].includes(process.env['LOG_LEVEL'] ?? '')) console.error(e.stack);
  await app?.close().catch(() => {});
  process.exit(1);
}

/** A thrown value that is not an Error (the embedded store throws plain objects): its message, else its JSON. */
function describe(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const message = (err as { message?: unknown }).message;
    if (typeof message === 'string' && message) return message;
    try {
      return JSON.stringify(err).slice(0, 500);
    } catch {
      // A cycle: what String() says.
    }
  }
  return String(err);
}

/**
 * A start the embedded store's directory stopped, said in its terms, naming CHARLA_DATA_DIR: no
 * space left, not writable, not a directory (the store's own words were "[object Object]",
 * "PGlite failed to initialize properly" or an mkdir's EEXIST). Null for anything else.
 */
function dataDirProblem(e: Error, dir: string): string | null {
  const code = String((e as { code?: unknown }).code ?? '');
  const errno = (e as { errno?: unknown }).errno;
  const text = `${code} ${e.message}`;
  const at = `CHARLA_DATA_DIR (${dir})`;
  if (code === 'ENOSPC' || errno === 28 || /no space left|ENOSPC/i.test(text))
    return `${at}: no space left on its disk (ENOSPC); free some space or choose another directory`;
  // The file system's answers about a path in the data directory (not the port's, nor another file's).
  const path = String((e as { path?: unknown }).path ?? '');
  const there = [resolve(dir)].some((d) => e.message.includes(d) || path.startsWith(d));
  if (there && (['EROFS', 'EACCES', 'EPERM'].includes(code) || /read-only file system/i.test(text)))
    return `${at}: cannot write there (${code || 'read-only'}); choose a writable directory`;
  if (there && ['EEXIST', 'ENOTDIR'].includes(code))
    return `${at}: is not a directory (${code}); give a directory's path`;
  if (there && code === 'ENOENT')
    return `${at}: cannot be made (ENOENT; a read-only disk, or a parent that is not a directory); choose a writable directory`;
  if (/PGlite failed to initialize/i.test(e.message))
    return `${at}: the embedded store could not start (${e.message}); check that its disk has free space, the directory is writable and its files are whole (not damaged or partly restored)`;
  return null;
}
