/**
 * `node --import tsx server/main.ts` (as in production) that cannot start stops with one line,
 * "Charla cannot start: …", naming the variable at fault where there is one, and exit code 1; no
 * stack trace (LOG_LEVEL=debug keeps it). A set but unusable DATABASE_URL or REDIS_URL stops the
 * start instead of running on a private store or without the other processes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startMain } from './helpers/main-process.ts';

const dataDir = mkdtempSync('/tmp/fixK-start-failures-');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const PG = /^postgres(ql)?:\/\//.test(process.env['DATABASE_URL'] ?? '')
  ? process.env['DATABASE_URL']
  : undefined;

interface Run {
  code: number | null;
  out: string;
  started: boolean;
}

/** Runs the service with this environment until it exits or says it is running (then stops it), with all it printed. */
function run(env: NodeJS.ProcessEnv, waitFor?: string): Promise<Run> {
  // A fixed port and data directory (some cases take them over), the service's own credentials.
  const main = startMain({
    PORT: '18673',
    CHARLA_DATA_DIR: dataDir,
    // No demo values, so no warning of them: what a failed start prints is all there is.
    CHARLA_CLIENT_ID: 'client',
    CHARLA_CLIENT_SECRET: 'secret',
    CHARLA_COMPANY_TOKEN: 'token',
    CHARLA_SIGNING_SECRET: 'signing',
    ...env,
  });
  const { child } = main;
  let started = false;
  let stopping: NodeJS.Timeout | undefined;
  const stop = () => {
    clearTimeout(stopping);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  // After startMain's own listeners: out() already holds the chunk.
  const keep = () => {
    const out = main.out();
    if (!started && out.includes('Charla is running')) {
      started = true;
      // A line logged during the start may come after this one (the log is asynchronous): it is
      // given a few seconds, then the run stops all the same (and the test says what it missed).
      if (waitFor) stopping = setTimeout(stop, 10_000);
    }
    if (started && (!waitFor || out.includes(waitFor))) stop();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  // startMain waits for 'close', not 'exit': the child's last lines (pino writes its log
  // asynchronously) may still be in the pipe when it exits.
  return main.exited.then(({ code }) => ({ code, out: main.out(), started }));
}

/** A port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The run stopped with one line naming the cause, and no stack trace. */
function refused(result: Run, pattern: RegExp): void {
  expect(result.started, result.out).toBe(false);
  expect(result.code, result.out).toBe(1);
  const lines = result.out.split('\n').filter((l) => l.trim() !== '');
  expect(lines, result.out).toHaveLength(1);
  expect(lines[0]).toMatch(/^Charla cannot start: /);
  expect(lines[0]).toMatch(pattern);
}

// Each start below is given its own environment (never the run's DATABASE_URL): the same with or
// without PostgreSQL, so they run in the embedded pass only (CI's PostgreSQL pass ran them again, 40 s).
describe.skipIf(PG)('a start that cannot succeed stops with one clear line', () => {
  it('a DATABASE_URL that is not PostgreSQL’s (not a private PGlite)', async () => {
    refused(await run({ DATABASE_URL: 'notaurl' }), /DATABASE_URL must be a postgres:\/\/ address/);
  });

  it('a configuration error (DATABASE_POOL_SIZE)', async () => {
    refused(
      await run({ DATABASE_POOL_SIZE: '1' }),
      /DATABASE_POOL_SIZE must be a whole number of at least 2/,
    );
  });

  it('a PostgreSQL nobody answers at, naming DATABASE_URL, host and port', async () => {
    const port = await closedPort();
    refused(
      await run({ DATABASE_URL: `postgres://u:pw@127.0.0.1:${port}/db` }),
      new RegExp(`DATABASE_URL: cannot connect to 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`),
    );
  });

  it('a Redis nobody answers at, naming REDIS_URL (not a process without the others)', async () => {
    const port = await closedPort();
    refused(
      await run({ DATABASE_URL: 'memory://', REDIS_URL: `redis://127.0.0.1:${port}` }),
      new RegExp(`REDIS_URL: cannot connect to 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`),
    );
  });

  it('a port in use, naming PORT', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(18674, '127.0.0.1', resolve));
    try {
      refused(await run({ DATABASE_URL: 'memory://', PORT: '18674' }), /PORT.*18674.*in use/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a HOST that is not this machine’s, naming HOST', async () => {
    refused(
      await run({ DATABASE_URL: 'memory://', HOST: '203.0.113.7' }),
      /HOST: cannot listen on 203\.0\.113\.7/,
    );
  });

  it('a CHARLA_DATA_DIR that is a file, or under one, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'charla-datadir-'));
    try {
      const file = join(dir, 'not-a-dir');
      writeFileSync(file, 'x');
      for (const dataDir of [file, join(file, 'below')])
        refused(
          await run({ CHARLA_DATA_DIR: dataDir, CHARLA_SEED_DEMO: '0' }),
          /CHARLA_DATA_DIR \(.*not-a-dir.*\): (is not a directory|cannot be made)/,
        );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('LOG_LEVEL=debug keeps the stack', async () => {
    const result = await run({ DATABASE_URL: 'notaurl', LOG_LEVEL: 'debug' });
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/^Charla cannot start: DATABASE_URL/);
    expect(result.out).toMatch(/\n\s+at /);
  });
});

describe.skipIf(!PG)('PostgreSQL at the smallest pool (DATABASE_URL set)', () => {
  it('DATABASE_POOL_SIZE=2 starts with the demo seed (its lock holds one connection)', async () => {
    const url = new URL(PG as string);
    const pg = (await import('pg')).default;
    const schema = `t_pool_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      url.searchParams.set('options', `-c search_path=${schema}`);
      const result = await run(
        {
          DATABASE_URL: url.toString(),
          DATABASE_POOL_SIZE: '2',
          CHARLA_SEED_DEMO: '1',
          CHARLA_SCHEDULER: '1',
          LOG_LEVEL: 'info',
        },
        'demo data ready',
      );
      expect(result.started, result.out).toBe(true);
      const widgets = await admin.query(`SELECT count(*)::int AS n FROM ${schema}.widgets`);
      expect(widgets.rows[0].n).toBe(2);
      expect(result.out).toContain('demo data ready');
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});
