/**
 * A service in a process of its own, for campaign-creation-hidden.test.ts to kill (SIGKILL) in the
 * middle of a campaign's creation. Storage from CHARLA_CHILD_DATABASE_URL (PostgreSQL) or
 * CHARLA_CHILD_DATA_DIR (a PGlite directory). Prints one JSON line with its address once
 * listening, and one with `writing` once a campaign being created (CREATING) has recipients stored.
 */
import { buildApp } from '../../server/app.ts';

const databaseUrl = process.env['CHARLA_CHILD_DATABASE_URL'];
const app = await buildApp({
  ...(databaseUrl
    ? { databaseUrl }
    : {
        databaseUrl: undefined,
        dataDir: process.env['CHARLA_CHILD_DATA_DIR'],
        storeTemplate: process.env['CHARLA_STORE_TEMPLATE'],
      }),
  publicBaseUrl: 'https://charla.test',
  scheduler: false,
  logger: false,
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ address })}\n`);
for (;;) {
  const { rows } = await app.charla.db.query<{ id: string }>(
    `SELECT c.id FROM campaigns c
     WHERE c.status = 'CREATING' AND EXISTS (SELECT 1 FROM campaign_recipients r WHERE r.campaign_id = c.id)`,
  );
  if (rows[0]) {
    process.stdout.write(`${JSON.stringify({ writing: rows[0].id })}\n`);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}
