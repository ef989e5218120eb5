import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../server/seed.ts';
import { DATABASE_URL, ON_POSTGRES, startServer, type Server } from './helpers/http.ts';

// Two service processes starting at once on an empty database both seed the
// demo. On PostgreSQL (DATABASE_URL) these are two apps on one schema; on
// PGlite, two seedings of one app at once.
let a: Server & { schema: string | undefined };
let b: Server;

beforeAll(async () => {
  a = await startServer({}, { keep: true });
  b = ON_POSTGRES ? await startServer({}, { schema: a.schema }) : a;
});
afterAll(async () => {
  if (b !== a) await b.close();
  await a.app.close();
  if (a.schema) {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${a.schema} CASCADE`);
    await client.end();
  }
});

describe('the demo seed', () => {
  it('seeds once when two start at the same moment: no error, no duplicate', async () => {
    await Promise.all([seedDemo(a.app), seedDemo(b.app), seedDemo(a.app)]);
    const count = async (sql: string) => Number((await a.app.charla.db.query<{ n: string }>(sql)).rows[0]!.n);
    expect(await count(`SELECT count(*) AS n FROM widgets WHERE id LIKE 'demo-widget-%'`)).toBe(2);
    expect(await count(`SELECT count(*) AS n FROM bots WHERE id = 'demo-bot'`)).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM campaigns WHERE id LIKE 'demo-campaign-%'`)).toBe(5);
  });
});
