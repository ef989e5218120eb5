/**
 * GET /v1/campaigns answers exactly what the plain SQL of the list gives
 * (count + LATERAL page, rows mapped column by column): the same results,
 * in the same order, with the same dates, for every filter shape, page and
 * limit, over rows made to be awkward (ties on createdAt, microseconds, null
 * and set completedAt/scheduledAt, names with quotes, backslashes, control
 * characters and emoji). And a write is in the very next list, also when it
 * went through another service process on the same PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ON_POSTGRES, call, createBot, inSeconds, startServer, uid, type Server } from './helpers/http.ts';
import { toCampaign, type CampaignRow } from '../../server/campaigns/service.ts';
import { listRange } from '../../server/campaigns/dates.ts';
import { splitStatements } from '../../server/store/migrate.ts';

let server: Server & { schema: string | undefined };

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const COLUMNS =
  'id, name, element_name, bot_id, status, total_messages, delivered_messages, failed_messages, created_at, completed_at, scheduled_at';

/** The list as plain SQL, mapped row by row: what the endpoint answered before migration 003. */
async function reference(q: Record<string, string | number | undefined>) {
  const range = listRange(String(q['startAt']), String(q['endAt']));
  if ('errors' in range) throw new Error('bad range in the test');
  const limit = Number(q['limit'] ?? 10);
  const page = Number(q['page'] ?? 1);
  const offset = (page - 1) * limit;
  const params: unknown[] = [q['botId'], range.from, range.to];
  let where = 'bot_id = $1 AND created_at >= $2 AND created_at < $3';
  if (q['status'] !== undefined) {
    params.push(q['status']);
    where += ` AND status = $${params.length}`;
  }
  if (q['elementName'] !== undefined) {
    params.push(q['elementName']);
    where += ` AND element_name = $${params.length}`;
  }
  const n = params.length;
  const { rows } = await server.app.charla.db.query<CampaignRow & { total: string | number }>(
    `WITH t AS (SELECT count(*) AS total FROM campaigns WHERE ${where})
     SELECT t.total, p.* FROM t LEFT JOIN LATERAL (
       SELECT ${COLUMNS} FROM campaigns WHERE ${where}
       ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}
     ) p ON true`,
    [...params, limit, offset],
  );
  const total = Number(rows[0]?.total ?? 0);
  return {
    results: rows.filter((r) => r.id !== null).map(toCampaign),
    pagination: { limit, page, total, offset, totalPages: Math.ceil(total / limit) },
  };
}

const qs = (q: Record<string, string | number | undefined>) =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

const NAMES = [
  'plain',
  'comillas "dobles" y \'simples\'',
  'barra \\ invertida \\n literal',
  'línea\nnueva\ty tab',
  'control \u0001\u001f',
  'emoji 🎉 y ñ, ü, 中文',
  '</script><b>html</b>',
  '',
  ' espacios ',
  'u2028\u2028u2029\u2029',
];
const STATUSES = ['COMPLETED', 'PENDING', 'IN_PROGRESS', 'SCHEDULED', 'CANCELLED'];

