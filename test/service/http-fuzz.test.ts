/**
 * Thousands of malformed bodies, query strings, paths and headers at every
 * operation: never a 500, always the error body on a refusal, and a refused
 * request never changes a row.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BASIC,
  PUBLIC_BASE,
  call,
  createBot,
  inSeconds,
  snapshot,
  startServer,
  type Server,
} from './helpers/http.ts';

let server: Server;
let botId: string;
let roomId: string;
let campaignId: string;
let mediaUrl: string;
let current: Record<string, string>;

beforeAll(async () => {
  server = await startServer({ allowLoopbackMedia: false });
  botId = await createBot(server);
  roomId = (await server.app.charla.messaging.ensureBotRoom({ botId, userId: 'fuzz-user' })).roomId;
  const c = await call(server, 'POST', '/v1/campaigns', {
    body: {
      name: 'F',
      elementName: 'f',
      botId,
      recipients: ['a'],
      message: { type: 'text', text: 'x' },
      scheduledAt: inSeconds(86_400),
    },
  });
  campaignId = c.body.data.id;
  await server.app.charla.db.query(
    `INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ('fuzz/a.png', 'company-1', 'image/png', 1, 'a.png', $1)`,
    [Buffer.from([1])],
  );
  mediaUrl = `${PUBLIC_BASE}/v1/media/fuzz/a.png`;
  current = await snapshot(server);
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** Sends, then checks the invariants: no 5xx, an error body on refusal, no change on refusal. */
async function probe(
  method: string,
  path: string,
  init: { raw?: string; headers?: Record<string, string | undefined> },
) {
  const res = await call(server, method, path, init);
  expect(res.status, `${method} ${path} ${init.raw?.slice(0, 300)}`).toBeLessThan(500);
  const after = await snapshot(server);
  if (res.status >= 400) {
    expect(res.body.status, `${method} ${path}`).toBe(0);
    expect(res.body.statusMessage).toBe('failed');
    expect(typeof res.body.error?.code).toBe('string');
    expect(after, `${method} ${path} ${init.raw?.slice(0, 300)} -> ${res.status}`).toEqual(current);
  }
  current = after;
  return res;
}

type Json = unknown;
/** Every path (as keys) inside a JSON value. */
function paths(value: Json, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}
function setAt(value: Json, path: Array<string | number>, replacement: Json, remove: boolean): Json {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, Json>;
  let node = copy as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (remove && !Array.isArray(node)) delete node[last];
  else node[last] = replacement;
  return copy;
}

const weird = fc.oneof(
  fc.anything({ maxDepth: 3 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'x'.repeat(5000),
    -1,
    0,
    1.5,
    1e308,
    null,
    true,
    [],
    {},
    '+123',
    '2025-02-30',
    'https://',
    'http://10.0.0.1/a',
  ),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

/** A valid body with one field (at any depth) replaced by something odd, or removed, or a few of them. */
function nearly(valid: Json) {
  const all = paths(valid);
  return fc
    .array(fc.tuple(fc.nat(all.length - 1), weird, fc.boolean()), { minLength: 1, maxLength: 3 })
    .map((edits) =>
      edits.reduce((acc, [i, v, remove]) => {
        const p = all[i] as Array<string | number>;
        try {
          return setAt(acc, p, v, remove);
        } catch {
          return acc;
        }
      }, valid),
    );
}

const bodies = (valid: Json) =>
  fc.oneof(
    { weight: 3, arbitrary: nearly(valid).map((v) => JSON.stringify(v) ?? '') },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? '') },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '[',
        'null',
        '{"__proto__":{"a":1}}',
        '{"constructor":{"prototype":{"a":1}}}',
        '"str"',
        '1e999999',
      ),
    },
  );

const headerSets = fc.record({
  'content-type': fc.oneof(
    fc.constant('application/json'),
    fc.constant('application/json; charset=utf-8'),
    fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'application/jsonx',
      '',
      '*/*',
    ),
    fc.string({ maxLength: 30 }).filter((s) => /^[\x21-\x7e ]*$/.test(s)),
  ),
  authorization: fc.oneof(
    { weight: 4, arbitrary: fc.constant(BASIC) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Basic',
        'Basic ',
        'Basic ::::',
        'Bearer x',
        'basic ZGVtby1jbGllbnQ6ZGVtby1zZWNyZXQ=',
        'Basic demo-company-token',
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .string({ maxLength: 40 })
        .filter((s) => /^[\x21-\x7e ]*$/.test(s))
        .map((s) => `Basic ${s}`),
    },
  ),
});

