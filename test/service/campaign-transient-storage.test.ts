/**
 * PostgreSQL only: a campaign of 300 recipients sent while the database drops the service's
 * connections again and again (pg_terminate_backend, as a restart or failover does). A recipient
 * hit by the dropped connection is not failed: it stays pending and is sent at a later tick, and
 * one whose message was stored though the answer was lost is counted delivered, once. At the
 * end: COMPLETED, 300 delivered, 0 failed, each recipient's message stored once.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignMessageId } from '../../server/scheduler.ts';
import { ON_POSTGRES, call, createBot, startServer, until, type Server } from './helpers/http.ts';

const url = process.env['DATABASE_URL'] ?? '';
/** The service's connections are named so that only they are ended (other files share the database). */
const appName = `charla-campaign-transient-${randomUUID().slice(0, 8)}`;
const named = (): string => {
  const u = new URL(url);
  u.searchParams.set('application_name', appName);
  return u.toString();
};

let server: (Server & { schema: string | undefined }) | undefined;
let admin: pg.Client | undefined;
beforeAll(async () => {
  if (!ON_POSTGRES) return;
  server = await startServer({ databaseUrl: named(), scheduler: true, schedulerIntervalMs: 100 });
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await server?.close();
});

describe.skipIf(!ON_POSTGRES)('a campaign sent while the database drops connections', () => {
  it('delivers to every recipient once and fails none', async () => {
    const own = server!;
    const db = own.app.charla.db;
    const botId = await createBot(own);
    const recipients = Array.from({ length: 300 }, (_, n) => `r-${n}-${randomUUID().slice(0, 8)}`);
    const res = await call(own, 'POST', '/v1/campaigns', {
      body: {
        name: 'Drops',
        elementName: 'drops',
        botId,
        recipients,
        message: { type: 'text', text: 'Hola' },
      },
    });
    expect(res.status).toBe(200);
    const id = res.body.data.id as string;

    // End the service's connections every 50 ms, 40 times, or until the campaign is done.
    let ended = 0;
    let done = false;
    const terminator = (async () => {
      for (let round = 0; round < 40 && !done; round++) {
        const r = await admin!.query<{ ended: boolean }>(
          `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = $1`,
          [appName],
        );
        ended += r.rows.filter((x) => x.ended).length;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const state = async () => {
      try {
        const { rows } = await db.query<{
          status: string;
          delivered_messages: number;
          failed_messages: number;
        }>('SELECT status, delivered_messages, failed_messages FROM campaigns WHERE id = $1', [id]);
        return rows[0];
      } catch {
        // This read's own connection was ended: read again.
        return undefined;
      }
    };
    const final = await until(async () => {
      const s = await state();
      return s?.status === 'COMPLETED' ? s : null;
    }, 120_000).finally(() => {
      done = true;
    });
    await terminator;
    expect(ended).toBeGreaterThan(10);
    expect(final).toMatchObject({ status: 'COMPLETED', delivered_messages: 300, failed_messages: 0 });
    const { rows: marks } = await db.query<{ status: string; n: string }>(
      'SELECT status, count(*) AS n FROM campaign_recipients WHERE campaign_id = $1 GROUP BY status',
      [id],
    );
    expect(marks.map((m) => [m.status, Number(m.n)])).toEqual([['delivered', 300]]);
    const ids = recipients.map((u) => campaignMessageId(id, u));
    const { rows: stored } = await db.query<{ id: string; n: string }>(
      'SELECT id, count(*) AS n FROM messages WHERE id = ANY($1::text[]) GROUP BY id',
      [ids],
    );
    expect(stored).toHaveLength(300);
    expect(stored.every((r) => Number(r.n) === 1)).toBe(true);
  }, 150_000);
});
