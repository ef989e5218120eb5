import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';

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
    reporters: process.env['CI'] ? ['default', ['json', { outputFile: '.ci/results.json' }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          environment: 'happy-dom',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/unit/setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'service',
          environment: 'node',
          include: ['test/service/**/*.test.ts', 'test/types/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // PGlite instances are heavy: keep a few files at a time on 2 cores.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          maxWorkers: 1,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 30_000,
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
    ],
  },
});
