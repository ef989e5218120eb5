/**
 * What the cluster tests share: the PostgreSQL and Redis they need (never
 * skipped: missing ones fail with how to start them), a fresh database per
 * test file, service processes spawned as children, and a Redis restart.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createClient } from 'redis';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVICES = `${ROOT}.ci/services.sh`;

export interface Services {
  databaseUrl: string;
  redisUrl: string;
}

/** DATABASE_URL and REDIS_URL, or a failure that says how to get them. */
export function requireServices(): Services {
  const databaseUrl = process.env['DATABASE_URL'];
  const redisUrl = process.env['REDIS_URL'];
  const missing = [
    !databaseUrl || !/^postgres(ql)?:\/\//.test(databaseUrl) ? 'DATABASE_URL (postgres://…)' : null,
    !redisUrl || !/^rediss?:\/\//.test(redisUrl) ? 'REDIS_URL (redis://…)' : null,
  ].filter(Boolean);
  if (missing.length > 0 || !databaseUrl || !redisUrl) {
    throw new Error(
      `The cluster tests need a real PostgreSQL and Redis: ${missing.join(' and ')} not set.\n` +
        'Start throwaway ones on loopback with:  eval "$(.ci/services.sh start)"\n' +
        'then run:  CHARLA_CLUSTER_TESTS=1 npx vitest run --project cluster',
    );
  }
  return { databaseUrl, redisUrl };
}

/** A new empty database on the same server, dropped by the returned function. */
export async function freshDatabase(
  databaseUrl: string,
  label: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `charla_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`.toLowerCase();
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Runs one query on a database and closes the connection. */
export async function sql<T = Record<string, unknown>>(
  databaseUrl: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it returns true or `timeoutMs` passes (then throws `what`). */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  everyMs = 50,
) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export interface Node {
  name: string;
  port: number;
  url: string;
  child: ChildProcess;
  /** Everything the process printed (for failure messages). */
  output(): string;
  /** SIGTERM and wait for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** SIGKILL: no cleanup, no goodbye. */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

export interface NodeOptions {
  name: string;
  databaseUrl: string;
  redisUrl?: string | undefined;
  port?: number;
  env?: Record<string, string>;
}

/** One service process, `node --import tsx server/main.ts`, as a child; resolves once it listens. */
export async function startNode(options: NodeOptions): Promise<Node> {
  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NODE_ENV: 'test',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseUrl,
    CHARLA_INSTANCE_ID: options.name,
    CHARLA_SEED_DEMO: '0',
    CHARLA_SERVE_STATIC: '0',
    LOG_LEVEL: 'warn',
    DATABASE_POOL_SIZE: '5',
    ...options.env,
  };
  if (options.redisUrl) env['REDIS_URL'] = options.redisUrl;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const node: Node = {
    name: options.name,
    port,
    url,
    child,
    output: () => out,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
  let dead = false;
  void exited.then(() => (dead = true));
  try {
    await waitFor(
      `${options.name} to listen on ${url}`,
      async () => {
        if (dead) throw new Error(`${options.name} exited before listening:\n${out.slice(-4000)}`);
        try {
          const r = await fetch(`${url}/v1/openapi.json`, { signal: AbortSignal.timeout(1000) });
          await r.arrayBuffer();
          return r.status > 0;
        } catch {
          return false;
        }
      },
      60_000,
      200,
    );
  } catch (err) {
    await node.kill();
    throw err;
  }
  return node;
}

function redisCli(redisUrl: string) {
  const u = new URL(redisUrl);
  const port = u.port || '6379';
  const host = u.hostname || '127.0.0.1';
  return {
    host,
    port,
    run: (...args: string[]) =>
      spawnSync('redis-cli', ['-h', host, '-p', port, ...args], { encoding: 'utf8' }),
  };
}

/** Stops the Redis at `redisUrl` with nothing kept (shutdown nosave); resolves once it no longer answers. */
export async function stopRedis(redisUrl: string): Promise<void> {
  const cli = redisCli(redisUrl);
  cli.run('shutdown', 'nosave');
  await waitFor('redis to stop', () => cli.run('ping').stdout.trim() !== 'PONG', 10_000);
}

/**
 * Starts the Redis at `redisUrl` again, empty. Uses .ci/services.sh when it
 * started that Redis, else redis-server. Resolves once Redis answers.
 */
export async function startRedis(redisUrl: string): Promise<void> {
  const cli = redisCli(redisUrl);
  const ours =
    existsSync(SERVICES) &&
    spawnSync('bash', [SERVICES, 'env'], { encoding: 'utf8' }).stdout.includes(`:${cli.port}`);
  if (ours) {
    const r = spawnSync('bash', [SERVICES, 'restart-redis', cli.port], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`restart-redis failed: ${r.stderr}`);
  } else {
    const r = spawnSync(
      'redis-server',
      ['--daemonize', 'yes', '--bind', cli.host, '--port', cli.port, '--save', '', '--appendonly', 'no'],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`redis-server failed: ${r.stderr}`);
  }
  await waitFor('redis to answer', () => cli.run('ping').stdout.trim() === 'PONG', 10_000);
}

/** Stops Redis, keeps it down `downMs`, starts it again (empty). */
export async function restartRedis(redisUrl: string, downMs = 500): Promise<void> {
  await stopRedis(redisUrl);
  await sleep(downMs);
  await startRedis(redisUrl);
}

const redisClient = (url: string) => createClient({ url });
export type RedisConnection = ReturnType<typeof redisClient>;

/** A short-lived Redis connection (checks in tests). */
export async function withRedis<T>(redisUrl: string, fn: (c: RedisConnection) => Promise<T>): Promise<T> {
  const c = redisClient(redisUrl);
  c.on('error', () => {});
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}
