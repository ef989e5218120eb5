#!/usr/bin/env -S npx tsx
/**
 * Socket load: CLIENTS concurrent widget connections in rooms of two, each
 * sending a text every INTERVAL ms (random phase) for DURATION s, driven from
 * this process against the service in a second process on loopback.
 *
 * The service runs in a child process (this file with `--serve`, in-memory
 * PGlite by default, PostgreSQL when DATABASE_URL is set). It makes one widget,
 * CLIENTS/2 direct rooms and a session token per user, and reports its memory
 * over IPC (after a forced GC) before and after the clients connect.
 *
 * This process connects every client (socket.io-client, websocket), then each
 * client sends `message:send` with a fresh UUID; its room partner must receive
 * `message:new` with that id exactly once. Measured:
 *   - delivery latency: send -> the partner's `message:new` (same clock), p50/p99;
 *   - ack latency: send -> the acknowledgement, p50/p99;
 *   - messages/s stored (acked) and delivered;
 *   - memory per connection (service RSS and heap growth / CLIENTS);
 *   - lost (acked but never delivered to the partner after a drain period),
 *     duplicated (delivered more than once), failed acks, disconnects.
 * Budgets (bench/budgets.json, socketLoad): p99 delivery latency, lost,
 * duplicated (and failed acks, disconnects) must hold, or the run exits 1.
 *
 * Env (defaults from budgets.json): SOCKET_LOAD_CLIENTS (2000),
 * SOCKET_LOAD_DURATION_S (30), SOCKET_LOAD_INTERVAL_MS (10000),
 * SOCKET_LOAD_DRAIN_MS (5000); SOCKET_LOAD_DB_STATS=1 prints storage timings,
 * SOCKET_LOAD_PROFILE=1 writes a CPU profile of the service's traffic phase to
 * bench/results/socket-load.cpuprofile.
 * Writes bench/results/socket-load.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
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

interface Memory {
  rss: number;
  heapUsed: number;
}
type ToChild = { type: 'setup'; pairs: number } | { type: 'memory' } | { type: 'profile'; on: boolean };
type FromChild =
  | { type: 'ready'; port: number }
  | { type: 'setup'; users: { token: string; roomId: string }[] }
  | { type: 'memory'; memory: Memory; loopDelay: LoopDelay | null };

interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}
const loopDelayOf = (h: IntervalHistogram): LoopDelay => ({
  p50Ms: Math.round(h.percentile(50) / 1e4) / 100,
  p99Ms: Math.round(h.percentile(99) / 1e4) / 100,
  maxMs: Math.round(h.max / 1e4) / 100,
});

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await drive();
}

/* ---------------- the service process ---------------- */

