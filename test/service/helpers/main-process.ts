/**
 * The service as an operator runs it: `node --import tsx server/main.ts` in a process of its own
 * (signals, exit codes and what it prints are what the tests look at), on an ephemeral port,
 * without the demo seed, static files or the scheduler unless `env` says otherwise; a new
 * embedded store starts from the run's cluster dump (CHARLA_STORE_TEMPLATE).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { until } from './http.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface MainProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** All it printed so far, stdout and stderr. */
  out(): string;
  /** Its exit code (null after a signal it did not handle) and when it came. */
  exited: Promise<{ code: number | null; at: number }>;
  /** The address it prints once running (`the API at http://…/v1/`). */
  baseUrl(timeoutMs?: number): Promise<string>;
  /** SIGKILL unless it has exited already (a test's `finally`). */
  kill(): void;
}

export function startMain(env: NodeJS.ProcessEnv = {}): MainProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      NODE_ENV: 'test',
      PORT: '0',
      CHARLA_SEED_DEMO: '0',
      CHARLA_SERVE_STATIC: '0',
      CHARLA_SCHEDULER: '0',
      LOG_LEVEL: 'warn',
      // A new store (memory:// or a new data directory) loads the run's dump of a cluster with the
      // service's schema, not initdb and every migration.
      CHARLA_STORE_TEMPLATE: inject('pgliteSchemaTemplate'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('close', (code) => resolve({ code, at: Date.now() })),
  );
  return {
    child,
    out: () => out,
    exited,
    baseUrl: (timeoutMs = 30_000) =>
      until(async () => /the API at (http:\/\/[^/\s]+)\/v1\//.exec(out)?.[1], timeoutMs),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
