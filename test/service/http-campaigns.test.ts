import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ON_POSTGRES,
  call,
  createBot,
  inSeconds,
  insertCampaigns,
  snapshot,
  startServer,
  uid,
  until,
  type Server,
} from './helpers/http.ts';
import {
  CampaignScheduler,
  campaignMessageId,
  claimDueCampaigns,
  runCampaign,
  runDueCampaigns,
} from '../../server/scheduler.ts';

let server: Awaited<ReturnType<typeof startServer>>;
let botId: string;

beforeAll(async () => {
  server = await startServer();
  botId = await createBot(server);
});
afterAll(async () => {
  await server?.close();
});

const list = (query: string) => call(server, 'GET', `/v1/campaigns?${query}`);
const textMessage = { type: 'text', text: 'Hola' };

async function createCampaign(body: Record<string, unknown> = {}) {
  return call(server, 'POST', '/v1/campaigns', {
    body: {
      name: 'Promo',
      elementName: 'promo-1',
      botId,
      recipients: ['u1', 'u2'],
      message: textMessage,
      ...body,
    },
  });
}

async function statusOf(id: string): Promise<string> {
  const { rows } = await server.app.charla.db.query<{ status: string }>(
    'SELECT status FROM campaigns WHERE id = $1',
    [id],
  );
  return rows[0]?.status ?? 'missing';
}

const opts = (instanceId = 'test-node') => ({ instanceId, staleAfterMs: 30_000 });

/**
 * A service of its own whose deliveries of `text` wait until `release()`, as a campaign of 100,000
 * recipients would keep its lane; `state(id)` reads a campaign's status and delivered count.
 */
async function heldService(text: string, options: Parameters<typeof startServer>[0]) {
  const own = await startServer(options);
  const charla = own.app.charla;
  const original = charla.messaging.deliver;
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  charla.messaging.deliver = async (input) => {
    if ((input as { text?: unknown }).text === text) await held;
    return original.call(charla.messaging, input);
  };
  const state = async (id: string) =>
    (
      await charla.db.query<{ status: string; delivered_messages: number }>(
        'SELECT status, delivered_messages FROM campaigns WHERE id = $1',
        [id],
      )
    ).rows[0];
  const close = async () => {
    release();
    charla.messaging.deliver = original;
    await own.close();
  };
  return { own, charla, state, release, close };
}

