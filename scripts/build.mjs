#!/usr/bin/env node
/**
 * `npm run build`: every artefact of the package, from a clean dist/.
 *
 *   dist/charla.js               ESM for bundlers and SPAs; dependencies stay imports
 *   dist/api.js                  ESM typed HTTP client (our own code only)
 *   dist/charla.iife.js          one self-contained, minified file for a <script> tag
 *   dist/charla-loader.iife.js   the small script-tag entry (served at /charla.js)
 *   dist/types/                  declaration files (tsc, tsconfig.build.json)
 *   custom-elements.json         Custom Elements Manifest (cem, custom-elements-manifest.config.mjs)
 *
 * Uses Vite's JS API with `configFile: false`, so vite.config.ts (the dev
 * server) and vitest.config.ts never leak into the published bundles.
 * Exits non-zero on any error: a failed bundle, a type error, a schema library
 * pulled into browser code, an eval, an import left unresolved.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import {
  browserPlugins,
  SCRIPT_TAG_OUTPUT,
  SCRIPT_TAG_ROLLDOWN,
  scriptTagPlugins,
} from './bundle-settings.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** Global the script-tag bundles extend (never overwrite): `window.Charla`. */
export const GLOBAL_NAME = 'Charla';

/** Dependencies the ESM build leaves as imports. */
const ESM_EXTERNALS = [
  /^lit($|\/)/,
  /^@lit\//,
  /^@lit-labs\//,
  /^nanostores($|\/)/,
  /^@nanostores\//,
  /^socket\.io-client($|\/)/,
  /^socket\.io-parser($|\/)/,
  /^idb-keyval($|\/)/,
];

/** Modules that must never reach a browser bundle: the schema library stays on the server. */
const FORBIDDEN_IN_BROWSER = [
  /(^|\/)node_modules\/typebox\//,
  /(^|\/)node_modules\/@sinclair\/typebox\//,
  /^types\/schemas\//,
  /^server\//,
];

/** Rolldown/Vite warnings that mean a broken bundle, not a style note. */
const FATAL_LOG_CODES = new Set([
  'UNRESOLVED_IMPORT',
  'MISSING_EXPORT',
  'MISSING_GLOBAL_NAME',
  'EVAL',
  'IMPORT_IS_UNDEFINED',
  'MISSING_NAME_OPTION_FOR_IIFE_EXPORT',
]);

const isBare = (id) =>
  !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && !/^[A-Za-z]:[\\/]/.test(id);

