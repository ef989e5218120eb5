#!/usr/bin/env -S npx tsx
/**
 * The socket load run (bench/socket-load.ts) across service processes: the
 * same traffic — CLIENTS widget connections in rooms of two, one text per
 * client every INTERVAL ms for DURATION s — against
 *   1. one service process on PostgreSQL (the baseline on the same storage), then
 *   2. two service processes on the same PostgreSQL and one Redis (the Streams
 *      adapter), each room split so one member is on each process: every
 *      message crosses processes through Redis.
 * Each service is a child process of this file (`--serve`), the clients are
 * driven from this process, all on loopback.
 *
 * Measured per run: messages/s stored, delivery latency (send -> the partner's
 * `message:new`) p50/p99, ack latency p50/p99, service memory per connection
 * (all processes' RSS growth / clients), lost (acked, never delivered after a
 * drain), duplicated, failed acks, disconnects.
 *
 * Needs DATABASE_URL (postgres://) and REDIS_URL (`eval "$(.ci/services.sh start)"`);
 * without them it prints "skipped" and exits 0. Each run uses a database of its
 * own, created and dropped on the server DATABASE_URL names.
 *
 * Env (defaults from budgets.json socketLoad, as the single-process run):
 * SOCKET_LOAD_CLIENTS (2000), SOCKET_LOAD_DURATION_S (30),
 * SOCKET_LOAD_INTERVAL_MS (10000), SOCKET_LOAD_DRAIN_MS (5000),
 * SOCKET_LOAD_CLUSTER_RUNS ("1,2": which process counts to run).
 * Budgets: bench/budgets.json socketLoad (p99, lost, duplicated) for every run.
 * Writes bench/results/socket-load-cluster.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  asker,
  CLIENTS,
  DRAIN_MS,
  DURATION_S,
  INTERVAL_MS,
  LoadClients,
  percentile,
  SOCKET_LOAD,
} from './lib/socket-load-common.ts';

const here = dirname(fileURLToPath(import.meta.url));
/** Request/answer over the service child's IPC channel. */
const ask = asker<FromChild, ToChild>();
const root = join(here, '..');

const RUNS = (process.env['SOCKET_LOAD_CLUSTER_RUNS'] ?? '1,2')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => n === 1 || n === 2);

interface Memory {
  rss: number;
  heapUsed: number;
}
type ToChild = { type: 'setup'; pairs: number } | { type: 'memory' };
type FromChild =
  | { type: 'ready'; port: number }
  | { type: 'setup'; users: { token: string; roomId: string }[] }
  | { type: 'memory'; memory: Memory };

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await main();
}

/* ---------------- a service process ---------------- */