async function serve(): Promise<void> {
  const { buildApp } = await import('../server/app.ts');
  const { liveOf } = await import('../server/live/index.ts');
  // PostgreSQL: a schema of its own, dropped when the run ends.
  let databaseUrl = process.env['DATABASE_URL'] || 'memory://';
  let dropSchema: (() => Promise<void>) | undefined;
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const pg = (await import('pg')).default;
    const schema = `bench_live_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    dropSchema = async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
      await admin.end().catch(() => {});
    };
    const url = new URL(databaseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
  }
  const app = await buildApp({
    databaseUrl,
    scheduler: false,
    seedDemo: false,
    serveStatic: false,
    logger: false,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = addr && typeof addr === 'object' ? addr.port : 0;
  const send = (m: FromChild) => process.send?.(m);
  // Time spent in storage (SOCKET_LOAD_DB_STATS=1), printed when asked for memory.
  const dbStats = { n: 0, ms: 0, max: 0, slow: 0 };
  if (process.env['SOCKET_LOAD_DB_STATS']) {
    const db = app.charla.db as { query: (...a: unknown[]) => Promise<unknown> };
    const orig = db.query.bind(db);
    db.query = async (...a: unknown[]) => {
      const t = performance.now();
      try {
        return await orig(...a);
      } finally {
        const d = performance.now() - t;
        dbStats.n++;
        dbStats.ms += d;
        dbStats.max = Math.max(dbStats.max, d);
        if (d > 50) dbStats.slow++;
      }
    };
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();

  process.on('message', async (raw: ToChild) => {
    if (raw.type === 'profile') {
      // A CPU profile of the traffic phase only (SOCKET_LOAD_PROFILE=1).
      const { Session } = await import('node:inspector/promises');
      const g = globalThis as { __profiler?: InstanceType<typeof Session> };
      if (raw.on) {
        g.__profiler = new Session();
        g.__profiler.connect();
        await g.__profiler.post('Profiler.enable');
        await g.__profiler.post('Profiler.start');
      } else if (g.__profiler) {
        const { profile } = await g.__profiler.post('Profiler.stop');
        const { writeFileSync: write } = await import('node:fs');
        write(join(here, 'results', 'socket-load.cpuprofile'), JSON.stringify(profile));
        g.__profiler.disconnect();
      }
      return;
    }
    if (raw.type === 'memory') {
      if (dbStats.n)
        console.log(
          `  [service] db: ${dbStats.n} queries, mean ${(dbStats.ms / dbStats.n).toFixed(2)} ms, max ${dbStats.max.toFixed(0)} ms, ${dbStats.slow} over 50 ms`,
        );
      Object.assign(dbStats, { n: 0, ms: 0, max: 0, slow: 0 });
      gc?.();
      await new Promise((r) => setTimeout(r, 200));
      gc?.();
      const m = process.memoryUsage();
      const loopDelay = loop.count > 0 ? loopDelayOf(loop) : null;
      loop.reset();
      send({ type: 'memory', memory: { rss: m.rss, heapUsed: m.heapUsed }, loopDelay });
    } else if (raw.type === 'setup') {
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
      const { hashApiKey } = await import('../server/live/session.ts');
      await db.query('INSERT INTO api_keys (widget_id, key_hash) VALUES ($1, $2)', [
        widgetId,
        hashApiKey(key),
      ]);
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
    }
  });
  process.on('disconnect', () => {
    void app
      .close()
      .then(() => dropSchema?.())
      .finally(() => process.exit(0));
  });
  send({ type: 'ready', port });
}

/* ---------------- the driving process ---------------- */

async function drive(): Promise<void> {
  console.log(
    `socket-load: ${CLIENTS} clients, ${CLIENTS / 2} rooms, ${DURATION_S} s, one message per client every ${INTERVAL_MS} ms`,
  );
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--serve'],
    {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: process.env,
    },
  );
  const stop = () => {
    if (child.connected) child.disconnect();
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  };
  try {
    const { port } = await ask(child, null, 'ready');
    const baseUrl = `http://127.0.0.1:${port}`;
    const t0 = performance.now();
    const { users } = await ask(child, { type: 'setup', pairs: CLIENTS / 2 }, 'setup');
    console.log(`  setup: ${users.length} sessions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const memBefore = (await ask(child, { type: 'memory' }, 'memory')).memory;

    // Connect every client.
    const load = new LoadClients(users);
    const tc = performance.now();
    await load.connect(() => baseUrl);
    console.log(`  connected ${users.length} in ${((performance.now() - tc) / 1000).toFixed(1)} s`);
    load.disconnects = 0;
    const memAfter = (await ask(child, { type: 'memory' }, 'memory')).memory;

    // Traffic.
    if (process.env['SOCKET_LOAD_PROFILE']) child.send({ type: 'profile', on: true });
    const driverLoop = monitorEventLoopDelay({ resolution: 10 });
    driverLoop.enable();
    const elapsed = await load.traffic(DURATION_S);
    if (process.env['SOCKET_LOAD_PROFILE']) child.send({ type: 'profile', on: false });
    await new Promise((r) => setTimeout(r, DRAIN_MS));
    load.measuring = false;

    driverLoop.disable();
    const serviceLoop = (await ask(child, { type: 'memory' }, 'memory')).loopDelay;
    const lost = load.lost();
    const { duplicated, ackFailures, disconnects, acked } = load;
    const received = [...load.receivedCount.values()].filter((n) => n >= 1).length;
    const delivery = Float64Array.from(load.deliveryMs).sort();
    const acks = Float64Array.from(load.ackMs).sort();
    const round = (n: number) => Math.round(n * 10) / 10;
    const connections = users.length;

    const budget = {
      p99MaxMs: SOCKET_LOAD.p99MaxMs ?? 100,
      lostMax: SOCKET_LOAD.lostMax ?? 0,
      duplicatedMax: SOCKET_LOAD.duplicatedMax ?? 0,
    };
    const result = {
      clients: connections,
      rooms: connections / 2,
      durationS: round(elapsed),
      intervalMs: INTERVAL_MS,
      database: process.env['DATABASE_URL'] ? 'postgres' : 'pglite (memory)',
      sent: load.sent.size + ackFailures,
      acked,
      delivered: received,
      messagesPerSecond: round(acked / elapsed),
      deliveryLatencyMs: {
        p50: round(percentile(delivery, 50)),
        p99: round(percentile(delivery, 99)),
        max: round(delivery[delivery.length - 1] ?? NaN),
      },
      ackLatencyMs: { p50: round(percentile(acks, 50)), p99: round(percentile(acks, 99)) },
      memoryPerConnectionBytes: {
        rss: Math.round((memAfter.rss - memBefore.rss) / connections),
        heap: Math.round((memAfter.heapUsed - memBefore.heapUsed) / connections),
      },
      serviceMemory: { before: memBefore, afterConnect: memAfter },
      // How late each process's event loop ran during the traffic (CPU contention shows here).
      eventLoopDelay: { service: serviceLoop, driver: loopDelayOf(driverLoop) },
      loadAverage: (await import('node:os')).loadavg().map((x) => Math.round(x * 100) / 100),
      cpus: (await import('node:os')).cpus().length,
      lost,
      duplicated,
      ackFailures,
      disconnects,
      budget,
      at: new Date().toISOString(),
    };
    const failures: string[] = [];
    if (!(result.deliveryLatencyMs.p99 <= budget.p99MaxMs))
      failures.push(`p99 ${result.deliveryLatencyMs.p99} ms > ${budget.p99MaxMs} ms`);
    if (lost > budget.lostMax) failures.push(`${lost} lost`);
    if (duplicated > budget.duplicatedMax) failures.push(`${duplicated} duplicated`);
    if (ackFailures > 0) failures.push(`${ackFailures} failed acks`);
    if (disconnects > 0) failures.push(`${disconnects} disconnects`);
    const pass = failures.length === 0;
    mkdirSync(join(here, 'results'), { recursive: true });
    writeFileSync(
      join(here, 'results', 'socket-load.json'),
      JSON.stringify({ ...result, pass, failures }, null, 2) + '\n',
    );

    load.close();
    console.table({
      'messages/s (stored)': result.messagesPerSecond,
      'delivery p50 ms': result.deliveryLatencyMs.p50,
      'delivery p99 ms': result.deliveryLatencyMs.p99,
      'ack p99 ms': result.ackLatencyMs.p99,
      'memory/connection (RSS, KB)': round(result.memoryPerConnectionBytes.rss / 1024),
      'memory/connection (heap, KB)': round(result.memoryPerConnectionBytes.heap / 1024),
      lost,
      duplicated,
      'failed acks': ackFailures,
      'service loop delay p99 ms': serviceLoop?.p99Ms ?? NaN,
      'driver loop delay p99 ms': result.eventLoopDelay.driver.p99Ms,
      'load average (1 min)': result.loadAverage[0],
    });
    console.log(pass ? 'socket-load: within budget' : `socket-load: OVER BUDGET: ${failures.join('; ')}`);
    stop();
    process.exit(pass ? 0 : 1);
  } catch (err) {
    console.error('socket-load failed:', err);
    stop();
    process.exit(1);
  }
}
