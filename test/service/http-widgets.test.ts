import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC, COMPANY, call, snapshot, startServer, uid, type Server } from './helpers/http.ts';

let server: Server;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const widget = {
  properties: { type: 'group', name: 'Soporte' },
  theme: {
    position: 'bottom-right',
    status: true,
    font: { googlefont: true, name: 'Inter' },
    colors: { primary: '#123456' },
    menus: [{ label: 'Inicio' }],
  },
  credentials: {
    whiteList: ['https://shop.example.com', 'https://*.example.org'],
    blackList: ['http://localhost:3000'],
  },
  panels: { home: { title: 'Hola' } },
};

const create = (body: unknown, headers: Record<string, string | undefined> = {}) =>
  call(server, 'POST', '/v1/widget/create', { body, headers });

describe('POST /v1/widget/create', () => {
  it('creates a bot, a widget and an API key with bot {}', async () => {
    const res = await create({ bot: {}, widget });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(1);
    expect(res.body.statusMessage).toContain('success');
    expect(res.body.message).toEqual(expect.any(Array));
    const { Bot, Widget, ApiKey } = res.body.data;
    expect(Bot).toMatchObject({ id: expect.any(String), callingEnabled: false, companyId: 'company-1' });
    expect(Widget).toMatchObject({
      botId: Bot.id,
      properties: widget.properties,
      theme: widget.theme,
      credentials: widget.credentials,
    });
    // Stored whole, further visual properties included.
    expect(Widget.config).toEqual(widget);
    expect(ApiKey).toMatchObject({ id: expect.any(Number), state: expect.any(Number), widgetId: Widget.id });
    expect(Date.parse(ApiKey.createdAt)).not.toBeNaN();
    expect(Date.parse(ApiKey.updatedAt)).not.toBeNaN();
    // At least 32 random bytes, and only a hash stored.
    const raw = Buffer.from(String(ApiKey.key).replace(/^ck_/, ''), 'base64url');
    expect(raw.length).toBeGreaterThanOrEqual(32);
    const { rows } = await server.app.charla.db.query<{ key_hash: string }>(
      'SELECT key_hash FROM api_keys WHERE id = $1',
      [ApiKey.id],
    );
    expect(rows[0]?.key_hash).toBe(createHash('sha256').update(ApiKey.key).digest('hex'));
    const stored = await server.app.charla.db.query('SELECT * FROM api_keys WHERE key_hash = $1', [
      ApiKey.key,
    ]);
    expect(stored.rows).toHaveLength(0);
    const config = await server.app.charla.db.query<{ config: unknown }>(
      'SELECT config FROM widgets WHERE id = $1',
      [Widget.id],
    );
    expect(config.rows[0]?.config).toEqual(widget);
  });

  it('names the new bot and turns calling on when asked; keys differ every time', async () => {
    const a = await create({ bot: { name: 'Ventas', callingEnabled: true }, widget: {} });
    expect(a.status).toBe(200);
    expect(a.body.data.Bot).toMatchObject({ name: 'Ventas', callingEnabled: true });
    const b = await create({ bot: {}, widget: {} });
    expect(b.body.data.ApiKey.key).not.toBe(a.body.data.ApiKey.key);
  });

  it('reuses an existing bot with bot {id}; 404 for an unknown one, changing nothing', async () => {
    const first = await create({ bot: {}, widget });
    const botId = first.body.data.Bot.id;
    const again = await create({ bot: { id: botId }, widget: { properties: { type: 'normal' } } });
    expect(again.status).toBe(200);
    expect(again.body.data.Bot.id).toBe(botId);
    expect(again.body.data.Widget.botId).toBe(botId);
    expect(again.body.data.Widget.id).not.toBe(first.body.data.Widget.id);
    const before = await snapshot(server);
    const missing = await create({ bot: { id: uid('nobot') }, widget });
    expect(missing.status).toBe(404);
    expect(missing.body.error.key).toBe('NOT_FOUND');
    expect(await snapshot(server)).toEqual(before);
  });

  it('accepts the company token as well as the client credentials; 401 otherwise', async () => {
    expect((await create({ bot: {}, widget: {} }, { authorization: COMPANY })).status).toBe(200);
    expect((await create({ bot: {}, widget: {} }, { authorization: BASIC })).status).toBe(200);
    const before = await snapshot(server);
    for (const authorization of [
      undefined,
      'Basic nope',
      'Basic ' + Buffer.from('demo-client:x').toString('base64'),
      'Bearer demo-company-token',
    ]) {
      const res = await create({ bot: {}, widget: {} }, { authorization });
      expect(res.status).toBe(401);
      expect(res.body.error.key).toBe('UNAUTHORIZED');
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('needs Content-Type application/json: 415 otherwise, even with an empty body', async () => {
    const before = await snapshot(server);
    const cases: Array<{ ct?: string; raw?: string }> = [
      { ct: 'text/plain', raw: JSON.stringify({ bot: {}, widget: {} }) },
      { ct: 'application/x-www-form-urlencoded', raw: 'bot=1' },
      { ct: 'text/plain', raw: '' },
      { raw: '' },
      { ct: 'application/jsonx', raw: '{}' },
      { ct: 'multipart/form-data; boundary=x', raw: '--x--' },
    ];
    for (const c of cases) {
      const res = await call(server, 'POST', '/v1/widget/create', {
        raw: c.raw,
        headers: { 'content-type': c.ct },
      });
      expect(res.status, JSON.stringify(c)).toBe(415);
      expect(res.body.error.key).toBe('UNSUPPORTED_CONTENT_TYPE');
    }
    const charset = await call(server, 'POST', '/v1/widget/create', {
      raw: JSON.stringify({ bot: {}, widget: {} }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(200);
    const after = await snapshot(server);
    expect(after['widgets']).not.toBe(before['widgets']);
  });

  it('validates what the interface types, naming each bad field, and changes nothing', async () => {
    const before = await snapshot(server);
    const cases: Array<[unknown, string[]]> = [
      [{ widget: {} }, ['/bot']],
      [{ bot: {} }, ['/widget']],
      [{ bot: { id: '' }, widget: {} }, ['/bot/id']],
      [{ bot: { unknown: 1 }, widget: {} }, ['/bot']],
      [{ bot: { callingEnabled: 'yes' }, widget: {} }, ['/bot/callingEnabled']],
      [{ bot: {}, widget: { properties: { type: 'huge' } } }, ['/widget/properties/type']],
      [{ bot: {}, widget: { theme: { position: 'middle' } } }, ['/widget/theme/position']],
      [{ bot: {}, widget: { theme: { status: 'on' } } }, ['/widget/theme/status']],
      [{ bot: {}, widget: { theme: { font: { googlefont: 1 } } } }, ['/widget/theme/font/googlefont']],
      [{ bot: {}, widget: { theme: { font: { name: '</style><script>' } } } }, ['/widget/theme/font/name']],
      [
        { bot: {}, widget: { credentials: { whiteList: 'https://a.com' } } },
        ['/widget/credentials/whiteList'],
      ],
      [
        { bot: {}, widget: { credentials: { blackList: ['javascript:alert(1)'] } } },
        ['/widget/credentials/blackList/0'],
      ],
      [
        { bot: {}, widget: { properties: { type: 'x' }, theme: { position: 'x' } } },
        ['/widget/properties/type', '/widget/theme/position'],
      ],
      [[], ['/']],
      ['hola', ['/']],
    ];
    for (const [body, fields] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.key).toBe('VALIDATION_ERROR');
      for (const f of fields)
        expect(Object.keys(res.body.validationError), JSON.stringify(body)).toContain(f);
    }
    for (const raw of ['', '{', '{"bot":{}, "widget":{}, "__proto__": {"x": 1}}', 'null']) {
      const res = await call(server, 'POST', '/v1/widget/create', {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, raw).toBe(400);
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('names every allowed position, whatever the wrong value is (a number, a boolean, null, a string)', async () => {
    const all = 'must be one of bottom-right, bottom-left, top-right, top-left, br, bl, tr, tl';
    for (const position of [3, true, null, 'middle']) {
      const res = await create({ bot: {}, widget: { theme: { position } } });
      expect(res.status).toBe(400);
      expect(res.body.validationError, JSON.stringify(position)).toEqual({ '/widget/theme/position': all });
    }
  });
});