/** One Vite library build, with the checks every artefact shares. */
async function bundle(
  label,
  { entry, fileName, format, external, minify, define = {}, checkBrowser = true },
) {
  const problems = [];
  const started = performance.now();
  const output = await build({
    configFile: false,
    root,
    // Without it Vite 8's Oxc transform leaves the legacy decorators untouched (STYLE.md: experimentalDecorators).
    tsconfig: join(root, 'tsconfig.json'),
    mode: 'production',
    logLevel: 'warn',
    publicDir: false,
    clearScreen: false,
    define,
    // Lit's css``/html`` templates lose their source formatting (scripts/minify-templates.mjs);
    // script-tag bundles get a last Terser pass (scripts/bundle-settings.mjs).
    plugins: [
      ...(checkBrowser ? browserPlugins() : []),
      ...(format === 'iife' && minify ? scriptTagPlugins() : []),
    ],
    build: {
      outDir: dist,
      emptyOutDir: false,
      target: 'es2022',
      minify,
      sourcemap: format === 'es',
      reportCompressedSize: false,
      copyPublicDir: false,
      lib: { entry: join(root, entry), formats: [format], fileName: () => fileName, name: GLOBAL_NAME },
      rolldownOptions: {
        ...(format === 'iife' ? SCRIPT_TAG_ROLLDOWN : {}),
        external,
        onLog(level, log, handler) {
          // Rolldown's note that a plugin took most of the build: the last Terser pass
          // (charla-final-minify) does, on purpose; said on every start, it only alarmed.
          if (log.code === 'PLUGIN_TIMINGS') return;
          if (level === 'warn' && FATAL_LOG_CODES.has(log.code ?? '')) {
            problems.push(`${log.code}: ${log.message}`);
            return;
          }
          handler(level, log);
        },
        output: {
          // Script-tag bundles add to window.Charla instead of replacing what the loader put there,
          // and are plain ASCII whatever charset the page serves them with.
          ...(format === 'iife' ? SCRIPT_TAG_OUTPUT : {}),
          chunkFileNames: 'chunks/[name]-[hash].js',
        },
      },
    },
  });
  const results = Array.isArray(output) ? output : [output];
  const chunks = results.flatMap((r) => ('output' in r ? r.output : [])).filter((o) => o.type === 'chunk');
  if (chunks.length === 0) problems.push('no chunk was written');
  for (const chunk of chunks) {
    if (!checkBrowser) continue;
    for (const id of chunk.moduleIds) {
      // Project-relative, forward slashes: `server/app.ts`, `node_modules/typebox/...`.
      const rel = relative(root, id.replace(/^\0/, '')).split('\\').join('/');
      if (FORBIDDEN_IN_BROWSER.some((re) => re.test(rel))) {
        problems.push(
          `${relative(root, id)} is bundled into ${chunk.fileName}; browser code may import only types and constants from types/`,
        );
      }
    }
    if (format === 'iife') {
      // Parses as a classic script (catches untransformed decorators or stray import/export syntax).
      try {
        new Script(chunk.code, { filename: chunk.fileName });
      } catch (error) {
        problems.push(
          `${chunk.fileName} does not parse as a script: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    if (format === 'iife' && /is in dev mode/.test(chunk.code)) {
      problems.push(`${chunk.fileName} holds a development build of Lit (NODE_ENV was not production)`);
    }
    if (format === 'iife' && /[^\x00-\x7f]/.test(chunk.code)) {
      const at = chunk.code.search(/[^\x00-\x7f]/);
      problems.push(
        `${chunk.fileName} is not plain ASCII (at ${at}: ${JSON.stringify(chunk.code.slice(Math.max(0, at - 20), at + 10))})`,
      );
    }
    if (format === 'iife' && /\bimport\s*\(/.test(chunk.code)) {
      problems.push(
        `${chunk.fileName} still contains a dynamic import(); a script-tag bundle must be one file`,
      );
    }
  }
  if (problems.length > 0) {
    throw new Error(`${label} failed:\n  - ${problems.join('\n  - ')}`);
  }
  console.log(`  built ${label} in ${Math.round(performance.now() - started)} ms`);
}

/** Runs a command; resolves with its exit code and output, never throws. */
function run(command, args) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (error) => resolvePromise({ code: 1, out: `${out}${String(error)}` }));
    child.on('close', (code) => resolvePromise({ code: code ?? 1, out }));
  });
}

const bin = (name) => join(root, 'node_modules', '.bin', name);

function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

function formatBytes(n) {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(2)} KB`;
}

function printArtefacts(paths) {
  const rows = paths.map((p) => {
    const buf = readFileSync(p);
    const gz = gzipSync(buf, { level: 9 }).length;
    const br = brotliCompressSync(buf, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    return [relative(root, p), formatBytes(buf.length), formatBytes(gz), formatBytes(br)];
  });
  const head = ['artefact', 'raw', 'gzip', 'brotli'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(line(r));
}

async function main() {
  const started = performance.now();
  // The bundles are production builds whoever runs this script. Vite picks packages' "development"
  // exports (Lit's dev build, which warns in the console) from NODE_ENV, and Vitest sets it to
  // "test" for the build the e2e tests run when dist/ is stale.
  process.env.NODE_ENV = 'production';
  for (const entry of ['src/index.ts', 'src/api/index.ts', 'src/iife.ts', 'src/loader.ts']) {
    if (!existsSync(join(root, entry))) throw new Error(`missing entry ${entry}`);
  }
  rmSync(dist, { recursive: true, force: true });
  console.log('Building Charla');

  // Declarations and the manifest run beside the bundles (they only read the sources).
  const declarations = run(process.execPath, [
    join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.build.json',
  ]);
  const manifest = run(bin('cem'), ['analyze', '--config', 'custom-elements-manifest.config.mjs']);

  const production = { 'process.env.NODE_ENV': '"production"' };
  await bundle('dist/charla.js (ESM)', {
    entry: 'src/index.ts',
    fileName: 'charla.js',
    format: 'es',
    external: ESM_EXTERNALS,
    minify: false,
  });
  await bundle('dist/api.js (ESM)', {
    entry: 'src/api/index.ts',
    fileName: 'api.js',
    format: 'es',
    // Only our own code: anything from a package stays an import.
    external: (id) => isBare(id),
    minify: false,
  });
  await bundle('dist/charla.iife.js (IIFE)', {
    entry: 'src/iife.ts',
    fileName: 'charla.iife.js',
    format: 'iife',
    external: [],
    minify: true,
    define: production,
  });
  await bundle('dist/charla-loader.iife.js (IIFE)', {
    entry: 'src/loader.ts',
    fileName: 'charla-loader.iife.js',
    format: 'iife',
    external: [],
    minify: true,
    define: production,
  });

  const [dts, cem] = await Promise.all([declarations, manifest]);
  if (dts.code !== 0) throw new Error(`declarations (tsc -p tsconfig.build.json) failed:\n${dts.out}`);
  console.log('  emitted dist/types (tsc)');
  if (cem.code !== 0) throw new Error(`custom-elements manifest (cem analyze) failed:\n${cem.out}`);
  const manifestPath = join(root, 'custom-elements.json');
  if (!existsSync(manifestPath)) throw new Error('cem analyze wrote no custom-elements.json');
  const declarationsIndex = join(dist, 'types', 'src', 'index.d.ts');
  if (!existsSync(declarationsIndex)) throw new Error(`tsc wrote no ${relative(root, declarationsIndex)}`);
  const elements = JSON.parse(readFileSync(manifestPath, 'utf8'))
    .modules.flatMap((m) => m.declarations ?? [])
    .filter((d) => d.customElement).length;
  console.log(`  wrote custom-elements.json (${elements} custom element${elements === 1 ? '' : 's'})`);

  const js = files(dist).filter((p) => p.endsWith('.js') && !p.startsWith(join(dist, 'demo')));
  printArtefacts([...js, manifestPath]);
  const dtsCount = files(join(dist, 'types')).filter((p) => p.endsWith('.d.ts')).length;
  const dtsBytes = files(join(dist, 'types')).reduce((n, p) => n + statSync(p).size, 0);
  console.log(`dist/types: ${dtsCount} declaration files, ${formatBytes(dtsBytes)}`);

  // Then the demo pages (dist/demo/), which consume dist/charla.js and dist/api.js as a customer would.
  if (existsSync(join(root, 'scripts', 'build-demo.mjs'))) {
    const { buildDemo } = await import('./build-demo.mjs');
    await buildDemo();
  }
  console.log(`\nBuild finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error) => {
  console.error(`\nBuild failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
