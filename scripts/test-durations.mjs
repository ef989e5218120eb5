#!/usr/bin/env node
/**
 * Writes test/durations.json (`project:path` -> seconds) from Vitest's cache of the last runs on
 * this machine (node_modules/.vite/vitest/<hash>/results.json, every file Vitest has run), for
 * test/sequencer.ts to start the longest files first on a clean checkout. Run after a full
 * `npm test`: `npm run test:durations`.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cacheDir = join(root, 'node_modules/.vite/vitest');
const caches = readdirSync(cacheDir)
  .map((name) => join(cacheDir, name, 'results.json'))
  .filter((file) => {
    try {
      return statSync(file).isFile();
    } catch {
      return false;
    }
  })
  .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
if (caches.length === 0) {
  console.error(`no Vitest cache under ${cacheDir}: run npm test first`);
  process.exit(1);
}
const table = {};
for (const [key, result] of JSON.parse(readFileSync(caches[0], 'utf8')).results) {
  // Type tests (typecheck) have no duration of their own.
  if (typeof result?.duration === 'number' && result.duration > 0)
    table[key] = Math.round(result.duration / 100) / 10;
}
const sorted = Object.fromEntries(Object.entries(table).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(join(root, 'test/durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files from ${caches[0].slice(root.length)}`);