async function serve(): Promise<void> {
  const { buildApp } = await import('../server/app.ts');
  const { liveOf } = await import('../server/live/index.ts');
  const { hashApiKey } = await import('../server/live/session.ts');
  const app = await buildApp({
    databaseUrl: process.env['DATABASE_URL'],
    redisUrl: process.env['REDIS_URL'] || undefined,
    instanceId: process.env['CHARLA_INSTANCE_ID'] ?? `bench:${process.pid}`,
    scheduler: false,
    seedDemo: false,
    serveStatic: false,
    logger: { level: 'warn' },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = addr && typeof addr === 'object' ? addr.port : 0;
  const send = (m: FromChild) => process.send?.(m);
  const gc = (globalThis as { gc?: () => void }).gc;

  process.on('message', async (raw: ToChild) => {
    if (raw.type === 'memory') {
      gc?.();
      await new Promise((r) => setTimeout(r, 200));
      gc?.();
      const m = process.memoryUsage();
      send({ type: 'memory', memory: { rss: m.rss, heapUsed: m.heapUsed } });
      return;
    }
    // Setup: a widget and its key, one direct room per pair, a session per user.
    // Sessions are signed with the shared signing key: valid on every process.
    const { db, config } = app.charla;
    const live = liveOf(app);
    const botId = `bench-bot-${randomUUID()}`;
    const widgetId = `bench-widget-${randomUUID()}`;
    await db.query('INSERT INTO bots (id, company_id, name) VALUES ($1, $2, $3)', [
      botId,
      config.companyId,
      'Bench',
    ]);
    await db.query('INSERT INTO widgets (id, bot_id, company_id, config) VALUES ($1, $2, $3, $4::jsonb)', [
      widgetId,
      botId,
      config.companyId,
      JSON.stringify({ properties: { type: 'normal' }, theme: {}, credentials: {} }),
    ]);
    const key = `bench-${randomUUID()}`;
    await db.query('INSERT INTO api_keys (widget_id, key_hash) VALUES ($1, $2)', [widgetId, hashApiKey(key)]);
    const access = await live.sessions.accessByKey(key);
    const users: { token: string; roomId: string }[] = [];
    for (let i = 0; i < raw.pairs; i++) {
      const a = { id: `a${i}-${randomUUID().slice(0, 8)}`, names: `A ${i}` };
      const b = { id: `b${i}-${randomUUID().slice(0, 8)}`, names: `B ${i}` };
      const { roomId } = await live.messaging.rooms.openDirect(config.companyId, a, b);
      users.push({ token: live.sessions.issue(access, a.id).token, roomId });
      users.push({ token: live.sessions.issue(access, b.id).token, roomId });
    }
    send({ type: 'setup', users });
  });
  process.on('disconnect', () => {
    void app.close().finally(() => process.exit(0));
  });
  send({ type: 'ready', port });
}

/* ---------------- the driver ---------------- */

async function withPg<T>(url: string, fn: (c: import('pg').Client) => Promise<T>): Promise<T> {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function main(): Promise<void> {
  const databaseUrl = process.env['DATABASE_URL'] ?? '';
  const redisUrl = process.env['REDIS_URL'] ?? '';
  if (!/^postgres(ql)?:\/\//.test(databaseUrl) || !/^rediss?:\/\//.test(redisUrl)) {
    console.log(
      'socket-load-cluster: skipped: needs DATABASE_URL and REDIS_URL (start them with: eval "$(.ci/services.sh start)")',
    );
    process.exit(0);
  }
  const budget = {
    p99MaxMs: SOCKET_LOAD.p99MaxMs ?? 100,
    lostMax: SOCKET_LOAD.lostMax ?? 0,
    duplicatedMax: SOCKET_LOAD.duplicatedMax ?? 0,
  };
  console.log(
    `socket-load-cluster: ${CLIENTS} clients, ${CLIENTS / 2} rooms, ${DURATION_S} s, one message per client every ${INTERVAL_MS} ms; runs: ${RUNS.join(', ')} process(es)`,
  );
  const results: Record<string, unknown>[] = [];
  const failures: string[] = [];
  for (const nodes of RUNS) {
    const r = await runOnce(nodes, databaseUrl, redisUrl, budget);
    results.push(r.result);
    failures.push(...r.failures.map((f) => `${nodes} process(es): ${f}`));
  }
  const row = (r: Record<string, unknown>) => {
    const d = r['deliveryLatencyMs'] as { p50: number; p99: number };
    const a = r['ackLatencyMs'] as { p99: number };
    const m = r['memoryPerConnectionBytes'] as { rss: number };
    return {
      'messages/s': r['messagesPerSecond'],
      'delivery p50 ms': d.p50,
      'delivery p99 ms': d.p99,
      'ack p99 ms': a.p99,
      'RSS/conn KB': Math.round(m.rss / 102.4) / 10,
      lost: r['lost'],
      duplicated: r['duplicated'],
      'failed acks': r['ackFailures'],
    };
  };
  console.table(Object.fromEntries(results.map((r) => [String(r['label']), row(r)])));
  const pass = failures.length === 0;
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(
    join(here, 'results', 'socket-load-cluster.json'),
    JSON.stringify(
      {
        clients: CLIENTS,
        durationS: DURATION_S,
        intervalMs: INTERVAL_MS,
        budget,
        runs: results,
        pass,
        failures,
        at: new Date().toISOString(),
      },
      null,
      2,
    ) + '\n',
  );
  console.log(
    pass ? 'socket-load-cluster: within budget' : `socket-load-cluster: OVER BUDGET: ${failures.join('; ')}`,
  );
  process.exit(pass ? 0 : 1);
}

async function runOnce(
  nodes: number,
  databaseUrl: string,
  redisUrl: string,
  budget: { p99MaxMs: number; lostMax: number; duplicatedMax: number },
): Promise<{ result: Record<string, unknown>; failures: string[] }> {
  const label = nodes === 1 ? '1 process (PostgreSQL)' : `${nodes} processes (PostgreSQL + Redis)`;
  console.log(`\n== ${label}`);

  // A database of its own, dropped afterwards.
  const dbName = `charla_bench_${randomBytes(4).toString('hex')}`;
  await withPg(databaseUrl, (c) => c.query(`CREATE DATABASE ${dbName}`));
  const dbUrl = new URL(databaseUrl);
  dbUrl.pathname = `/${dbName}`;

  const children: ChildProcess[] = [];
  const stopAll = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            if (child.connected) child.disconnect();
            setTimeout(() => child.kill('SIGKILL'), 5000).unref();
          }),
      ),
    );
    await withPg(databaseUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)).catch(
      () => {},
    );
  };
  try {
    const ports: number[] = [];
    // One after the other: the first runs the migrations on the empty database.
    for (let n = 0; n < nodes; n++) {
      const child = spawn(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--serve'],
        {
          cwd: root,
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          env: {
            ...process.env,
            DATABASE_URL: dbUrl.toString(),
            REDIS_URL: nodes > 1 ? redisUrl : '',
            CHARLA_INSTANCE_ID: `bench-${n}`,
          },
        },
      );
      children.push(child);
      ports.push((await ask(child, null, 'ready')).port);
    }
    const first = children[0] as ChildProcess;
    const t0 = performance.now();
    const { users } = await ask(first, { type: 'setup', pairs: CLIENTS / 2 }, 'setup');
    console.log(`  setup: ${users.length} sessions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const memory = async () =>
      Promise.all(children.map(async (c) => (await ask(c, { type: 'memory' }, 'memory')).memory));
    const memBefore = await memory();

    // The two members of a room (indexes 2k and 2k+1) go to different processes.
    const load = new LoadClients(users);
    const tc = performance.now();
    await load.connect((index) => `http://127.0.0.1:${ports[index % nodes]}`);
    console.log(
      `  connected ${users.length} in ${((performance.now() - tc) / 1000).toFixed(1)} s to ${nodes} process(es)`,
    );
    load.disconnects = 0;
    const memAfter = await memory();
    // Let every adapter's stream reader settle before measuring.
    await new Promise((r) => setTimeout(r, 500));

    const elapsed = await load.traffic(DURATION_S);
    await new Promise((r) => setTimeout(r, DRAIN_MS));
    load.measuring = false;

    const lost = load.lost();
    const { duplicated, ackFailures, disconnects, acked } = load;
    const delivery = Float64Array.from(load.deliveryMs).sort();
    const acks = Float64Array.from(load.ackMs).sort();
    const round = (n: number) => Math.round(n * 10) / 10;
    const sum = (ms: Memory[], k: keyof Memory) => ms.reduce((t, m) => t + m[k], 0);
    const result = {
      label,
      processes: nodes,
      crossProcessShare: nodes > 1 ? 1 : 0,
      clients: users.length,
      rooms: users.length / 2,
      durationS: round(elapsed),
      intervalMs: INTERVAL_MS,
      database: 'postgres',
      redis: nodes > 1,
      sent: load.sent.size + ackFailures,
      acked,
      delivered: [...load.receivedCount.values()].filter((n) => n >= 1).length,
      messagesPerSecond: round(acked / elapsed),
      deliveryLatencyMs: {
        p50: round(percentile(delivery, 50)),
        p99: round(percentile(delivery, 99)),
        max: round(delivery[delivery.length - 1] ?? NaN),
      },
      ackLatencyMs: { p50: round(percentile(acks, 50)), p99: round(percentile(acks, 99)) },
      memoryPerConnectionBytes: {
        rss: Math.round((sum(memAfter, 'rss') - sum(memBefore, 'rss')) / users.length),
        heap: Math.round((sum(memAfter, 'heapUsed') - sum(memBefore, 'heapUsed')) / users.length),
      },
      serviceMemory: { before: memBefore, afterConnect: memAfter },
      lost,
      duplicated,
      ackFailures,
      disconnects,
    };
    const failures: string[] = [];
    if (!(result.deliveryLatencyMs.p99 <= budget.p99MaxMs)) {
      failures.push(`p99 ${result.deliveryLatencyMs.p99} ms > ${budget.p99MaxMs} ms`);
    }
    if (lost > budget.lostMax) failures.push(`${lost} lost`);
    if (duplicated > budget.duplicatedMax) failures.push(`${duplicated} duplicated`);
    if (ackFailures > 0) failures.push(`${ackFailures} failed acks`);
    if (disconnects > 0) failures.push(`${disconnects} disconnects`);
    load.close();
    return { result: { ...result, pass: failures.length === 0, failures }, failures };
  } finally {
    await stopAll();
  }
}
