/** Reads the environment, builds the service and listens. */
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { configFromEnv, configWarnings, type Config } from './config.ts';

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

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

/**
 * A start that failed: one line on stderr, "Charla cannot start: …", naming the variable at fault
 * where it is known, and exit code 1. The stack only with LOG_LEVEL=debug or trace. What was
 * opened (the data directory's lock, the pool) is closed first.
 */
async function cannotStart(err: unknown): Promise<never> {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  const where = config ? `${config.host}:${config.port}` : '';
  let why = e.message;
  if (app && !listening && code === 'EADDRINUSE')
    why = `PORT: ${where} is already in use (EADDRINUSE); stop what listens there or set another PORT`;
  else if (app && !listening && (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'))
    why = `HOST: cannot listen on ${config?.host} (${String(code)}): not an address of this machine`;
  else if (app && !listening && code === 'EACCES')
    why = `PORT: not allowed to listen on ${where} (EACCES); ports below 1024 need privileges`;
  console.error(`Charla cannot start: ${why}`);
  if (['debug', 'trace'].includes(process.env['LOG_LEVEL'] ?? '')) console.error(e.stack);
  await app?.close().catch(() => {});
  process.exit(1);
}
