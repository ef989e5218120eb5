#!/usr/bin/env node
/**
 * The demo pages' scripts (demo/src/*.ts) bundled into dist/demo/, after
 * `npm run build` (scripts/build.mjs calls buildDemo() once it has finished).
 *
 * The pages consume the package as a customer would: demo sources import
 * src/index.ts and src/api/index.ts (so the type checker always has the
 * types), and this build points those imports at the built ESM artefacts
 * dist/charla.js and dist/api.js. Their bare imports (lit, nanostores,
 * socket.io-client) are bundled from node_modules, which is what a customer's
 * bundler does and what a browser cannot do alone.
 *
 * Run alone: `node scripts/build-demo.mjs` (needs dist/charla.js and dist/api.js).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const demoSrc = join(root, 'demo', 'src');

/** Entries: one script per page. */
export const DEMO_ENTRIES = {
  spa: join(demoSrc, 'spa.ts'),
  console: join(demoSrc, 'console.ts'),
  'group-user': join(demoSrc, 'group-user.ts'),
};

/** What the demo's imports of the sources become: the built package. */
const PACKAGE_ARTEFACTS = new Map([
  [join(root, 'src', 'index.ts'), join(dist, 'charla.js')],
  [join(root, 'src', 'api', 'index.ts'), join(dist, 'api.js')],
]);

function useBuiltPackage() {
  return {
    name: 'charla-demo-use-built-package',
    enforce: 'pre',
    resolveId(source, importer) {
      if (!importer || !importer.startsWith(demoSrc) || !source.startsWith('.')) return null;
      const target = PACKAGE_ARTEFACTS.get(resolve(dirname(importer), source));
      if (!target) return null;
      if (!existsSync(target)) throw new Error(`${target} is missing: run \`npm run build\` first`);
      return target;
    },
  };
}

/** Builds dist/demo/. Sets process.exitCode = 1 on failure (and rethrows). */
export async function buildDemo() {
  const started = performance.now();
  // Production packages whoever runs this (Vitest sets NODE_ENV to "test"; see scripts/build.mjs).
  process.env.NODE_ENV = 'production';
  try {
    for (const artefact of PACKAGE_ARTEFACTS.values()) {
      if (!existsSync(artefact)) throw new Error(`${artefact} is missing: run \`npm run build\` first`);
    }
    await build({
      configFile: false,
      root,
      mode: 'production',
      logLevel: 'warn',
      publicDir: false,
      clearScreen: false,
      plugins: [useBuiltPackage()],
      define: { 'process.env.NODE_ENV': '"production"' },
      build: {
        outDir: join(dist, 'demo'),
        emptyOutDir: true,
        target: 'es2022',
        minify: true,
        sourcemap: true,
        reportCompressedSize: false,
        copyPublicDir: false,
        modulePreload: false,
        rolldownOptions: {
          input: DEMO_ENTRIES,
          preserveEntrySignatures: false,
          output: {
            format: 'es',
            entryFileNames: '[name].js',
            chunkFileNames: 'chunks/[name]-[hash].js',
          },
        },
      },
    });
    console.log(
      `  built dist/demo/ (${Object.keys(DEMO_ENTRIES).join(', ')}) in ${Math.round(performance.now() - started)} ms`,
    );
  } catch (error) {
    console.error(`\nDemo build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    throw error;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildDemo().catch(() => {});
}