describe('GET /v1/campaigns', () => {
  it('lists the campaigns of a bot created in the range, newest first, with pagination', async () => {
    const bot = uid('bot');
    const rows = Array.from({ length: 23 }, (_, i) => ({
      botId: bot,
      createdAt: `2025-03-${String(i + 1).padStart(2, '0')}T12:00:00Z`,
      name: `c${i + 1}`,
    }));
    await insertCampaigns(server, rows);
    const res = await list(`botId=${bot}&startAt=2025-03-01&endAt=2025-03-31`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toEqual(expect.any(Array));
    expect(res.body.data.pagination).toEqual({ limit: 10, page: 1, total: 23, offset: 0, totalPages: 3 });
    expect(res.body.data.results).toHaveLength(10);
    expect(res.body.data.results[0].name).toBe('c23');
    const c = res.body.data.results[0];
    expect(Object.keys(c).sort()).toEqual(
      [
        'botId',
        'completedAt',
        'createdAt',
        'deliveredMessages',
        'elementName',
        'failedMessages',
        'id',
        'name',
        'scheduledAt',
        'status',
        'totalMessages',
      ].sort(),
    );
    const page3 = await list(`botId=${bot}&startAt=2025-03-01&endAt=2025-03-31&page=3`);
    expect(page3.body.data.pagination).toEqual({ limit: 10, page: 3, total: 23, offset: 20, totalPages: 3 });
    expect(page3.body.data.results.map((r: { name: string }) => r.name)).toEqual(['c3', 'c2', 'c1']);
    const page4 = await list(`botId=${bot}&startAt=2025-03-01&endAt=2025-03-31&page=4`);
    expect(page4.body.data.results).toEqual([]);
    expect(page4.body.data.pagination.total).toBe(23);
  });

  it('filters on createdAt: a date-only endAt takes in the whole day, a date-time is exact', async () => {
    const bot = uid('bot');
    await insertCampaigns(server, [
      { botId: bot, createdAt: '2025-04-30T23:59:59Z', name: 'before' },
      { botId: bot, createdAt: '2025-05-01T00:00:00Z', name: 'first' },
      { botId: bot, createdAt: '2025-05-10T23:59:59.500Z', name: 'lastday' },
      { botId: bot, createdAt: '2025-05-11T00:00:00Z', name: 'after' },
    ]);
    const names = async (q: string) =>
      (await list(`botId=${bot}&${q}`)).body.data.results.map((r: { name: string }) => r.name).sort();
    expect(await names('startAt=2025-05-01&endAt=2025-05-10')).toEqual(['first', 'lastday']);
    expect(await names('startAt=2025-05-01T00:00:01Z&endAt=2025-05-10T23:59:59Z')).toEqual([]);
    expect(
      await names(`startAt=${encodeURIComponent('2025-05-01T02:00:00+02:00')}&endAt=2025-05-01T00:00:00Z`),
    ).toEqual(['first']);
    expect(await names('startAt=2025-05-10&endAt=2025-05-10')).toEqual(['lastday']);
    // A date-time start within a date-only end's day: the rest of that day.
    expect(await names('startAt=2025-05-10T12:00:00Z&endAt=2025-05-10')).toEqual(['lastday']);
    expect(
      await names(`startAt=${encodeURIComponent('2025-05-10T23:59:59.999+00:00')}&endAt=2025-05-10`),
    ).toEqual([]);
  });

  it('filters by status and elementName', async () => {
    const bot = uid('bot');
    await insertCampaigns(server, [
      { botId: bot, createdAt: '2025-06-01T10:00:00Z', status: 'COMPLETED', elementName: 'a' },
      { botId: bot, createdAt: '2025-06-02T10:00:00Z', status: 'SCHEDULED', elementName: 'a' },
      { botId: bot, createdAt: '2025-06-03T10:00:00Z', status: 'PENDING', elementName: 'b' },
      { botId: bot, createdAt: '2025-06-04T10:00:00Z', status: 'IN_PROGRESS', elementName: 'b' },
      { botId: uid('other'), createdAt: '2025-06-04T10:00:00Z', status: 'IN_PROGRESS', elementName: 'b' },
    ]);
    const q = `botId=${bot}&startAt=2025-06-01&endAt=2025-06-30`;
    for (const s of ['COMPLETED', 'SCHEDULED', 'PENDING', 'IN_PROGRESS']) {
      const res = await list(`${q}&status=${s}`);
      expect(res.status).toBe(200);
      expect(res.body.data.results.map((r: { status: string }) => r.status)).toEqual([s]);
    }
    expect((await list(`${q}&elementName=a`)).body.data.pagination.total).toBe(2);
    expect((await list(`${q}&elementName=b&status=PENDING`)).body.data.pagination.total).toBe(1);
    expect((await list(`${q}&elementName=zzz`)).body.data.pagination).toEqual({
      limit: 10,
      page: 1,
      total: 0,
      offset: 0,
      totalPages: 0,
    });
  });

  it('takes limit 1 and 50, refuses 0 and 51', async () => {
    const bot = uid('bot');
    await insertCampaigns(
      server,
      Array.from({ length: 55 }, (_, i) => ({
        botId: bot,
        createdAt: `2025-07-01T00:${String(i).padStart(2, '0')}:00Z`,
      })),
    );
    const q = `botId=${bot}&startAt=2025-07-01&endAt=2025-07-01`;
    const l50 = await list(`${q}&limit=50`);
    expect(l50.status).toBe(200);
    expect(l50.body.data.results).toHaveLength(50);
    expect(l50.body.data.pagination.totalPages).toBe(2);
    const l1 = await list(`${q}&limit=1&page=55`);
    expect(l1.body.data.results).toHaveLength(1);
    expect(l1.body.data.pagination.offset).toBe(54);
    for (const bad of [
      'limit=51',
      'limit=0',
      'limit=-1',
      'limit=abc',
      'limit=1.5',
      'page=0',
      'page=abc',
      'page=2.5',
    ]) {
      const res = await list(`${q}&${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.status).toBe(0);
      expect(res.body.statusMessage).toBe('failed');
      expect(res.body.error.key).toBe('VALIDATION_ERROR');
      const field = bad.split('=')[0];
      expect(Object.keys(res.body.validationError), bad).toContain(`querystring:/${field}`);
    }
  });

  it('needs botId, startAt and endAt, real dates, and an end not before the start', async () => {
    const cases: Array<[string, string]> = [
      ['startAt=2025-01-01&endAt=2025-01-02', 'querystring:/botId'],
      ['botId=b&endAt=2025-01-02', 'querystring:/startAt'],
      ['botId=b&startAt=2025-01-01', 'querystring:/endAt'],
      ['botId=b&startAt=2025-02-30&endAt=2025-03-01', 'querystring:/startAt'],
      ['botId=b&startAt=2025-01-01&endAt=2025-13-01', 'querystring:/endAt'],
      ['botId=b&startAt=yesterday&endAt=2025-01-01', 'querystring:/startAt'],
      ['botId=b&startAt=2025-01-01T25:00:00Z&endAt=2025-01-02', 'querystring:/startAt'],
      ['botId=b&startAt=2025-01-02&endAt=2025-01-01', 'querystring:/endAt'],
      ['botId=b&startAt=2025-01-02T00:00:00Z&endAt=2025-01-01', 'querystring:/endAt'],
      ['botId=b&startAt=2025-01-01&endAt=2025-01-02&status=CANCELLED', 'querystring:/status'],
      ['botId=b&startAt=2025-01-01&endAt=2025-01-02&status=done', 'querystring:/status'],
      ['botId=&startAt=2025-01-01&endAt=2025-01-02', 'querystring:/botId'],
      ['botId=a&botId=b&startAt=2025-01-01&endAt=2025-01-02', 'querystring:/botId'],
    ];
    for (const [q, field] of cases) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(Object.keys(res.body.validationError), q).toContain(field);
    }
    const missingAll = await list('');
    expect(Object.keys(missingAll.body.validationError).sort()).toEqual(
      ['querystring:/botId', 'querystring:/endAt', 'querystring:/startAt'].sort(),
    );
    expect((await list('botId=b&startAt=2024-02-29&endAt=2024-02-29')).status).toBe(200);
    expect((await list('botId=b&startAt=2025-01-01&endAt=2025-01-01')).status).toBe(200);
  });

  it('needs credentials', async () => {
    const q = '/v1/campaigns?botId=b&startAt=2025-01-01&endAt=2025-01-02';
    for (const authorization of [
      undefined,
      'Basic ' + Buffer.from('demo-client:wrong').toString('base64'),
      'Bearer x',
      'Basic demo-company-token',
      'Basic',
    ]) {
      const res = await call(server, 'GET', q, { headers: { authorization } });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.body.error.key).toBe('UNAUTHORIZED');
      expect(res.body.status).toBe(0);
    }
  });
});

describe('POST /v1/campaigns', () => {
  it('creates a SCHEDULED campaign with a future scheduledAt', async () => {
    const at = inSeconds(3600);
    const res = await createCampaign({ scheduledAt: at, recipients: ['a', 'b', 'a'] });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(1);
    expect(res.body.statusMessage).toContain('success');
    expect(res.body.data).toMatchObject({
      status: 'SCHEDULED',
      name: 'Promo',
      elementName: 'promo-1',
      botId,
      totalMessages: 2,
      deliveredMessages: 0,
      failedMessages: 0,
      completedAt: null,
      scheduledAt: new Date(at).toISOString(),
    });
  });

  it('creates a PENDING campaign without scheduledAt', async () => {
    const res = await createCampaign();
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('PENDING');
    expect(res.body.data.scheduledAt).toBeNull();
  });

  it('refuses a past or zoneless scheduledAt, an unknown bot, bad messages, and changes nothing', async () => {
    const before = await snapshot(server);
    const cases: Array<[Record<string, unknown>, number, string?]> = [
      [{ scheduledAt: inSeconds(-60) }, 400, '/scheduledAt'],
      [{ scheduledAt: '2030-01-01T10:00:00' }, 400, '/scheduledAt'],
      [{ scheduledAt: '2030-02-30T10:00:00Z' }, 400, '/scheduledAt'],
      [{ botId: uid('nobot') }, 404],
      [{ recipients: [] }, 400, '/recipients'],
      [{ recipients: [''] }, 400, '/recipients/0'],
      [{ name: '' }, 400, '/name'],
      [{ message: { type: 'text' } }, 400, '/message/text'],
      [{ message: { type: 'fax', text: 'x' } }, 400, '/message/type'],
      [{ message: { type: 'text', text: 'x', buttons: { options: [] } } }, 400, '/message/buttons/options'],
      [{ message: 'hi' }, 400, '/message'],
      [{ message: undefined }, 400, '/message'],
      [{ message: { type: 'voice_call', text: 'x', parameters: { display_text: 'Call' } } }, 403],
    ];
    for (const [patch, status, field] of cases) {
      const res = await createCampaign(patch);
      expect(res.status, JSON.stringify(patch)).toBe(status);
      if (field) expect(Object.keys(res.body.validationError), JSON.stringify(patch)).toContain(field);
    }
    expect(await snapshot(server)).toEqual(before);
  });
});

describe('POST /v1/campaigns with the caller’s own id', () => {
  const count = async (id: string) =>
    Number(
      (
        await server.app.charla.db.query<{ n: string | number }>(
          'SELECT count(*) AS n FROM campaign_recipients WHERE campaign_id = $1',
          [id],
        )
      ).rows[0]?.n,
    );

  it('a retry of the request answers the campaign it made (any case of the UUID), even once its time has passed', async () => {
    const id = randomUUID();
    const at = inSeconds(2);
    const first = await createCampaign({ id, scheduledAt: at, elementName: `retry-${id}` });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ id, status: 'SCHEDULED', totalMessages: 2 });
    const again = await createCampaign({ id: id.toUpperCase(), scheduledAt: at, elementName: `retry-${id}` });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    // Said as what it is: nothing was created this time.
    expect(first.body.message).toEqual(['Campaign created successfully.']);
    expect(again.body.message).toEqual(['Campaign already created by an earlier request with this id.']);
    // Its time passed: a new campaign would be refused (past scheduledAt), the retry is answered.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect((await createCampaign({ id, scheduledAt: at, elementName: `retry-${id}` })).body.data.id).toBe(id);
    const listed = await list(
      `botId=${botId}&startAt=2020-01-01&endAt=2100-01-01&elementName=${encodeURIComponent(`retry-${id}`)}`,
    );
    expect(listed.body.data.pagination.total).toBe(1);
    expect(await count(id)).toBe(2);
  });

  it('the same request at once from several workers makes one campaign, every one answered with it', async () => {
    const id = randomUUID();
    const recipients = Array.from({ length: 5_000 }, (_, i) => `r${i}`);
    const body = { id, recipients, scheduledAt: inSeconds(3600), elementName: `burst-${id}` };
    const answers = await Promise.all(Array.from({ length: 4 }, () => createCampaign(body)));
    expect(answers.map((a) => [a.status, a.body.data?.id, a.body.data?.totalMessages])).toEqual(
      Array.from({ length: 4 }, () => [200, id, 5_000]),
    );
    expect(await count(id)).toBe(5_000);
    // Cancelled, the retry answers it cancelled: it makes no campaign again.
    expect((await call(server, 'DELETE', `/v1/campaigns/${id}`)).status).toBe(200);
    const retry = await createCampaign(body);
    expect([retry.status, retry.body.data.status]).toEqual([200, 'CANCELLED']);
  });

  it('refuses the same id with another request, and an id that is no UUID; changes nothing', async () => {
    const id = randomUUID();
    expect((await createCampaign({ id, scheduledAt: inSeconds(3600) })).status).toBe(200);
    const before = await snapshot(server);
    for (const patch of [
      { id, scheduledAt: inSeconds(3600), name: 'Otra' },
      { id, recipients: ['u2', 'u1'] },
      { id: 'promo-1' },
    ]) {
      const res = await createCampaign(patch);
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(Object.keys(res.body.validationError)).toEqual(['/id']);
    }
    expect(await snapshot(server)).toEqual(before);
  });
});

describe('DELETE /v1/campaigns/{id}', () => {
  it('cancels a SCHEDULED campaign, which then reaches no recipient', async () => {
    const created = await createCampaign({ scheduledAt: inSeconds(3600), recipients: [uid('u')] });
    const id = created.body.data.id;
    const res = await call(server, 'DELETE', `/v1/campaigns/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 1,
      statusMessage: 'success',
      data: { id, status: 'CANCELLED' },
    });
    // Even when its time has come, the scheduler leaves it alone.
    await server.app.charla.db.query(
      `UPDATE campaigns SET scheduled_at = now() - interval '1 minute' WHERE id = $1`,
      [id],
    );
    await runDueCampaigns(server.app.charla, opts());
    expect(await statusOf(id)).toBe('CANCELLED');
    const { rows } = await server.app.charla.db.query<{ status: string }>(
      'SELECT status FROM campaign_recipients WHERE campaign_id = $1',
      [id],
    );
    expect(rows.map((r) => r.status)).toEqual(['pending']);
  });

  it('is 409 for any state but SCHEDULED and 404 for an unknown id', async () => {
    const bot = uid('bot');
    const ids = await insertCampaigns(server, [
      { botId: bot, createdAt: '2025-01-01T00:00:00Z', status: 'PENDING' },
      { botId: bot, createdAt: '2025-01-01T00:00:00Z', status: 'IN_PROGRESS' },
      { botId: bot, createdAt: '2025-01-01T00:00:00Z', status: 'COMPLETED' },
      { botId: bot, createdAt: '2025-01-01T00:00:00Z', status: 'CANCELLED' },
    ]);
    for (const id of ids) {
      const before = await statusOf(id);
      const res = await call(server, 'DELETE', `/v1/campaigns/${id}`);
      expect(res.status).toBe(409);
      expect(res.body.error.key).toBe('INVALID_STATE');
      expect(res.body.data.status).toBe(before);
      expect(await statusOf(id)).toBe(before);
    }
    const missing = await call(server, 'DELETE', `/v1/campaigns/${uid('none')}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.key).toBe('NOT_FOUND');
    // Text the database cannot hold is the client's mistake, not a 500.
    const nul = await call(server, 'DELETE', '/v1/campaigns/%00');
    expect(nul.status).toBe(400);
    expect(Object.keys(nul.body.validationError)).toContain('params:/campaignId');
    const lone = await createCampaign({ name: 'a\ud800b' });
    expect(lone.status).toBe(400);
    expect(Object.keys(lone.body.validationError)).toContain('/name');
  });

  it('accepts a JSON content type with no body, and needs credentials', async () => {
    const created = await createCampaign({ scheduledAt: inSeconds(3600) });
    const id = created.body.data.id;
    const noAuth = await call(server, 'DELETE', `/v1/campaigns/${id}`, {
      headers: { authorization: undefined },
    });
    expect(noAuth.status).toBe(401);
    expect(await statusOf(id)).toBe('SCHEDULED');
    const res = await call(server, 'DELETE', `/v1/campaigns/${id}`, {
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
  });

  it('a cancel racing the scheduler: exactly one wins, and a cancelled campaign sends nothing', async () => {
    const charla = server.app.charla;
    for (let round = 0; round < 8; round++) {
      const user = uid('race');
      const created = await createCampaign({ scheduledAt: inSeconds(3600), recipients: [user] });
      const id = created.body.data.id;
      await charla.db.query(`UPDATE campaigns SET scheduled_at = now() - interval '1 second' WHERE id = $1`, [
        id,
      ]);
      const [cancel] = await Promise.all([
        call(server, 'DELETE', `/v1/campaigns/${id}`),
        claimDueCampaigns(charla, opts(`racer-${round}`)),
      ]);
      const status = await statusOf(id);
      if (cancel.status === 200) {
        expect(status).toBe('CANCELLED');
      } else {
        expect(cancel.status).toBe(409);
        expect(status).toBe('IN_PROGRESS');
        await runCampaign(charla, id, opts(`racer-${round}`));
        expect(await statusOf(id)).toBe('COMPLETED');
      }
      const sent = await charla.db.query('SELECT 1 FROM messages WHERE id = $1', [
        campaignMessageId(id, user),
      ]);
      expect(sent.rows.length).toBe(cancel.status === 200 ? 0 : 1);
    }
  });
});

describe('PUT /v1/campaigns/{id}', () => {
  it('updates the name, the scheduled date, or both', async () => {
    const at = inSeconds(3600);
    const id = (await createCampaign({ scheduledAt: at })).body.data.id;
    const r1 = await call(server, 'PUT', `/v1/campaigns/${id}`, { body: { name: 'Nuevo' } });
    expect(r1.status).toBe(200);
    expect(r1.body.data).toMatchObject({
      id,
      name: 'Nuevo',
      status: 'SCHEDULED',
      scheduledAt: new Date(at).toISOString(),
    });
    const later = new Date(Date.parse(at) + 60_000);
    const offset = later.toISOString().replace('Z', '+00:00');
    const r2 = await call(server, 'PUT', `/v1/campaigns/${id}`, { body: { scheduledAt: offset } });
    expect(r2.status).toBe(200);
    expect(r2.body.data.scheduledAt).toBe(later.toISOString());
    const latest = new Date(Date.parse(at) + 120_000);
    const r3 = await call(server, 'PUT', `/v1/campaigns/${id}`, {
      body: { name: 'Ambos', scheduledAt: latest.toISOString() },
    });
    expect(r3.body.data).toMatchObject({ name: 'Ambos', scheduledAt: latest.toISOString() });
  });

  it('refuses a date not later than the current one, without a zone, or an empty body; changes nothing', async () => {
    const at = inSeconds(3600);
    const id = (await createCampaign({ scheduledAt: at })).body.data.id;
    const before = await snapshot(server);
    const cases: Array<[unknown, string]> = [
      [{ scheduledAt: at }, '/scheduledAt'],
      [{ scheduledAt: new Date(Date.parse(at) - 1000).toISOString() }, '/scheduledAt'],
      [{ scheduledAt: new Date(Date.parse(at) + 60_000).toISOString().replace('Z', '') }, '/scheduledAt'],
      [{ scheduledAt: '2099-02-29T10:00:00Z' }, '/scheduledAt'],
      [{ scheduledAt: 'tomorrow' }, '/scheduledAt'],
      [{ name: 'ok', scheduledAt: inSeconds(10) }, '/scheduledAt'],
      [{}, '/'],
      [{ foo: 1 }, '/'],
      [{ name: '' }, '/name'],
      [{ name: 5 }, '/name'],
    ];
    for (const [body, field] of cases) {
      const res = await call(server, 'PUT', `/v1/campaigns/${id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.validationError), JSON.stringify(body)).toContain(field);
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('is 409 unless SCHEDULED and 404 for an unknown id', async () => {
    const bot = uid('bot');
    const ids = await insertCampaigns(server, [
      { botId: bot, createdAt: '2025-01-01T00:00:00Z', status: 'PENDING' },
      { botId: bot, createdAt: '2025-01-01T00:00:00Z', status: 'COMPLETED' },
      { botId: bot, createdAt: '2025-01-01T00:00:00Z', status: 'CANCELLED' },
      { botId: bot, createdAt: '2025-01-01T00:00:00Z', status: 'IN_PROGRESS' },
    ]);
    for (const id of ids) {
      const res = await call(server, 'PUT', `/v1/campaigns/${id}`, { body: { name: 'x' } });
      expect(res.status).toBe(409);
      expect(res.body.error.key).toBe('INVALID_STATE');
    }
    const missing = await call(server, 'PUT', `/v1/campaigns/${uid('none')}`, { body: { name: 'x' } });
    expect(missing.status).toBe(404);
  });
});

describe('the campaign scheduler', () => {
  it('claims only what a lane is sending: with one lane, a due campaign waiting behind a running one stays unclaimed', async () => {
    const charla = server.app.charla;
    const first = (await createCampaign({ scheduledAt: inSeconds(3600), recipients: [uid('u'), uid('u')] }))
      .body.data.id;
    const second = (await createCampaign({ scheduledAt: inSeconds(3600), recipients: [uid('u')] })).body.data
      .id;
    await charla.db.query(
      `UPDATE campaigns SET scheduled_at = now() - interval '1 second' WHERE id = ANY($1::text[])`,
      [[first, second]],
    );
    // Asked between recipients while a campaign runs: look at the claims each time.
    const seen: Array<Promise<{ rows: Array<{ claimed_by: string | null }> }>> = [];
    await runDueCampaigns(charla, {
      ...opts('node-a'),
      lanes: 1,
      shouldStop: () => {
        seen.push(
          charla.db.query<{ claimed_by: string | null }>(
            'SELECT claimed_by FROM campaigns WHERE id = ANY($1::text[])',
            [[first, second]],
          ),
        );
        return false;
      },
    });
    const held = (await Promise.all(seen)).map((r) => r.rows.filter((x) => x.claimed_by === 'node-a').length);
    expect(held).toContain(1);
    expect(Math.max(...held)).toBe(1);
    expect(await statusOf(first)).toBe('COMPLETED');
    expect(await statusOf(second)).toBe('COMPLETED');
  });

  it('moves a due SCHEDULED campaign to IN_PROGRESS, sends to every recipient once, ends COMPLETED', async () => {
    const charla = server.app.charla;
    const users = [uid('u'), uid('u'), uid('u')];
    const id = (await createCampaign({ scheduledAt: inSeconds(3600), recipients: users })).body.data.id;
    // Not due yet: left alone.
    await runDueCampaigns(charla, opts());
    expect(await statusOf(id)).toBe('SCHEDULED');
    await charla.db.query(`UPDATE campaigns SET scheduled_at = now() - interval '1 second' WHERE id = $1`, [
      id,
    ]);
    const claimed = await claimDueCampaigns(charla, opts());
    expect(claimed).toContain(id);
    expect(await statusOf(id)).toBe('IN_PROGRESS');
    await runCampaign(charla, id, opts());
    const bot = uid('b');
    void bot;
    const listed = await call(
      server,
      'GET',
      `/v1/campaigns?botId=${botId}&startAt=2020-01-01&endAt=2100-01-01&status=COMPLETED&limit=50`,
    );
    const c = listed.body.data.results.find((r: { id: string }) => r.id === id);
    expect(c).toMatchObject({
      status: 'COMPLETED',
      totalMessages: 3,
      deliveredMessages: 3,
      failedMessages: 0,
    });
    expect(Date.parse(c.completedAt)).toBeGreaterThan(Date.parse(c.createdAt) - 1);
    // Signed with the bot's name, as the bot's other messages are.
    const botName = (await charla.db.query<{ name: string }>('SELECT name FROM bots WHERE id = $1', [botId]))
      .rows[0]?.name;
    expect(botName).toBeTruthy();
    for (const u of users) {
      const { rows } = await charla.db.query<{
        body: { type: string; text: string; by: string; senderId: string };
      }>('SELECT body FROM messages WHERE id = $1', [campaignMessageId(id, u)]);
      expect(rows[0]?.body).toMatchObject({
        type: 'TEXT',
        text: 'Hola',
        by: 'bot',
        senderId: botId,
        senderNames: botName,
      });
    }
    // Running it again sends nothing more.
    const count = async () =>
      Number((await charla.db.query<{ n: string }>('SELECT count(*) AS n FROM messages')).rows[0]?.n);
    const n = await count();
    await runDueCampaigns(charla, opts());
    await runCampaign(charla, id, opts());
    expect(await count()).toBe(n);
  });

  it('resumes a campaign whose process died mid-way without sending to anyone twice', async () => {
    const charla = server.app.charla;
    const users = Array.from({ length: 6 }, () => uid('u'));
    const id = (await createCampaign({ scheduledAt: inSeconds(3600), recipients: users })).body.data.id;
    await charla.db.query(`UPDATE campaigns SET scheduled_at = now() - interval '1 second' WHERE id = $1`, [
      id,
    ]);
    // A process claims it and "dies" after two recipients (one of them delivered but not yet marked).
    await claimDueCampaigns(charla, opts('dead-node'));
    let sent = 0;
    await runCampaign(charla, id, { ...opts('dead-node'), recipientBatch: 1, shouldStop: () => sent++ >= 2 });
    const sorted = [...users].sort();
    const third = sorted[2] as string;
    const { deliverPrepared, toWidgetMessage } = await import('../../server/bot-message.ts');
    await deliverPrepared(charla, {
      botId,
      userId: third,
      message: toWidgetMessage({ type: 'text', text: 'Hola' }),
      id: campaignMessageId(id, third),
    });
    expect(await statusOf(id)).toBe('IN_PROGRESS');
    // Another node does not take a fresh claim...
    expect(await claimDueCampaigns(charla, opts('live-node'))).not.toContain(id);
    // ...but takes a stale one.
    await charla.db.query(`UPDATE campaigns SET claimed_at = now() - interval '10 minutes' WHERE id = $1`, [
      id,
    ]);
    await runDueCampaigns(charla, opts('live-node'));
    expect(await statusOf(id)).toBe('COMPLETED');
    const { rows } = await charla.db.query<{
      total_messages: number;
      delivered_messages: number;
      failed_messages: number;
      claimed_by: string | null;
    }>(
      'SELECT total_messages, delivered_messages, failed_messages, claimed_by FROM campaigns WHERE id = $1',
      [id],
    );
    expect(rows[0]).toMatchObject({
      total_messages: 6,
      delivered_messages: 6,
      failed_messages: 0,
      claimed_by: null,
    });
    for (const u of users) {
      const m = await charla.db.query<{ n: string }>(
        `SELECT count(*) AS n FROM messages m JOIN rooms r ON r.id = m.room_id WHERE m.id = $1`,
        [campaignMessageId(id, u)],
      );
      expect(Number(m.rows[0]?.n)).toBe(1);
    }
  });

  it('a scheduler stopped mid-campaign (shutdown) gives up its claim: another process takes over at once', async () => {
    const charla = server.app.charla;
    const users = Array.from({ length: 400 }, () => uid('u'));
    const id = (await createCampaign({ scheduledAt: inSeconds(3600), recipients: users })).body.data.id;
    await charla.db.query(`UPDATE campaigns SET scheduled_at = now() - interval '1 second' WHERE id = $1`, [
      id,
    ]);
    const stopping = new CampaignScheduler(charla, 60_000, {
      ...opts('stopping-node'),
      recipientBatch: 1,
    });
    stopping.start();
    const sentSoFar = async () =>
      Number(
        (
          await charla.db.query<{ n: string }>(
            `SELECT count(*) AS n FROM campaign_recipients WHERE campaign_id = $1 AND status <> 'pending'`,
            [id],
          )
        ).rows[0]?.n ?? 0,
      );
    const end = Date.now() + 10_000;
    while ((await sentSoFar()) < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    await stopping.stop();
    expect(await statusOf(id)).toBe('IN_PROGRESS');
    const claim = await charla.db.query<{ claimed_by: string | null }>(
      'SELECT claimed_by FROM campaigns WHERE id = $1',
      [id],
    );
    expect(claim.rows[0]?.claimed_by).toBeNull();
    // Not stale (claimed a moment ago), yet free: the next process's tick takes it.
    expect(await claimDueCampaigns(charla, opts('next-node'))).toContain(id);
    await runCampaign(charla, id, opts('next-node'));
    expect(await statusOf(id)).toBe('COMPLETED');
  });

  it('two schedulers at once (two processes on PostgreSQL) never send one campaign twice', async () => {
    // On PostgreSQL a second service shares this one's schema; on PGlite two instance ids share the one store.
    const other = ON_POSTGRES ? await startServer({}, { schema: server.schema, keep: true }) : null;
    try {
      const a = server.app.charla;
      const b = other ? other.app.charla : server.app.charla;
      // Every deliver call is seen: a second send of one message would come back as a duplicate.
      const calls: Array<{ id: string; duplicate: boolean }> = [];
      const restore: Array<() => void> = [];
      for (const c of new Set([a, b])) {
        const original = c.messaging.deliver;
        c.messaging.deliver = async (input) => {
          const r = await original.call(c.messaging, input);
          calls.push({ id: String(r.message.id), duplicate: r.duplicate });
          return r;
        };
        restore.push(() => {
          c.messaging.deliver = original;
        });
      }
      const ids: string[] = [];
      const users = new Map<string, string[]>();
      for (let i = 0; i < 6; i++) {
        const recipients = Array.from({ length: 5 }, () => uid('twin'));
        const id = (await createCampaign({ recipients })).body.data.id as string;
        ids.push(id);
        users.set(id, recipients);
      }
      for (let round = 0; round < 20; round++) {
        await Promise.all([
          runDueCampaigns(a, { ...opts('node-a'), claimBatch: 2 }),
          runDueCampaigns(b, { ...opts('node-b'), claimBatch: 2 }),
        ]);
        const left = await a.db.query(
          `SELECT 1 FROM campaigns WHERE id = ANY($1::text[]) AND status <> 'COMPLETED'`,
          [ids],
        );
        if (left.rows.length === 0) break;
      }
      for (const id of ids) {
        const { rows } = await a.db.query<{
          status: string;
          delivered_messages: number;
          failed_messages: number;
        }>('SELECT status, delivered_messages, failed_messages FROM campaigns WHERE id = $1', [id]);
        expect(rows[0]).toMatchObject({ status: 'COMPLETED', delivered_messages: 5, failed_messages: 0 });
        for (const u of users.get(id) ?? []) {
          const m = await a.db.query('SELECT 1 FROM messages WHERE id = $1', [campaignMessageId(id, u)]);
          expect(m.rows).toHaveLength(1);
        }
      }
      const ours = new Set(ids.flatMap((id) => (users.get(id) ?? []).map((u) => campaignMessageId(id, u))));
      const mine = calls.filter((c) => ours.has(c.id));
      expect(mine.filter((c) => c.duplicate)).toEqual([]);
      expect(mine).toHaveLength(30);
      restore.forEach((r) => r());
    } finally {
      await other?.close();
    }
  }, 120_000);

  it('counts failed recipients', async () => {
    const charla = server.app.charla;
    const id = (await createCampaign({ recipients: [uid('u'), uid('u')] })).body.data.id;
    // A recipient whose message id is taken by a message in another room cannot get it: force a failure by
    // deleting the bot between creation and sending.
    await charla.db.query(`UPDATE campaigns SET bot_id = $2 WHERE id = $1`, [id, uid('gone')]);
    await runDueCampaigns(charla, opts());
    const { rows } = await charla.db.query<{
      status: string;
      delivered_messages: number;
      failed_messages: number;
    }>('SELECT status, delivered_messages, failed_messages FROM campaigns WHERE id = $1', [id]);
    expect(rows[0]?.status).toBe('COMPLETED');
    expect((rows[0]?.delivered_messages ?? 0) + (rows[0]?.failed_messages ?? 0)).toBe(2);
  });

  it('runs by itself in a service started with the scheduler on: PENDING is sent at once', async () => {
    const own = await startServer({ scheduler: true, schedulerIntervalMs: 100 });
    try {
      const bot = await createBot(own);
      const res = await call(own, 'POST', '/v1/campaigns', {
        body: { name: 'Now', elementName: 'now', botId: bot, recipients: ['x1', 'x2'], message: textMessage },
      });
      expect(res.body.data.status).toBe('PENDING');
      const id = res.body.data.id;
      const done = await until(async () => {
        const r = await own.app.charla.db.query<{ status: string; delivered_messages: number }>(
          'SELECT status, delivered_messages FROM campaigns WHERE id = $1',
          [id],
        );
        return r.rows[0]?.status === 'COMPLETED' ? r.rows[0] : null;
      });
      expect(done.delivered_messages).toBe(2);
      // A scheduled one starts at its time.
      const soon = await call(own, 'POST', '/v1/campaigns', {
        body: {
          name: 'Soon',
          elementName: 'soon',
          botId: bot,
          recipients: ['x3'],
          message: textMessage,
          scheduledAt: inSeconds(1),
        },
      });
      expect(soon.body.data.status).toBe('SCHEDULED');
      await until(async () => {
        const r = await own.app.charla.db.query<{ status: string }>(
          'SELECT status FROM campaigns WHERE id = $1',
          [soon.body.data.id],
        );
        return r.rows[0]?.status === 'COMPLETED';
      });
    } finally {
      await own.close();
    }
  }, 120_000);

  it('sends no more campaigns at once than its lanes: a third waits PENDING (still cancellable) for a free lane', async () => {
    const { own, charla, state: row, release, close } = await heldService('Held', { scheduler: false });
    const state = async (id: string) => (await row(id))?.status;
    const scheduler = new CampaignScheduler(charla, 100, { instanceId: 'lanes-node', lanes: 2 });
    try {
      const bot = await createBot(own);
      const ids: string[] = [];
      for (const name of ['one', 'two', 'three']) {
        const res = await call(own, 'POST', '/v1/campaigns', {
          body: {
            name,
            elementName: name,
            botId: bot,
            recipients: [uid('r')],
            message: { type: 'text', text: 'Held' },
          },
        });
        ids.push(res.body.data.id as string);
      }
      scheduler.start();
      const [one, two, three] = ids as [string, string, string];
      await until(async () => (await state(one)) === 'IN_PROGRESS' && (await state(two)) === 'IN_PROGRESS');
      // Both lanes are held: the third is not claimed, whatever the ticks (100 ms) do meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await state(three)).toBe('PENDING');
      release();
      for (const id of ids) await until(async () => (await state(id)) === 'COMPLETED');
    } finally {
      release();
      await scheduler.stop();
      await close();
    }
  });

  it('sends campaigns side by side: one held up does not hold back those due after it', async () => {
    // The first campaign's messages wait until the test lets them go.
    const { own, state, release, close } = await heldService('Big news', {
      scheduler: true,
      schedulerIntervalMs: 100,
    });
    try {
      const bot = await createBot(own);
      const post = async (name: string, text: string, extra: Record<string, unknown> = {}) =>
        (
          await call(own, 'POST', '/v1/campaigns', {
            body: {
              name,
              elementName: name,
              botId: bot,
              recipients: [uid('r'), uid('r'), uid('r')],
              message: { type: 'text', text },
              ...extra,
            },
          })
        ).body.data.id as string;
      const big = await post('big', 'Big news');
      await until(async () => (await state(big))?.status === 'IN_PROGRESS');
      const now = await post('now', 'Hola');
      const soon = await post('soon', 'Hola', { scheduledAt: inSeconds(1) });
      for (const id of [now, soon]) {
        const done = await until(async () => {
          const s = await state(id);
          return s?.status === 'COMPLETED' ? s : null;
        });
        expect(done.delivered_messages).toBe(3);
      }
      expect(await state(big)).toMatchObject({ status: 'IN_PROGRESS', delivered_messages: 0 });
      release();
      const bigDone = await until(async () => {
        const s = await state(big);
        return s?.status === 'COMPLETED' ? s : null;
      });
      expect(bigDone.delivered_messages).toBe(3);
    } finally {
      await close();
    }
  }, 120_000);
});
