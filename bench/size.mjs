#!/usr/bin/env node
/**
 * Size benchmark: gzip and brotli of the script-tag bundles against the
 * budgets in bench/budgets.json ("size"), beside the floor of the
 * dependencies (lit + nanostores + socket.io-client + @lit-labs/virtualizer
 * bundled alone, minified, as an IIFE, in this same run). Builds first when dist/ lacks a bundle.
 * Writes bench/results/size.json; exits non-zero over budget.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { minifySync } from 'rolldown/utils';
import { build } from 'vite';
import {
  browserPlugins,
  SCRIPT_TAG_OUTPUT,
  SCRIPT_TAG_ROLLDOWN,
  scriptTagPlugins,
} from '../scripts/bundle-settings.mjs';

const root = resolveRoot();
const budgets = JSON.parse(readFileSync(join(root, 'bench', 'budgets.json'), 'utf8')).size;

function resolveRoot() {
  return join(dirname(fileURLToPath(import.meta.url)), '..');
}

/** What the floor bundles: the APIs the widget is built on, kept alive by exporting them. */
const FLOOR_ENTRY = `
export { LitElement, ReactiveElement, html, svg, css, nothing, render } from 'lit';
export { atom, map, computed, onMount } from 'nanostores';
export { io } from 'socket.io-client';
export { virtualize } from '@lit-labs/virtualizer/virtualize.js';
export { FlowLayout } from '@lit-labs/virtualizer/layouts/flow.js';
`;
const FLOOR_NAME = 'charla-size-floor';
const FLOOR_ID = `\0${FLOOR_NAME}.js`;

function measure(code) {
  const buf = Buffer.isBuffer(code) ? code : Buffer.from(code);
  return {
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    brotli: brotliCompressSync(buf, {
      params: {
        [zlibConstants.BROTLI_PARAM_QUALITY]: 11,
        [zlibConstants.BROTLI_PARAM_SIZE_HINT]: buf.length,
      },
    }).length,
  };
}

/** The dependencies alone, bundled the way scripts/build.mjs bundles dist/charla.iife.js. */
async function buildFloor() {
  const output = await build({
    configFile: false,
    root,
    mode: 'production',
    logLevel: 'error',
    publicDir: false,
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [
      {
        name: 'charla-size-floor',
        // Vite turns the lib entry into an absolute path under root: match by name.
        resolveId: (id) => (id === FLOOR_ID || id.endsWith(FLOOR_NAME) ? FLOOR_ID : undefined),
        load: (id) => (id === FLOOR_ID ? FLOOR_ENTRY : undefined),
      },
      ...scriptTagPlugins(),
    ],
    build: {
      write: false,
      target: 'es2022',
      minify: true,
      reportCompressedSize: false,
      lib: { entry: FLOOR_NAME, formats: ['iife'], name: 'CharlaFloor', fileName: () => 'floor.js' },
      rolldownOptions: { ...SCRIPT_TAG_ROLLDOWN, output: SCRIPT_TAG_OUTPUT },
    },
  });
  const results = Array.isArray(output) ? output : [output];
  const chunk = results.flatMap((r) => ('output' in r ? r.output : [])).find((o) => o.type === 'chunk');
  if (!chunk) throw new Error('the dependency floor build produced no chunk');
  return chunk.code;
}

/**
 * Where the widget's bytes come from: src/iife.ts bundled again in memory (same
 * options as scripts/build.mjs), its modules grouped by package or by src/
 * folder, each group minified alone. Shares of the whole, so estimates.
 */
async function widgetBreakdown() {
  const output = await build({
    configFile: false,
    root,
    tsconfig: join(root, 'tsconfig.json'),
    mode: 'production',
    logLevel: 'error',
    publicDir: false,
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: browserPlugins(),
    build: {
      write: false,
      target: 'es2022',
      minify: true,
      reportCompressedSize: false,
      lib: { entry: join(root, 'src', 'iife.ts'), formats: ['iife'], name: 'Charla', fileName: () => 'w.js' },
      rolldownOptions: { ...SCRIPT_TAG_ROLLDOWN, output: SCRIPT_TAG_OUTPUT },
    },
  });
  const results = Array.isArray(output) ? output : [output];
  const chunk = results.flatMap((r) => ('output' in r ? r.output : [])).find((o) => o.type === 'chunk');
  if (!chunk) return { groups: [], modules: [] };
  const groups = new Map();
  const modules = [];
  for (const [id, info] of Object.entries(chunk.modules)) {
    const path = id.replace(/^\0/, '').split('\\').join('/');
    const nm = path.lastIndexOf('node_modules/');
    let group;
    if (nm >= 0) {
      const parts = path.slice(nm + 'node_modules/'.length).split('/');
      group = parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? path);
    } else {
      const rel = path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
      group = rel
        .split('/')
        .slice(0, rel.startsWith('src/') ? 2 : 1)
        .join('/');
    }
    groups.set(group, `${groups.get(group) ?? ''}${info.code ?? ''}\n`);
    if (info.code) modules.push({ module: moduleName(path), code: info.code });
  }
  // Each group's code minified on its own: a closer proxy of its weight than the rendered length.
  const sizes = new Map();
  for (const [group, code] of groups) {
    let bytes = code.length;
    try {
      bytes = minifySync(`${group}.js`, code, { compress: true, mangle: true }).code.length;
    } catch {
      // Keep the rendered length when a fragment does not minify alone.
    }
    sizes.set(group, bytes);
  }
  const total = [...sizes.values()].reduce((a, b) => a + b, 0) || 1;
  const groupShares = [...sizes.entries()]
    .map(([group, bytes]) => ({ group, share: bytes / total }))
    .sort((a, b) => b.share - a.share);
  return { groups: groupShares, modules: byModule ? moduleSizes(modules) : [] };
}

