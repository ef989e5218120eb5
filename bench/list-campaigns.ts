#!/usr/bin/env -S npx tsx
/**
 * List-campaigns benchmark: GET /v1/campaigns with 100,000 campaigns stored,
 * under load from a second process on loopback.
 *
 * The service runs in a child process (this file with `--serve`): in-memory
 * PGlite by default, PostgreSQL when DATABASE_URL is set (in a schema of its
 * own, dropped afterwards). It stores 100,000 campaigns with one
 * generate_series INSERT (100 bots × 1,000 campaigns over one year, five
 * statuses, twenty element names), then listens on 127.0.0.1.
 *
 * This process drives it with autocannon, varying the query per request (bot,
 * a 90-day createdAt window, page 1–5, sometimes a status or elementName
 * filter, sometimes limit 50), after a warm-up of WARMUP_S seconds with the
 * same connections:
 *   1. throughput: a closed loop of CONNECTIONS connections for DURATION s —
 *      requests/s, p50, p99;
 *   2. paced: the same mix at 70 % of the measured requests/s — p50, p99.
 * The budget (bench/budgets.json, listCampaigns.p99MaxMs) applies to the p99
 * of the paced run: the latency at the measured rate, not at overload.
 * Writes bench/results/list-campaigns.json; exits non-zero over budget.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const CAMPAIGNS = 100_000;
const BOTS = 100;
/** Seconds of load before the throughput run, so the rate it measures (and paces from) is the warm server's. */
const WARMUP_S = 5;
const BASIC = `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`;

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await drive();
}

