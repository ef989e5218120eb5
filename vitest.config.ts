import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import DurationSequencer from './test/sequencer.ts';

/** Debian's Chromium, or CHROMIUM_PATH. The browser project fails loudly when neither exists. */
const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
if (!existsSync(chromiumPath) && process.env['VITEST_SKIP_CHROMIUM_CHECK'] !== '1') {
  // Never skip silently: a missing browser is a failed run with a way out.
  throw new Error(
    `Chromium not found at ${chromiumPath}. Install it with "apt-get update && apt-get install -y chromium" ` +
      'or set CHROMIUM_PATH to a Chromium binary.',
  );
}

export default defineConfig({
  define: { 'process.env.NODE_ENV': '"test"' },
  test: {
    // CI's JSON report (.ci/run reads it); CHARLA_TEST_REPORT names another file for a run beside it.
    reporters: process.env['CI']
      ? ['default', ['json', { outputFile: process.env['CHARLA_TEST_REPORT'] ?? '.ci/results.json' }]]
      : ['default'],
    // Longest files first in each project, from test/durations.json on a clean checkout (no cache).
    sequence: { sequencer: DurationSequencer },
    // Projects run one group after another (unit, service, browser, e2e, cluster): Vitest
    // requires a group of its own for each project that sets its own maxWorkers, and on
    // 2 cores one project at a time keeps timings steady.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          sequence: { groupOrder: 0 },
          environment: 'happy-dom',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/unit/setup.ts'],
          // Files share their worker's modules and happy-dom window (each test empties the body
          // after itself; the elements are defined once): a window and Lit made once per worker,
          // not per file (measured: the project 59 s -> 27 s, 42 s -> 13 s of CPU; passes in any
          // file order, --sequence.shuffle.files).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'service',
          sequence: { groupOrder: 1 },
          environment: 'node',
          include: ['test/service/**/*.test.ts', 'test/types/**/*.test.ts'],
          globalSetup: ['test/pglite-template.ts'],
          // Type tests of the contract (expectTypeOf), checked by tsc alongside the run.
          typecheck: {
            enabled: true,
            include: ['test/types/**/*.test-d.ts'],
            // Only the contract and its tests: other code's type errors are tsc's (npm run typecheck), not this run's.
            tsconfig: 'test/types/tsconfig.json',
          },
          // Some tests start their own service (a fresh PGlite) inside the test: on 2 busy cores
          // that alone has taken close to 30 s, so the limit is a minute, like the hooks'.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // PGlite instances are heavy: keep a few files at a time on 2 cores.
          maxWorkers: 2,
          // Files share their worker's modules (each file starts its own services, so no state
          // is shared through them): the server's modules are loaded once per worker instead of
          // once per file (measured: import 128 s -> 12 s, the project 416 s -> 247 s).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          sequence: { groupOrder: 3 },
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/pglite-template.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Two files at a time, each with its own service and Chromium: on a quiet 2-core machine
          // each file takes longer (297 s -> 488 s summed) but the project about 40 s less (the
          // journeys wait on the browser and the network).
          maxWorkers: 2,
          // As the service project: modules (playwright-core, the server) loaded once per worker,
          // the build checked and dist/ copied once per worker, not per file.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          sequence: { groupOrder: 2 },
          include: ['test/browser/**/*.test.ts'],
          setupFiles: ['test/browser/setup.ts'],
          // Two files at a time, each in its own page of the one Chromium (it ran one at a time:
          // measured on a quiet 2-core machine 132 s -> 88 s).
          maxWorkers: 2,
          testTimeout: 30_000,
          // Files run one after another in their worker's page (each test empties the body after
          // itself) instead of a new frame each, which loaded the widget's modules again per file
          // (measured on a busy machine: the project 94 s -> 72 s; passes in any file order).
          isolate: false,
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({
              launchOptions: { executablePath: chromiumPath, args: CHROMIUM_ARGS },
            }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      // Several service processes on a real PostgreSQL and Redis (issue 8). Only
      // with CHARLA_CLUSTER_TESTS=1 (CI sets it after `.ci/services.sh start`), so
      // `npm test` passes on a machine without them; once enabled, a missing
      // DATABASE_URL or REDIS_URL fails every test with how to start them.
      ...(process.env['CHARLA_CLUSTER_TESTS'] === '1'
        ? [
            {
              extends: true as const,
              test: {
                name: 'cluster',
                sequence: { groupOrder: 4 },
                environment: 'node' as const,
                include: ['test/cluster/**/*.test.ts'],
                testTimeout: 120_000,
                hookTimeout: 120_000,
                maxWorkers: 1,
                fileParallelism: false,
              },
            },
          ]
        : []),
    ],
  },
});