const runs = Number(process.env['FUZZ_RUNS'] ?? 400);
const ops: Array<{ name: string; method: string; path: () => string; valid: Json }> = [
  {
    name: 'POST /v1/campaigns',
    method: 'POST',
    path: () => '/v1/campaigns',
    valid: {
      name: 'n',
      elementName: 'e',
      botId: 'BOT',
      recipients: ['u1'],
      message: {
        type: 'text',
        text: 'x',
        buttons: { options: [{ title: 't', description: 'd', payload: 'p' }] },
      },
      scheduledAt: '2099-01-01T00:00:00Z',
    },
  },
  {
    name: 'PUT /v1/campaigns/{id}',
    method: 'PUT',
    path: () => `/v1/campaigns/${campaignId}`,
    valid: { name: 'n', scheduledAt: '2099-01-01T00:00:00Z' },
  },
  {
    name: 'POST /v1/widget/create',
    method: 'POST',
    path: () => '/v1/widget/create',
    valid: {
      bot: { id: 'BOT' },
      widget: {
        properties: { type: 'normal' },
        theme: { position: 'br', status: true, font: { googlefont: true, name: 'Inter' } },
        credentials: { whiteList: ['https://a.com'], blackList: [] },
      },
    },
  },
  {
    name: 'POST /v1/bots/{botId}/messages',
    method: 'POST',
    path: () => `/v1/bots/${botId}/messages`,
    valid: {
      type: 'contacts',
      userId: 'u',
      contacts: [
        { name: { formatted_name: 'A' }, phones: [{ phone: '+14155552671' }], emails: [{ email: 'a@b.co' }] },
      ],
    },
  },
  {
    name: 'POST /v1/rooms/{roomId}/message',
    method: 'POST',
    path: () => `/v1/rooms/${roomId}/message`,
    valid: {
      senderId: 's',
      messages: [
        { id: '00000000-0000-4000-8000-000000000000', type: 'TEXT', text: 'x' },
        { id: '00000000-0000-4000-8000-000000000001', type: 'IMAGE', mediaUrl: 'https://a.com/a.png' },
      ],
    },
  },
  {
    name: 'POST /v1/external/assets/refresh',
    method: 'POST',
    path: () => '/v1/external/assets/refresh',
    valid: { resourceUrl: 'MEDIA', ttl: 900 },
  },
];

const fill = (raw: string) =>
  raw.replaceAll('"BOT"', JSON.stringify(botId)).replaceAll('"MEDIA"', JSON.stringify(mediaUrl));

describe('malformed requests at every operation', () => {
  for (const op of ops) {
    it(`${op.name}: never a 500, never a changed row on refusal`, async () => {
      await fc.assert(
        fc.asyncProperty(bodies(op.valid), headerSets, async (raw, headers) => {
          const res = await probe(op.method, op.path(), { raw: fill(raw), headers });
          // Widget creation needs JSON whatever the body: anything else is 415 (or 401 first).
          if (
            op.name.includes('widget') &&
            !/^application\/json\s*(;|$)/i.test(headers['content-type']) &&
            res.status !== 401
          ) {
            expect(res.status).toBe(415);
          }
        }),
        { numRuns: runs },
      );
    }, 300_000);
  }

  it('GET /v1/campaigns: random query strings', async () => {
    const key = fc.constantFrom(
      'botId',
      'startAt',
      'endAt',
      'page',
      'limit',
      'status',
      'elementName',
      'x',
      '',
    );
    const value = fc.oneof(
      fc.constantFrom(
        '',
        '0',
        '1',
        '50',
        '51',
        '-1',
        '1.5',
        '1e3',
        'abc',
        'COMPLETED',
        'CANCELLED',
        '2025-01-01',
        '2025-02-30',
        '2025-01-01T10:00:00+25:00',
        '9999-12-31',
        '0000-01-01',
        '2025-1-1',
      ),
      fc.string({ unit: 'binary', maxLength: 30 }),
    );
    const structured = fc
      .array(fc.tuple(key, value), { maxLength: 10 })
      .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
    const rawQuery = fc.string({ unit: 'binary', maxLength: 80 }).map((s) => s.replace(/[#\s]/g, ''));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(structured, rawQuery),
        fc.boolean(),
        headerSets,
        async (q, withBase, headers) => {
          const base = withBase ? `botId=${botId}&startAt=2020-01-01&endAt=2100-01-01&` : '';
          await probe('GET', `/v1/campaigns?${base}${q}`, {
            headers: { authorization: headers.authorization },
          });
        },
      ),
      { numRuns: runs },
    );
  }, 300_000);

  it('DELETE and PUT /v1/campaigns/{id}, bot and room paths: random ids', async () => {
    const id = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }),
      fc.constantFrom('%', '..', '../campaigns', randomUUID()),
    );
    await fc.assert(
      fc.asyncProperty(id, fc.constantFrom('DELETE', 'PUT', 'BOT', 'ROOM'), async (raw, which) => {
        const enc = encodeURIComponent(raw);
        if (which === 'DELETE') await probe('DELETE', `/v1/campaigns/${enc}`, {});
        else if (which === 'PUT')
          await probe('PUT', `/v1/campaigns/${enc}`, {
            raw: '{"name":"x"}',
            headers: { 'content-type': 'application/json' },
          });
        else if (which === 'BOT')
          await probe('POST', `/v1/bots/${enc}/messages`, {
            raw: '{"type":"text","text":"x","userId":"u"}',
            headers: { 'content-type': 'application/json' },
          });
        else
          await probe('POST', `/v1/rooms/${enc}/message`, {
            raw: JSON.stringify({ senderId: 's', messages: [{ id: randomUUID(), type: 'TEXT', text: 'x' }] }),
            headers: { 'content-type': 'application/json' },
          });
      }),
      { numRuns: runs },
    );
  }, 300_000);

  it('signed media: random keys and query strings are 403 or 404, never served', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 80 }),
        async (key, q) => {
          const res = await call(
            server,
            'GET',
            `/v1/media/${encodeURIComponent(key)}?${q.replace(/[#\s]/g, '')}`,
            {
              headers: { authorization: undefined },
            },
          );
          expect([400, 403, 404]).toContain(res.status);
        },
      ),
      { numRuns: runs },
    );
  }, 300_000);
});
