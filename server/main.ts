/** Reads the environment, builds the service and listens. */
import { buildApp } from './app.ts';
import { configFromEnv } from './config.ts';

const config = configFromEnv();
const app = await buildApp(config);
if (config.usingDemoCredentials) {
  app.log.warn(
    '\n  *** DEMO CREDENTIALS IN USE: Basic demo-client:demo-secret, company token demo-company-token. ***\n' +
      '  Set CHARLA_CLIENT_ID, CHARLA_CLIENT_SECRET, CHARLA_COMPANY_TOKEN and CHARLA_SIGNING_SECRET for real use.',
  );
}
const address = await app.listen({ port: config.port, host: config.host });
const shown = address.replace('://127.0.0.1', '://localhost');
console.log(`\n  Charla is running: open ${shown}/\n  QA console: ${shown}/console.html\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
