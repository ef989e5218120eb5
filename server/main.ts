/** Reads the environment, builds the service and listens. */
import { buildApp } from './app.ts';
import { configFromEnv, configWarnings } from './config.ts';

const config = configFromEnv();
const app = await buildApp(config);
for (const warning of configWarnings(config)) app.log.warn(warning);
await app.listen({ port: config.port, host: config.host });
// The address the service signs its own media for (CHARLA_PUBLIC_URL, else the host and port it
// listens on): opened under another name (localhost for 127.0.0.1), the demo bot's pictures and
// sounds would be another origin than the page, which its Content-Security-Policy refuses.
const shown = app.charla.baseUrlFor();
// Without the static files (CHARLA_SERVE_STATIC=0) there are no pages to open here: the API's address.
console.log(
  !config.serveStatic
    ? `\n  Charla is running: the API at ${shown}/v1/ (no pages: CHARLA_SERVE_STATIC=0)\n`
    : config.seedDemo
      ? `\n  Charla is running: open ${shown}/\n  QA console: ${shown}/console.html\n`
      : `\n  Charla is running: the API at ${shown}/v1/, the widget at ${shown}/charla.js (no demo pages without the demo data)\n`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
