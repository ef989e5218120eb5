/**
 * Vite dev server for working on the widget by hand (`npx vite`, then open
 * /demo/). The published bundles are built by scripts/build.mjs with their own
 * inline configuration; tests use vitest.config.ts.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  // Vite 8's Oxc transform compiles the legacy decorators only when pointed at the tsconfig.
  tsconfig: 'tsconfig.json',
  define: { 'process.env.NODE_ENV': JSON.stringify(process.env['NODE_ENV'] ?? 'development') },
  server: {
    port: 5173,
    strictPort: false,
    // The reference service (npm run dev) answers the API and the socket.
    proxy: {
      '/v1': 'http://127.0.0.1:8080',
      '/socket.io': { target: 'ws://127.0.0.1:8080', ws: true },
    },
  },
});