describe('GET /v1/campaigns matches the plain SQL list', () => {
  const bots = [uid('lbot'), uid('lbot')];
  beforeAll(async () => {
    // 2 bots x 240 rows over ten days of March 2025: every 3rd row shares its createdAt with the
    // previous one and every 4th has a twin (same createdAt, status and elementName; the id breaks
    // the tie), microseconds on some, completedAt/scheduledAt on some.
    await server.app.charla.db.query(
      `INSERT INTO campaigns (id, company_id, name, element_name, bot_id, status, message, scheduled_at,
         total_messages, delivered_messages, failed_messages, created_at, completed_at)
       SELECT 'list-' || b || '-' || lpad(g::text, 4, '0') || (CASE WHEN g % 7 = 0 THEN '-z' ELSE '' END) || '-' || t,
         'company-1', ($3::text[])[1 + g % array_length($3::text[], 1)], 'el-' || (g % 3), ($1::text[])[b],
         ($2::text[])[1 + g % 5], '{"type":"text","text":"hola"}'::jsonb,
         CASE WHEN g % 4 = 0 THEN timestamptz '2025-04-01T09:30:00.123Z' + g * interval '1 minute' END,
         g, g / 2, g % 5,
         timestamptz '2025-03-01T00:00:00Z' + (g - (CASE WHEN g % 3 = 0 THEN 1 ELSE 0 END)) * interval '1 hour'
           + (CASE WHEN g % 5 = 1 THEN (g * 37 % 1000000) * interval '1 microsecond' ELSE interval '0' END),
         CASE WHEN g % 5 = 0 THEN timestamptz '2025-03-20T00:00:00.000999Z' + g * interval '1 second' END
       FROM generate_series(1, 240) AS g, generate_series(1, 2) AS b,
         generate_series(0, CASE WHEN g % 4 = 1 THEN 1 ELSE 0 END) AS t`,
      [bots, STATUSES, NAMES],
    );
    // Dates the ISO shortcut leaves to the driver's parser: years before 1000.
    await server.app.charla.db.query(
      `INSERT INTO campaigns (id, company_id, name, element_name, bot_id, status, message, created_at, completed_at)
       VALUES ('list-old-1', 'company-1', 'old', 'el-1', $1, 'COMPLETED', '{}'::jsonb, '0999-06-15 10:00:00.5+00', '0999-06-15 11:00:00+00'),
              ('list-old-2', 'company-1', 'older', 'el-1', $1, 'PENDING', '{}'::jsonb, '0150-01-01 00:00:00.123456+00', NULL)`,
      [bots[1]],
    );
  });

  it('for every filter shape, page and limit', async () => {
    const ranges: Array<[string, string]> = [
      ['2025-03-01', '2025-03-31'],
      ['2025-03-02', '2025-03-05'],
      ['2025-03-03T05:00:00Z', '2025-03-04T05:00:00.000Z'],
      ['2025-03-03T07:00:00+02:00', '2025-03-06T23:59:59.999-03:00'],
      ['2025-03-31', '2025-04-30'],
      ['0100-01-01', '2025-03-02T00:00:00Z'],
    ];
    const filters: Array<Record<string, string | undefined>> = [
      {},
      { status: 'PENDING' },
      { status: 'COMPLETED' },
      { elementName: 'el-1' },
      { elementName: 'nope' },
      { status: 'SCHEDULED', elementName: 'el-2' },
    ];
    let compared = 0;
    for (const botId of [...bots, uid('nobody')])
      for (const [startAt, endAt] of ranges)
        for (const f of filters)
          for (const [limit, pages] of [
            [undefined, [undefined, 2, 24, 25]],
            [1, [1, 100, 300, 301]],
            [7, [3]],
            [50, [1, 2, 5, 6]],
          ] as const)
            for (const page of pages) {
              const q = { botId, startAt, endAt, ...f, limit, page };
              const res = await call(server, 'GET', `/v1/campaigns?${qs(q)}`);
              expect(res.status, qs(q)).toBe(200);
              expect(res.body.data, qs(q)).toEqual(await reference(q));
              compared++;
            }
    expect(compared).toBeGreaterThan(1000);
  });

  it.skipIf(ON_POSTGRES)('gives the same dates whatever the session time zone', async () => {
    // PGlite is one session: its TimeZone is what every list reads under.
    const db = server.app.charla.db;
    try {
      for (const zone of ['America/Santiago', 'Asia/Kolkata']) {
        await db.query(`SET TimeZone = '${zone}'`);
        const q = { botId: bots[1], startAt: '0100-01-01', endAt: '2025-03-31', limit: 50, page: 2 };
        const res = await call(server, 'GET', `/v1/campaigns?${qs(q)}`);
        expect(res.body.data, zone).toEqual(await reference(q));
        expect(res.body.data.results.length).toBe(50);
      }
    } finally {
      await db.query('RESET TimeZone');
    }
  });

  it('gives the same text for a page with every awkward row', async () => {
    const q = { botId: bots[0], startAt: '2025-03-01', endAt: '2025-03-31', limit: 50, page: 1 };
    const res = await call(server, 'GET', `/v1/campaigns?${qs(q)}`);
    const expected = await reference(q);
    expect(expected.results.length).toBe(50);
    expect(new Set(expected.results.map((r) => r.name)).size).toBe(NAMES.length);
    expect(expected.results.some((r) => r.completedAt !== null && r.scheduledAt !== null)).toBe(true);
    expect(JSON.stringify(res.body.data.results)).toBe(JSON.stringify(expected.results));
  });

  it('reads an offset past 2^31 (a large page) as an empty page, not an error', async () => {
    const q = { botId: bots[0], startAt: '2025-03-01', endAt: '2025-03-31', limit: 50, page: 100_000_000 };
    const res = await call(server, 'GET', `/v1/campaigns?${qs(q)}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(await reference(q));
    expect(res.body.data.pagination.offset).toBe(4_999_999_950);
  });
});

describe('GET /v1/campaigns sees every write at once', () => {
  it('a created, cancelled or updated campaign is in the next list (two processes on PostgreSQL)', async () => {
    // On PostgreSQL a second service process shares the storage; on PGlite the store is one process's.
    const other = ON_POSTGRES ? await startServer({}, { schema: server.schema, keep: true }) : server;
    try {
      const botId = await createBot(server);
      const day = new Date().toISOString().slice(0, 10);
      const listed = async (from: Server) =>
        (await call(from, 'GET', `/v1/campaigns?botId=${botId}&startAt=${day}&endAt=2100-01-01`)).body.data;
      expect((await listed(other)).pagination.total).toBe(0);
      const created = await call(other, 'POST', '/v1/campaigns', {
        body: {
          name: 'Uno',
          elementName: 'promo',
          botId,
          recipients: ['u1'],
          message: { type: 'text', text: 'Hola' },
          scheduledAt: inSeconds(3600),
        },
      });
      expect(created.status).toBe(200);
      const first = await listed(server);
      expect(first.pagination.total).toBe(1);
      expect(first.results[0]).toEqual(created.body.data);
      const renamed = await call(server, 'PUT', `/v1/campaigns/${created.body.data.id}`, {
        body: { name: 'Dos' },
      });
      expect(renamed.status).toBe(200);
      expect((await listed(other)).results[0].name).toBe('Dos');
      const cancelled = await call(other, 'DELETE', `/v1/campaigns/${created.body.data.id}`);
      expect(cancelled.status).toBe(200);
      expect((await listed(server)).results[0].status).toBe('CANCELLED');
      expect((await listed(server)).results[0]).toEqual(cancelled.body.data);
    } finally {
      if (other !== server) await other.close();
    }
  });
});

describe('migration statements', () => {
  it('keep a dollar-quoted body whole and split the rest at line-end semicolons', () => {
    expect(
      splitStatements(`CREATE TABLE a (x int);
CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$
BEGIN
  RETURN 1;
END
$body$;
-- a comment;
SELECT $$a;
b$$;
SELECT 2`),
    ).toEqual([
      'CREATE TABLE a (x int)',
      'CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$\nBEGIN\n  RETURN 1;\nEND\n$body$',
      'SELECT $$a;\nb$$',
      'SELECT 2',
    ]);
    expect(() => splitStatements('SELECT $x$ open;\n')).toThrow(/unterminated/);
  });
});