/** A module's id as a short name: `src/widget/core.ts`, `@lit-labs/virtualizer/Virtualizer.js`. */
function moduleName(path) {
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm + 'node_modules/'.length);
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

/**
 * `--modules`: each module minified and gzipped alone. Alone, a module cannot
 * share gzip's dictionary with the rest, so the figures overstate its weight
 * in the bundle (their sum exceeds the bundle's): use them to rank, not to add.
 */
function moduleSizes(modules) {
  return modules
    .map(({ module, code }) => {
      let min = code;
      try {
        min = minifySync('module.js', code, { compress: true, mangle: true }).code;
      } catch {
        // A fragment that does not minify alone is measured as rendered.
      }
      return { module, minified: min.length, gzip: gzipSync(min, { level: 9 }).length };
    })
    .sort((a, b) => b.gzip - a.gzip);
}

const kb = (n) => `${(n / 1024).toFixed(2)} KB`;

/** `node bench/size.mjs --modules`: also list every module of the widget, heaviest first. */
const byModule = process.argv.includes('--modules');

async function main() {
  const files = Object.values(budgets).map((b) => b.file);
  if (files.some((f) => !existsSync(join(root, f)))) {
    console.log('dist/ is missing a bundle: running npm run build first');
    const res = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {
      cwd: root,
      stdio: 'inherit',
    });
    if (res.status !== 0) throw new Error('the build failed');
  }

  const rows = [];
  for (const [name, budget] of Object.entries(budgets)) {
    const size = measure(readFileSync(join(root, budget.file)));
    rows.push({
      name,
      file: budget.file,
      ...size,
      gzipMaxBytes: budget.gzipMaxBytes,
      withinBudget: size.gzip <= budget.gzipMaxBytes,
    });
  }
  const floor = measure(await buildFloor());
  const widget = rows.find((r) => r.name === 'widget');

  const table = [
    ['bundle', 'raw', 'gzip', 'brotli', 'gzip budget', 'result'],
    ...rows.map((r) => [
      `${r.name} (${r.file})`,
      kb(r.raw),
      kb(r.gzip),
      kb(r.brotli),
      kb(r.gzipMaxBytes),
      r.withinBudget ? 'ok' : 'OVER',
    ]),
    [
      'dependency floor (lit + nanostores + socket.io-client + virtualizer)',
      kb(floor.raw),
      kb(floor.gzip),
      kb(floor.brotli),
      '-',
      '-',
    ],
  ];
  if (widget) {
    table.push([
      'widget above the floor (our own code, about)',
      kb(widget.raw - floor.raw),
      kb(widget.gzip - floor.gzip),
      kb(widget.brotli - floor.brotli),
      kb(widget.gzipMaxBytes - floor.gzip),
      '-',
    ]);
  }
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\nSize (gzip level 9, brotli quality 11; 1 KB = 1024 B)');
  console.log(line(table[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of table.slice(1)) console.log(line(r));

  const { groups: breakdown, modules } = widget ? await widgetBreakdown() : { groups: [], modules: [] };
  if (widget && breakdown.length > 0) {
    console.log(
      `\nWhere the widget's ${kb(widget.gzip)} gzip come from (estimated: each part minified alone):`,
    );
    const top = breakdown.slice(0, 14);
    const w = Math.max(...top.map((b) => b.group.length));
    for (const b of top) {
      console.log(
        `  ${b.group.padEnd(w)}  ${(b.share * 100).toFixed(1).padStart(5)} %  ~${kb(b.share * widget.gzip)}`,
      );
    }
  }

  if (modules.length > 0) {
    console.log('\nEvery module, minified and gzipped alone (overstated: ranks, does not add up):');
    for (const m of modules) {
      console.log(`  ${String(m.gzip).padStart(6)} B gzip  ${String(m.minified).padStart(7)} B  ${m.module}`);
    }
  }

  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  const result = {
    bench: 'size',
    date: new Date().toISOString(),
    commit: git.status === 0 ? git.stdout.trim() : null,
    node: process.version,
    unit: 'bytes',
    bundles: Object.fromEntries(rows.map(({ name, ...r }) => [name, r])),
    floor: {
      includes: ['lit', 'nanostores', 'socket.io-client', '@lit-labs/virtualizer'],
      ...floor,
    },
    widgetBreakdown: breakdown.map((b) => ({
      ...b,
      gzipEstimate: widget ? Math.round(b.share * widget.gzip) : null,
    })),
  };
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results', 'size.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log('\nwrote bench/results/size.json');

  const over = rows.filter((r) => !r.withinBudget);
  if (over.length > 0) {
    for (const r of over) {
      console.error(`OVER BUDGET: ${r.file} is ${kb(r.gzip)} gzip, budget ${kb(r.gzipMaxBytes)}`);
    }
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(`size bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
