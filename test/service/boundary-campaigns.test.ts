/**
 * Campaigns at their edges: recipients at and past 100,000, names at 1,024
 * characters counted as code points (emoji), filters that are given but
 * empty, and the states an update or a cancel must refuse, each with the
 * error body and nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, inSeconds, snapshot, startServer, type Server } from './helpers/http.ts';

let server: Server;
let botId: string;

beforeAll(async () => {
  server = await startServer();
  botId = await createBot(server);
});
afterAll(async () => {
  await server?.close();
});

const create = (body: Record<string, unknown>) =>
  call(server, 'POST', '/v1/campaigns', {
    body: {
      name: 'Promo',
      elementName: 'promo',
      botId,
      recipients: ['u-1'],
      message: { type: 'text', text: 'Hola' },
      scheduledAt: inSeconds(3600),
      ...body,
    },
  });
const list = (query: string) =>
  call(server, 'GET', `/v1/campaigns?botId=${botId}&startAt=2020-01-01&endAt=2100-01-01${query}`);

function expectRefused(res: { status: number; body: any }, status: number, key: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ statusMessage: 'failed', status: 0, error: { key } });
}

describe('campaign limits', () => {
  it('takes 100,000 recipients of the longest id (200 characters), all stored, and refuses 100,001: the body limit leaves room for both limits', async () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `${i}`.padStart(200, 'x'));
    const at = await create({ recipients: ids });
    expect(at.status, at.text.slice(0, 300)).toBe(200);
    expect(at.body.data.totalMessages).toBe(100_000);
    // Written in pieces (the event loop is let go between them), all of them there.
    const stored = await server.app.charla.db.query<{
      n: number;
      different: number;
      shortest: number;
      longest: number;
    }>(
      `SELECT count(*)::int AS n, count(DISTINCT user_id)::int AS different, min(length(user_id))::int AS shortest,
              max(length(user_id))::int AS longest
         FROM campaign_recipients WHERE campaign_id = $1`,
      [at.body.data.id],
    );
    expect(stored.rows[0]).toEqual({ n: 100_000, different: 100_000, shortest: 200, longest: 200 });
    const before = await snapshot(server);
    const past = await create({ recipients: [...ids, 'one-more'] });
    expectRefused(past, 400, 'VALIDATION_ERROR');
    expect(Object.keys(past.body.validationError)).toEqual(['/recipients']);
    expect(await snapshot(server)).toEqual(before);
  });

  it('refuses a body past 32 MB with 413 and stores nothing', async () => {
    const before = await snapshot(server);
    const ids = Array.from({ length: 100_000 }, (_, i) => `${i}`.padStart(200, 'x'));
    const res = await create({ recipients: ids, name: 'n'.repeat(13 * 1024 * 1024) });
    expectRefused(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(await snapshot(server)).toEqual(before);
  });

  it('counts a name’s 1,024 characters as code points: 1,024 emoji fit, 1,025 do not', async () => {
    const at = await create({ name: '🎉'.repeat(1024) });
    expect(at.status).toBe(200);
    expect(at.body.data.name).toBe('🎉'.repeat(1024));
    expectRefused(await create({ name: '🎉'.repeat(1025) }), 400, 'VALIDATION_ERROR');
    const id = at.body.data.id;
    const renamed = await call(server, 'PUT', `/v1/campaigns/${id}`, { body: { name: '🚀'.repeat(1024) } });
    expect(renamed.status).toBe(200);
    expectRefused(
      await call(server, 'PUT', `/v1/campaigns/${id}`, { body: { name: '🚀'.repeat(1025) } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('refuses a blank elementName, as a blank name', async () => {
    for (const elementName of ['   ', '\u200b']) {
      const res = await create({ elementName });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.validationError)).toEqual(['/elementName']);
    }
  });

  it('an elementName filter given empty is a 400, like an empty botId or status (no campaign has one)', async () => {
    for (const [query, field] of [
      ['&elementName=', 'querystring:/elementName'],
      ['&status=', 'querystring:/status'],
    ]) {
      const res = await list(query as string);
      expectRefused(res, 400, 'VALIDATION_ERROR');
      expect(Object.keys(res.body.validationError)).toEqual([field]);
    }
  });
});

describe('campaign states', () => {
  it('reads a date-time fraction of any length to the millisecond (ISO 8601 sets no limit on its digits)', async () => {
    const created = await create({ scheduledAt: '2099-06-01T10:00:00.1234567890123Z' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.scheduledAt).toBe('2099-06-01T10:00:00.123Z');
    const moved = await call(server, 'PUT', `/v1/campaigns/${created.body.data.id}`, {
      body: { scheduledAt: '2099-06-01T10:00:00.12400000000000000001+00:00' },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.data.scheduledAt).toBe('2099-06-01T10:00:00.124Z');
    const listed = await call(
      server,
      'GET',
      `/v1/campaigns?botId=${botId}&startAt=2020-01-01T00:00:00.0000000000Z&endAt=2100-01-01T00:00:00.99999999999`,
    );
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    // A fraction with no digits, or a comma, is still not a date-time.
    for (const bad of ['2099-06-01T10:00:00.Z', '2099-06-01T10:00:00,5Z'])
      expectRefused(await create({ scheduledAt: bad }), 400, 'VALIDATION_ERROR');
  });

  it('a cancelled campaign cannot be cancelled again or updated: 409 with its status, unchanged', async () => {
    const created = await create({});
    const id = created.body.data.id;
    expect((await call(server, 'DELETE', `/v1/campaigns/${id}`)).body.data.status).toBe('CANCELLED');
    const before = await snapshot(server);
    for (const res of [
      await call(server, 'DELETE', `/v1/campaigns/${id}`),
      await call(server, 'PUT', `/v1/campaigns/${id}`, { body: { name: 'x' } }),
      await call(server, 'PUT', `/v1/campaigns/${id}`, { body: { scheduledAt: inSeconds(7200) } }),
    ]) {
      expectRefused(res, 409, 'INVALID_STATE');
      expect(res.body.data).toMatchObject({ campaignId: id, status: 'CANCELLED' });
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('a PENDING campaign (sent at once) cannot be updated or cancelled', async () => {
    const created = await create({ scheduledAt: undefined });
    expect(created.body.data.status).toBe('PENDING');
    const id = created.body.data.id;
    for (const res of [
      await call(server, 'DELETE', `/v1/campaigns/${id}`),
      await call(server, 'PUT', `/v1/campaigns/${id}`, { body: { name: 'x' } }),
    ]) {
      expectRefused(res, 409, 'INVALID_STATE');
      expect(res.body.data.status).toBe('PENDING');
    }
  });
});
