/**
 * One storage, two companies: a deployment serves the company of its
 * configuration (CHARLA_COMPANY_ID), and its credentials reach nothing of
 * another company stored beside it (several deployments on one PostgreSQL).
 * The other company's bot, campaign and file are answered exactly as if they
 * did not exist, and nothing is written.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueCampaigns } from '../../server/scheduler.ts';
import { PUBLIC_BASE, call, inSeconds, snapshot, startServer, uid, type Server } from './helpers/http.ts';

let server: Server;
const OTHER = 'company-other';
const otherBot = uid('other-bot');
const otherCampaign = randomUUID();
const otherMediaKey = `other/${uid('file')}.png`;
const otherRoom = randomUUID();
const otherDueCampaign = randomUUID();
let ownBot: string;

beforeAll(async () => {
  server = await startServer();
  const db = server.app.charla.db;
  await db.query('INSERT INTO companies (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
    OTHER,
    'Other',
  ]);
  await db.query('INSERT INTO bots (id, company_id, name, calling_enabled) VALUES ($1, $2, $3, true)', [
    otherBot,
    OTHER,
    'Their bot',
  ]);
  await db.query(
    `INSERT INTO campaigns (id, company_id, name, element_name, bot_id, status, message, scheduled_at, total_messages)
     VALUES ($1, $2, 'Theirs', 'theirs', $3, 'SCHEDULED', $4, $5, 1)`,
    [otherCampaign, OTHER, otherBot, JSON.stringify({ type: 'text', text: 'hi' }), inSeconds(3600)],
  );
  await db.query(
    'INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)',
    [otherMediaKey, OTHER, 'image/png', 1, 'a.png', Buffer.from([1])],
  );
  await db.query(`INSERT INTO rooms (id, company_id, bot_id, type) VALUES ($1, $2, $3, 'bot')`, [
    otherRoom,
    OTHER,
    otherBot,
  ]);
  await db.query(
    `INSERT INTO campaigns (id, company_id, name, element_name, bot_id, status, message, total_messages)
     VALUES ($1, $2, 'Theirs now', 'theirs', $3, 'PENDING', $4, 0)`,
    [otherDueCampaign, OTHER, otherBot, JSON.stringify({ type: 'text', text: 'hi' })],
  );
  const res = await call(server, 'POST', '/v1/widget/create', { body: { bot: {}, widget: {} } });
  ownBot = res.body.data.Bot.id;
});
afterAll(async () => {
  await server?.close();
});

describe('another company’s resources', () => {
  it('a bot message through another company’s bot is 404, as for a bot that does not exist', async () => {
    const before = await snapshot(server);
    const theirs = await call(server, 'POST', `/v1/bots/${otherBot}/messages`, {
      body: { type: 'text', userId: 'u-1', text: 'hola' },
    });
    const missing = await call(server, 'POST', `/v1/bots/${uid('nobody')}/messages`, {
      body: { type: 'text', userId: 'u-1', text: 'hola' },
    });
    expect(missing.status).toBe(404);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.key).toBe('NOT_FOUND');
    expect(theirs.body.statusMessage).toBe('failed');
    expect(await snapshot(server)).toEqual(before);
  });

  it('a campaign for another company’s bot is 404 and stores nothing', async () => {
    const before = await snapshot(server);
    const res = await call(server, 'POST', '/v1/campaigns', {
      body: {
        name: 'n',
        elementName: 'e',
        botId: otherBot,
        recipients: ['u-1'],
        message: { type: 'text', text: 'hola' },
      },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.key).toBe('NOT_FOUND');
    expect(await snapshot(server)).toEqual(before);
  });

  it('listing another company’s bot shows none of its campaigns', async () => {
    const res = await call(
      server,
      'GET',
      `/v1/campaigns?botId=${otherBot}&startAt=2000-01-01&endAt=2100-01-01&limit=50`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.results).toEqual([]);
    expect(res.body.data.pagination.total).toBe(0);
    // The own bot's campaigns are still listed.
    const created = await call(server, 'POST', '/v1/campaigns', {
      body: {
        name: 'n',
        elementName: 'e',
        botId: ownBot,
        recipients: ['u-1'],
        message: { type: 'text', text: 'hola' },
        scheduledAt: inSeconds(3600),
      },
    });
    expect(created.status).toBe(200);
    const own = await call(
      server,
      'GET',
      `/v1/campaigns?botId=${ownBot}&startAt=2000-01-01&endAt=2100-01-01`,
    );
    expect(own.body.data.results.map((c: { id: string }) => c.id)).toEqual([created.body.data.id]);
  });

  it('cancelling or updating another company’s campaign is 404 and leaves it SCHEDULED', async () => {
    const before = await snapshot(server);
    const cancel = await call(server, 'DELETE', `/v1/campaigns/${otherCampaign}`);
    expect(cancel.status).toBe(404);
    expect(cancel.body.error.key).toBe('NOT_FOUND');
    const update = await call(server, 'PUT', `/v1/campaigns/${otherCampaign}`, {
      body: { name: 'mine now', scheduledAt: inSeconds(7200) },
    });
    expect(update.status).toBe(404);
    expect(update.body.error.key).toBe('NOT_FOUND');
    expect(await snapshot(server)).toEqual(before);
    const { rows } = await server.app.charla.db.query<{ status: string; name: string }>(
      'SELECT status, name FROM campaigns WHERE id = $1',
      [otherCampaign],
    );
    expect(rows[0]).toEqual({ status: 'SCHEDULED', name: 'Theirs' });
  });

  it('another company’s file cannot be signed (422 E1126, like a file that does not exist)', async () => {
    const res = await call(server, 'POST', '/v1/external/assets/refresh', {
      body: { resourceUrl: `${PUBLIC_BASE}/v1/media/${otherMediaKey}`, ttl: 900 },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'E1126', key: 'SIGNED_URL_ERROR' });
  });

  it('a widget on another company’s bot is 404', async () => {
    const before = await snapshot(server);
    const res = await call(server, 'POST', '/v1/widget/create', {
      body: { bot: { id: otherBot }, widget: {} },
    });
    expect(res.status).toBe(404);
    expect(await snapshot(server)).toEqual(before);
  });

  it('a post into another company’s room is 404, as for a room that does not exist, and stores nothing', async () => {
    const before = await snapshot(server);
    const res = await call(server, 'POST', `/v1/rooms/${otherRoom}/message`, {
      body: { senderId: 'system', messages: [{ id: randomUUID(), type: 'TEXT', text: 'hola' }] },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.key).toBe('NOT_FOUND');
    expect(await snapshot(server)).toEqual(before);
    const { rows } = await server.app.charla.db.query('SELECT 1 FROM messages WHERE room_id = $1', [
      otherRoom,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('this deployment’s scheduler never claims another company’s due campaign', async () => {
    const claimed = await claimDueCampaigns(server.app.charla, {
      instanceId: 'tenancy-test',
      staleAfterMs: 0,
      claimBatch: 50,
    });
    expect(claimed).not.toContain(otherDueCampaign);
    const { rows } = await server.app.charla.db.query<{ status: string; claimed_by: string | null }>(
      'SELECT status, claimed_by FROM campaigns WHERE id = $1',
      [otherDueCampaign],
    );
    expect(rows[0]).toEqual({ status: 'PENDING', claimed_by: null });
  });
});
