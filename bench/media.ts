#!/usr/bin/env -S npx tsx
/**
 * Media: what one large file costs everyone else on the embedded store.
 *
 * The service runs in a child process (this file with `--serve`, in-memory
 * PGlite, the default storage) on loopback. This process uploads a 24 MB
 * document through the widget's upload route, then downloads it whole, then
 * reads MEDIA_RANGES Range requests of 1 MB from its end (as a video player
 * seeks), while a probe in a third process asks the service for a widget
 * session (several queries) every PROBE_INTERVAL_MS. Reported: each transfer's time and the
 * probe's worst and p95 latency during it.
 *
 * Budget (bench/budgets.json, media): the probe's worst latency during any of
 * them <= probeMaxMs. Until migration 018 the file was one bytea value, and
 * the probe waited out the whole upload (13.5 s measured) and download (5 s).
 * Writes bench/results/media.json; exits 1 over budget.
 */
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveChild, type ServiceReady } from './lib/serve-child.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const FILE_BYTES = 24 * 1024 * 1024;
const PROBE_INTERVAL_MS = 50;
const MEDIA_RANGES = 10;

type FromChild = ServiceReady;

interface Probed {
  ms: number;
  probeWorstMs: number;
  probeP95Ms: number;
  probes: number;
}

async function main(): Promise<void> {
  const budget = (
    JSON.parse(readFileSync(join(here, 'budgets.json'), 'utf8')) as { media: { probeMaxMs: number } }
  ).media;
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<FromChild>((resolve, reject) => {
    child.once('message', (m) => resolve(m as FromChild));
    child.once('exit', (code) => reject(new Error(`service exited (${code})`)));
  });
  const base = `http://127.0.0.1:${ready.port}`;
  const session = async (userId: string) => {
    const r = await fetch(`${base}/v1/widget/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: ready.apiKey, userId }),
    });
    if (r.status !== 200) throw new Error(`session: ${r.status}`);
    return (await r.json()) as { token: string };
  };

  /** Runs `work` while a third process probes the service; its latencies are those of requests made during it. */
  async function probed(work: () => Promise<void>): Promise<Probed> {
    const prober = fork(fileURLToPath(import.meta.url), ['--probe', base, ready.apiKey], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise((resolve) => prober.once('message', resolve));
    const started = performance.now();
    await work();
    const ms = performance.now() - started;
    const latencies = await new Promise<number[]>((resolve) => {
      prober.once('message', (m) => resolve(m as number[]));
      prober.send('stop');
    });
    prober.kill();
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      ms: Math.round(ms),
      probeWorstMs: Math.round(sorted.at(-1) ?? 0),
      probeP95Ms: Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0),
      probes: sorted.length,
    };
  }

  try {
    await session('probe');
    const { token } = await session('uploader');
    const bytes = new Uint8Array(FILE_BYTES);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 13) & 255;
    let mediaUrl = '';
    const upload = await probed(async () => {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'bench.pdf');
      const r = await fetch(`${base}/v1/widget/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      if (r.status !== 200) throw new Error(`upload: ${r.status} ${await r.text()}`);
      mediaUrl = ((await r.json()) as { mediaUrl: string }).mediaUrl;
    });
    const download = await probed(async () => {
      const r = await fetch(mediaUrl);
      const got = Buffer.from(await r.arrayBuffer());
      if (!got.equals(Buffer.from(bytes))) throw new Error('download: the bytes differ');
    });
    const ranges = await probed(async () => {
      for (let i = 1; i <= MEDIA_RANGES; i++) {
        const start = FILE_BYTES - i * 1024 * 1024;
        const r = await fetch(mediaUrl, { headers: { range: `bytes=${start}-${start + 1024 * 1024 - 1}` } });
        if (r.status !== 206 || (await r.arrayBuffer()).byteLength !== 1024 * 1024) throw new Error('range');
      }
    });
    const rows = { upload, download, [`${MEDIA_RANGES} ranges of 1 MB`]: ranges };
    console.log(
      `media: a ${FILE_BYTES / 1024 / 1024} MB document on the embedded store, a session request every ${PROBE_INTERVAL_MS} ms beside it`,
    );
    console.log('transfer                 time      probe worst   probe p95   probes');
    for (const [name, r] of Object.entries(rows)) {
      console.log(
        `${name.padEnd(24)} ${`${r.ms} ms`.padStart(8)}   ${`${r.probeWorstMs} ms`.padStart(10)}   ${`${r.probeP95Ms} ms`.padStart(8)}   ${String(r.probes).padStart(6)}`,
      );
    }
    const worst = Math.max(...Object.values(rows).map((r) => r.probeWorstMs));
    const over = worst > budget.probeMaxMs;
    console.log(`probe worst ${worst} ms (budget ${budget.probeMaxMs} ms): ${over ? 'OVER' : 'ok'}`);
    mkdirSync(join(here, 'results'), { recursive: true });
    writeFileSync(
      join(here, 'results', 'media.json'),
      `${JSON.stringify({ at: new Date().toISOString(), loadavg: loadavg(), fileBytes: FILE_BYTES, ...rows, budget }, null, 2)}\n`,
    );
    process.exitCode = over ? 1 : 0;
  } finally {
    child.kill('SIGTERM');
  }
}

/** The probe process: a widget session every PROBE_INTERVAL_MS until told to stop; answers the latencies. */
async function probe(base: string, apiKey: string): Promise<void> {
  const latencies: number[] = [];
  let stop = false;
  process.on('message', () => (stop = true));
  process.send?.('ready');
  while (!stop) {
    const t = performance.now();
    const r = await fetch(`${base}/v1/widget/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey, userId: 'probe' }),
    });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`probe: ${r.status}`);
    latencies.push(performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
  process.send?.(latencies);
}

const mode = process.argv[2];
if (mode === '--serve') await serveChild();
else if (mode === '--probe') await probe(process.argv[3] ?? '', process.argv[4] ?? '');
else await main();
