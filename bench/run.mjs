#!/usr/bin/env node
/**
 * `npm run bench`: runs every benchmark in bench/, one after the other, each
 * printing its own table. A benchmark is a top-level bench/*.mjs (run with
 * node) or bench/*.ts (run with tsx); run.mjs itself and files starting with
 * `_` (helpers) are not benchmarks. size runs first (it builds dist/ when
 * needed). `npm run bench -- size render` runs only the named ones.
 * Exits non-zero when any benchmark fails or is over its budget.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, '..');
/** One benchmark may take this long before it counts as failed. */
const TIMEOUT_MS = Number(process.env['CHARLA_BENCH_TIMEOUT_MS'] ?? 10 * 60 * 1000);

const only = process.argv.slice(2);
const benches = readdirSync(benchDir, { withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => e.name)
  .filter(
    (n) =>
      (n.endsWith('.mjs') || (n.endsWith('.ts') && !n.endsWith('.d.ts'))) &&
      n !== 'run.mjs' &&
      !n.startsWith('_'),
  )
  .sort((a, b) => (a.startsWith('size.') ? -1 : b.startsWith('size.') ? 1 : a.localeCompare(b)))
  .filter((n) => only.length === 0 || only.includes(basename(n, extname(n))));

if (benches.length === 0) {
  console.error(
    only.length > 0 ? `no benchmark named ${only.join(', ')} in bench/` : 'no benchmark in bench/',
  );
  process.exit(1);
}

function runOne(file) {
  const path = join(benchDir, file);
  const [command, args] = file.endsWith('.ts')
    ? [process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path]]
    : [process.execPath, [path]];
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: process.env });
    const timer = setTimeout(() => {
      console.error(`\n${file} ran past ${TIMEOUT_MS / 1000} s: stopping it`);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    }, TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      console.error(`${file}: ${error.message}`);
      resolve({ file, code: 1, seconds: (performance.now() - started) / 1000 });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ file, code: code ?? (signal ? 1 : 0), seconds: (performance.now() - started) / 1000 });
    });
  });
}

const results = [];
for (const file of benches) {
  console.log(`\n=== bench/${file} ${'='.repeat(Math.max(0, 60 - file.length))}`);
  results.push(await runOne(file));
}

console.log('\n=== summary');
const width = Math.max(...results.map((r) => r.file.length));
for (const r of results) {
  console.log(`${r.file.padEnd(width)}  ${r.code === 0 ? 'ok    ' : 'FAILED'}  ${r.seconds.toFixed(1)} s`);
}
const failed = results.filter((r) => r.code !== 0);
if (failed.length > 0) {
  console.error(
    `\n${failed.length} of ${results.length} benchmark(s) failed: ${failed.map((r) => r.file).join(', ')}`,
  );
  process.exitCode = 1;
}
