/**
 * The demo seed against the real service: the demo bot (calling on), the
 * `normal` and `group` widgets whose fixed keys the demo pages embed, the
 * users, one campaign in each status, and nothing doubled when it runs again.
 * Read back through the API client, as the QA console does.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.ts';
import {
  DEMO_BOT_ID,
  DEMO_CAMPAIGNS,
  DEMO_GROUP_API_KEY,
  DEMO_GROUP_WIDGET_ID,
  DEMO_NORMAL_API_KEY,
  DEMO_NORMAL_WIDGET_ID,
  DEMO_USERS,
  seedDemo,
} from '../../server/seed.ts';
import { createClient, type CharlaClient } from '../../src/api/index.ts';

let app: FastifyInstance;
let base: string;
let client: CharlaClient;
const range = () => ({
  botId: DEMO_BOT_ID,
  startAt: '2020-01-01',
  endAt: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
});

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await app.charla.db.query<{ n: string | number }>(sql, params);
  return Number(rows[0]?.n ?? 0);
}

beforeAll(async () => {
  app = await buildApp({
    databaseUrl: process.env['DATABASE_URL'] || 'memory://',
    storeTemplate: inject('pgliteSchemaTemplate'),
    publicBaseUrl: 'https://charla.test',
    seedDemo: true,
    schedulerIntervalMs: 200,
    logger: false,
  });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
  client = createClient({ baseUrl: base, clientId: 'demo-client', clientSecret: 'demo-secret' });
});

afterAll(async () => {
  await app?.close();
});

describe('seedDemo()', () => {
  it('creates the demo bot with calling enabled', async () => {
    const { rows } = await app.charla.db.query<{ calling_enabled: boolean }>(
      'SELECT calling_enabled FROM bots WHERE id = $1',
      [DEMO_BOT_ID],
    );
    expect(rows[0]?.calling_enabled).toBe(true);
  });

  it('creates a normal and a group widget whose fixed keys are stored hashed', async () => {
    for (const [widgetId, key, type] of [
      [DEMO_NORMAL_WIDGET_ID, DEMO_NORMAL_API_KEY, 'normal'],
      [DEMO_GROUP_WIDGET_ID, DEMO_GROUP_API_KEY, 'group'],
    ] as const) {
      const { rows } = await app.charla.db.query<{
        key_hash: string;
        config: { properties?: { type?: string } } | string;
      }>('SELECT k.key_hash, w.config FROM api_keys k JOIN widgets w ON w.id = k.widget_id WHERE w.id = $1', [
        widgetId,
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
      const config = typeof rows[0]!.config === 'string' ? JSON.parse(rows[0]!.config) : rows[0]!.config;
      expect(config.properties?.type).toBe(type);
    }
  });

  it('lets a widget open a session with each demo key', async () => {
    for (const apiKey of [DEMO_NORMAL_API_KEY, DEMO_GROUP_API_KEY]) {
      const res = await fetch(`${base}/v1/widget/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
        body: JSON.stringify({ apiKey, userId: 'alice', userNames: 'Alice Martín' }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const body = (await res.json()) as { bot: { id: string }; user: { id: string } };
      expect(body.bot.id).toBe(DEMO_BOT_ID);
      expect(body.user.id).toBe('alice');
    }
  });

  it('remembers the demo users', async () => {
    const ids = DEMO_USERS.map((u) => u.id);
    expect(await count('SELECT count(*) AS n FROM live_users WHERE id = ANY($1::text[])', [ids])).toBe(
      ids.length,
    );
  });

  it('seeds one campaign in each status; the scheduler carries PENDING and IN_PROGRESS on to COMPLETED', async () => {
    expect(DEMO_CAMPAIGNS.map((c) => c.status).sort()).toEqual([
      'CANCELLED',
      'COMPLETED',
      'IN_PROGRESS',
      'PENDING',
      'SCHEDULED',
    ]);
    const byId = async () =>
      new Map((await client.listCampaigns({ ...range(), limit: 50 })).data.results.map((c) => [c.id, c]));
    const until = Date.now() + 15_000;
    let campaigns = await byId();
    while (
      Date.now() < until &&
      !['demo-campaign-pending', 'demo-campaign-in-progress'].every(
        (id) => campaigns.get(id)?.status === 'COMPLETED',
      )
    ) {
      await new Promise((r) => setTimeout(r, 200));
      campaigns = await byId();
    }
    expect(campaigns.get('demo-campaign-completed')).toMatchObject({
      status: 'COMPLETED',
      totalMessages: 4,
      deliveredMessages: 3,
      failedMessages: 1,
    });
    expect(campaigns.get('demo-campaign-cancelled')).toMatchObject({
      status: 'CANCELLED',
      deliveredMessages: 0,
    });
    expect(campaigns.get('demo-campaign-scheduled')).toMatchObject({
      status: 'SCHEDULED',
      deliveredMessages: 0,
    });
    expect(campaigns.get('demo-campaign-pending')).toMatchObject({
      status: 'COMPLETED',
      totalMessages: 4,
      deliveredMessages: 4,
    });
    // Two were delivered before the seed; the scheduler delivers the other two.
    expect(campaigns.get('demo-campaign-in-progress')).toMatchObject({
      status: 'COMPLETED',
      totalMessages: 4,
      deliveredMessages: 4,
    });
    // The SCHEDULED one is due in the future and can be updated (the console does it).
    const scheduled = campaigns.get('demo-campaign-scheduled')!;
    expect(Date.parse(scheduled.scheduledAt!)).toBeGreaterThan(Date.now());
  });

  it('adds nothing when it runs again', async () => {
    const tables = ['bots', 'widgets', 'api_keys', 'campaigns', 'campaign_recipients', 'live_users'];
    const before = await Promise.all(tables.map((t) => count(`SELECT count(*) AS n FROM ${t}`)));
    await seedDemo(app);
    await seedDemo(app);
    const after = await Promise.all(tables.map((t) => count(`SELECT count(*) AS n FROM ${t}`)));
    expect(after).toEqual(before);
  });
});