async function serve(): Promise<void> {
  const { buildApp } = await import('../server/app.ts');
  let databaseUrl = process.env['DATABASE_URL'] || 'memory://';
  let schema: string | undefined;
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const pg = (await import('pg')).default;
    schema = `bench_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(`CREATE SCHEMA ${schema}`);
    await c.end();
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
    clientId: 'demo-client',
    clientSecret: 'demo-secret',
  });
  const started = performance.now();
  await app.charla.db.query(
    `INSERT INTO campaigns (id, company_id, name, element_name, bot_id, status, message, total_messages,
       delivered_messages, failed_messages, created_at, completed_at)
     SELECT 'bench-' || g, 'company-1', 'Campaign ' || g, 'element-' || (g % 20), 'bench-bot-' || (g % ${BOTS}),
       (ARRAY['COMPLETED','PENDING','IN_PROGRESS','SCHEDULED','CANCELLED'])[1 + (g / ${BOTS}) % 5],
       '{"type":"text","text":"Hola"}'::jsonb, 100, 90, 10,
       timestamptz '2025-01-01T00:00:00Z' + g * interval '315 seconds',
       CASE WHEN (g / ${BOTS}) % 5 = 0 THEN timestamptz '2025-01-01T01:00:00Z' + g * interval '315 seconds' END
     FROM generate_series(1, ${CAMPAIGNS}) AS g`,
  );
  // Steady state: statistics fresh and the visibility map set (index-only counts).
  await app.charla.db.query('VACUUM ANALYZE campaigns');
  const seedMs = performance.now() - started;
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const count = (await app.charla.db.query<{ n: string }>('SELECT count(*) AS n FROM campaigns')).rows[0]?.n;
  process.stdout.write(
    `${JSON.stringify({ ready: true, address, stored: Number(count), seedMs, storage: app.charla.db.kind })}\n`,
  );
  const stop = async () => {
    await app.close();
    if (schema) {
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: process.env['DATABASE_URL'] });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    }
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

interface Summary {
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  connections: number;
  durationS: number;
  paceRps?: number;
}

async function drive(): Promise<void> {
  const budgets = JSON.parse(readFileSync(join(here, 'budgets.json'), 'utf8')).listCampaigns ?? {};
  const p99MaxMs = Number(budgets.p99MaxMs ?? 20);
  const connections = Number(process.env['BENCH_CONNECTIONS'] ?? budgets.connections ?? 10);
  const duration = Number(process.env['BENCH_DURATION'] ?? budgets.durationSeconds ?? 10);
  // autocannon ships no types; loaded by name so the type checker leaves it alone.
  const autocannonModule: string = 'autocannon';
  const autocannon = (await import(autocannonModule)).default as (
    opts: unknown,
    cb: (err: Error | null, r: any) => void,
  ) => void;

  const child = spawn(
    process.execPath,
    [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), fileURLToPath(import.meta.url), '--serve'],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
    },
  );
  const info = await new Promise<{ address: string; stored: number; seedMs: number; storage: string }>(
    (resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const line = buf.split('\n').find((l) => l.startsWith('{"ready"'));
        if (line) resolve(JSON.parse(line));
      });
      child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
    },
  );
  const kill = () =>
    new Promise<void>((r) => {
      child.once('exit', () => r());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });

  try {
    // Deterministic mix of queries.
    let seq = 0;
    const day = 86_400_000;
    const yearStart = Date.UTC(2025, 0, 1);
    const statuses = ['COMPLETED', 'PENDING', 'IN_PROGRESS', 'SCHEDULED'];
    const nextPath = () => {
      const i = seq++;
      const bot = `bench-bot-${(i * 37) % BOTS}`;
      const start = new Date(yearStart + ((i * 13) % 270) * day).toISOString().slice(0, 10);
      const end = new Date(yearStart + (((i * 13) % 270) + 90) * day).toISOString().slice(0, 10);
      let q = `botId=${bot}&startAt=${start}&endAt=${end}&page=${1 + (i % 5)}`;
      if (i % 4 === 1) q += `&status=${statuses[i % statuses.length]}`;
      if (i % 4 === 2) q += `&elementName=element-${i % 20}`;
      if (i % 10 === 3) q += '&limit=50';
      return `/v1/campaigns?${q}`;
    };
    // Sanity: the mix answers 200 with results.
    const probe = await fetch(info.address + nextPath(), { headers: { authorization: BASIC } });
    const probeBody = (await probe.json()) as { data?: { pagination?: { total: number } } };
    if (probe.status !== 200) throw new Error(`probe answered ${probe.status}`);

    const run = (opts: { connections: number; duration: number; overallRate?: number }) =>
      new Promise<Summary>((resolve, reject) => {
        autocannon(
          {
            url: info.address,
            connections: opts.connections,
            duration: opts.duration,
            ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
            headers: { authorization: BASIC },
            requests: [
              {
                method: 'GET',
                setupRequest: (req: Record<string, unknown>) => ({ ...req, path: nextPath() }),
              },
            ],
          },
          (err: Error | null, r: any) => {
            if (err) return reject(err);
            resolve({
              requestsPerSecond: Math.round(r.requests.average),
              p50Ms: r.latency.p50,
              p90Ms: r.latency.p90,
              p99Ms: r.latency.p99,
              maxMs: r.latency.max,
              requests: r.requests.total,
              non2xx: r.non2xx,
              errors: r.errors,
              timeouts: r.timeouts,
              connections: opts.connections,
              durationS: opts.duration,
              ...(opts.overallRate ? { paceRps: opts.overallRate } : {}),
            });
          },
        );
      });

    // Warm-up with the measured load: after 2 s on 2 connections the server was still warming up
    // through the first seconds of the throughput run (its CPU per request ~0.9, 0.76, 0.74 ms there
    // against ~0.65 steady), which understated the rate the paced run is set from.
    await run({ connections, duration: WARMUP_S });
    const throughput = await run({ connections, duration });
    const pace = Math.max(1, Math.floor(throughput.requestsPerSecond * 0.7));
    const paced = await run({ connections, duration, overallRate: pace });

    const over = paced.p99Ms > p99MaxMs || paced.non2xx > 0 || paced.errors > 0 || throughput.non2xx > 0;
    const result = {
      bench: 'list-campaigns',
      date: new Date().toISOString(),
      node: process.version,
      storage: info.storage,
      // Other work on the machine shows in the latency tail: say how busy it was.
      machine: { cpus: cpus().length, loadAverage1m: Number(loadavg()[0]?.toFixed(2)) },
      campaignsStored: info.stored,
      seedMs: Math.round(info.seedMs),
      sampleTotal: probeBody.data?.pagination?.total ?? null,
      budget: { p99MaxMs, appliesTo: 'paced' },
      throughput,
      paced,
      pass: !over,
    };
    mkdirSync(join(here, 'results'), { recursive: true });
    writeFileSync(join(here, 'results', 'list-campaigns.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log('\nlist-campaigns (GET /v1/campaigns, %d campaigns stored, %s)', info.stored, info.storage);
    console.table({
      throughput: {
        'req/s': throughput.requestsPerSecond,
        'p50 ms': throughput.p50Ms,
        'p99 ms': throughput.p99Ms,
        non2xx: throughput.non2xx,
        connections,
      },
      [`paced @ ${pace}/s`]: {
        'req/s': paced.requestsPerSecond,
        'p50 ms': paced.p50Ms,
        'p99 ms': paced.p99Ms,
        non2xx: paced.non2xx,
        connections,
      },
    });
    console.log(
      `budget: p99 <= ${p99MaxMs} ms at the paced rate -> ${over ? 'OVER BUDGET' : 'ok'} (load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs)`,
    );
    await kill();
    process.exit(over ? 1 : 0);
  } catch (err) {
    console.error(err);
    await kill();
    process.exit(1);
  }
}
