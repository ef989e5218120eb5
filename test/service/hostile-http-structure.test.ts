/**
 * What a JSON body holds once parsed, whatever its text looked like: a key
 * that poisons prototypes is refused however it is spelled (`"\u005f_proto__"`
 * is the key `__proto__` once parsed), and a number is refused when JSON.parse
 * cannot hold it as written (`1e400` would be stored as null,
 * `12345678901234567890123` as 1.2345678901234568e+22). Every operation with a
 * body: 400 VALIDATION_ERROR naming the field, nothing stored.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_BASE, call, createBot, snapshot, startServer, uid, type Server } from './helpers/http.ts';

let server: Server;
let botId: string;
let roomId: string;
const mediaKey = `uploads/${randomUUID()}/clip.mp4`;

beforeAll(async () => {
  server = await startServer();
  botId = await createBot(server);
  ({ roomId } = await server.app.charla.messaging.ensureBotRoom({ botId, userId: 'structure-user' }));
  await server.app.charla.db.query(
    'INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)',
    [mediaKey, 'company-1', 'video/mp4', 3, 'clip.mp4', Buffer.from([1, 2, 3])],
  );
});
afterAll(async () => {
  await server?.close();
});

/** Where a test puts raw JSON text into a body: at the top, and inside (in a nested object). */
const top = { '@top@': 0 };
const inner = { '@in@': 0 };
/** The body's text with `text` in one place and a harmless field in the other. */
const fill = (body: unknown, text: string, inside: boolean) =>
  JSON.stringify(body)
    .replace('"@top@":0', inside ? '"x":0' : text)
    .replace('"@in@":0', inside ? text : '"x":0');

/** One valid body per operation. */
const operations = () => [
  {
    name: 'bot message',
    path: `/v1/bots/${botId}/messages`,
    body: {
      ...top,
      type: 'text',
      userId: uid('u'),
      text: 'Hola',
      buttons: { options: [{ title: 'Sí', ...inner }] },
    },
  },
  {
    name: 'campaign',
    path: '/v1/campaigns',
    body: {
      ...top,
      name: 'C',
      elementName: 'e',
      botId,
      recipients: [uid('r')],
      message: { type: 'text', text: 'Hola', ...inner },
      scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
    },
  },
  {
    name: 'widget creation',
    path: '/v1/widget/create',
    body: { ...top, bot: {}, widget: { theme: { position: 'br', ...inner } } },
  },
  {
    name: 'room post',
    path: `/v1/rooms/${roomId}/message`,
    body: { ...top, senderId: 'erp', messages: [{ id: randomUUID(), type: 'TEXT', text: 'Hola', ...inner }] },
  },
  {
    name: 'media refresh',
    path: '/v1/external/assets/refresh',
    body: { ...top, resourceUrl: `${PUBLIC_BASE}/v1/media/${mediaKey}`, ttl: 900, nested: { ...inner } },
  },
];

const post = (path: string, raw: string) =>
  call(server, 'POST', path, { raw, headers: { 'content-type': 'application/json' } });

describe('keys that poison prototypes, in any spelling', () => {
  const spellings: Array<[string, string]> = [
    ['"__proto__":{"polluted":true}', '__proto__'],
    ['"\\u005f_proto__":{"polluted":true}', '__proto__'],
    ['"\\u005F\\u005Fproto\\u005F\\u005F":{"polluted":true}', '__proto__'],
    ['"__pr\\u006fto__":{"polluted":true}', '__proto__'],
    [
      `"${[...'__proto__'].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}":{}`,
      '__proto__',
    ],
    ['"\\u0063onstructor":{"prototype":{"polluted":true}}', 'constructor'],
    ['"constructor":{"\\u0070rototype":{"polluted":true}}', 'constructor'],
  ];

  it('each operation takes its body without the key (the cases below test the key alone)', async () => {
    for (const op of operations()) {
      const res = await post(op.path, fill(op.body, '"ok":1', false));
      expect(res.status, `${op.name}: ${res.text}`).toBe(200);
    }
  });

  it('refuses each spelling on every operation, at the top and inside, with 400 naming the key; stores nothing', async () => {
    for (const op of operations()) {
      for (const [text, key] of spellings) {
        for (const inside of [false, true]) {
          const before = await snapshot(server);
          const raw = fill(op.body, text, inside);
          const res = await post(op.path, raw);
          expect(res.status, `${op.name} ${raw}`).toBe(400);
          expect(res.body.error.key).toBe('VALIDATION_ERROR');
          const fields = Object.keys(res.body.validationError);
          expect(fields, `${op.name} ${raw}`).toHaveLength(1);
          expect(fields[0], `${op.name} ${raw}`).toMatch(new RegExp(`^/${inside ? '.+/' : ''}${key}$`));
          expect(await snapshot(server), `${op.name} ${raw}`).toEqual(before);
        }
      }
    }
  });
});

describe('numbers are kept as written, or refused', () => {
  const widgetWith = (big: string) =>
    post('/v1/widget/create', `{"bot":{},"widget":{"theme":{"position":"br","big":${big}},"extra":[1,2,3]}}`);

  it('stores the widget configuration’s numbers as sent', async () => {
    for (const [text, value] of [
      ['1e20', 1e20],
      ['100000000000000000000', 1e20],
      ['9007199254740991', Number.MAX_SAFE_INTEGER],
      ['0.1', 0.1],
      ['-2.5E-3', -0.0025],
      ['9.0e2', 900],
      ['0.30000000000000004', 0.30000000000000004],
    ] as const) {
      const res = await widgetWith(text);
      expect(res.status, `${text}: ${res.text}`).toBe(200);
      expect(res.body.data.Widget.theme.big, text).toBe(value);
      const { rows } = await server.app.charla.db.query<{ config: any }>(
        'SELECT config FROM widgets WHERE id = $1',
        [res.body.data.Widget.id],
      );
      const config = typeof rows[0]?.config === 'string' ? JSON.parse(rows[0].config) : rows[0]?.config;
      expect(config.theme.big, text).toBe(value);
    }
  });

  it('refuses a number JSON.parse cannot hold as written (out of range, or more digits than it keeps) with 400 naming it', async () => {
    const before = await snapshot(server);
    for (const text of [
      '1e400',
      '-1e400',
      '1e-400',
      '12345678901234567890123',
      '9007199254740993',
      '1.00000000000000000001',
    ]) {
      const res = await widgetWith(text);
      expect(res.status, `${text}: ${res.text}`).toBe(400);
      expect(res.body.error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.validationError), text).toEqual(['/widget/theme/big']);
    }
    // Any body, at any depth; the same digits in a string are text.
    const bot = await post(
      `/v1/bots/${botId}/messages`,
      `{"type":"text","userId":"n-user","text":"1e400 12345678901234567890123","meta":{"n":[1,1e400]}}`,
    );
    expect(bot.status, bot.text).toBe(400);
    expect(Object.keys(bot.body.validationError)).toEqual(['/meta/n/1']);
    expect(await snapshot(server)).toEqual(before);
  });
});
