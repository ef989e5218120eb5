/**
 * Widget creation at its edges: what a business backend sends that the
 * service cannot honour is refused with a 400 naming the field, never
 * accepted and silently ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, snapshot, startServer, type Server } from './helpers/http.ts';

let server: Server;
let botId: string;

beforeAll(async () => {
  server = await startServer();
  const res = await call(server, 'POST', '/v1/widget/create', {
    body: { bot: { name: 'Ventas', callingEnabled: true }, widget: {} },
  });
  botId = res.body.data.Bot.id;
});
afterAll(async () => {
  await server?.close();
});

const create = (body: unknown) => call(server, 'POST', '/v1/widget/create', { body });

describe('POST /v1/widget/create at its edges', () => {
  it('refuses a new bot’s settings beside the id of an existing bot (they would be ignored)', async () => {
    const before = await snapshot(server);
    for (const [bot, field] of [
      [{ id: botId, name: 'Otro nombre' }, '/bot/name'],
      [{ id: botId, callingEnabled: false }, '/bot/callingEnabled'],
    ] as const) {
      const res = await create({ bot, widget: {} });
      expect(res.status, JSON.stringify(bot)).toBe(400);
      expect(res.body.error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.validationError)).toEqual([field]);
    }
    expect(await snapshot(server)).toEqual(before);
    // The id alone reuses the bot as it is.
    const reuse = await create({ bot: { id: botId }, widget: {} });
    expect(reuse.status).toBe(200);
    expect(reuse.body.data.Bot).toMatchObject({ id: botId, name: 'Ventas', callingEnabled: true });
  });

  it('refuses a bot name that would sign its messages with nothing visible, or on several lines', async () => {
    const before = await snapshot(server);
    for (const name of ['   ', '\u200b', '\u3164', 'A\nB', 'A\u2028B', 'Bot\u0000']) {
      const res = await create({ bot: { name }, widget: {} });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(Object.keys(res.body.validationError)).toEqual(['/bot/name']);
      if (name !== 'Bot\u0000')
        expect(res.body.validationError['/bot/name']).toBe(
          'must be one line of visible text (not blank, no control characters or line breaks)',
        );
    }
    expect(await snapshot(server)).toEqual(before);
    const ok = await create({ bot: { name: 'Tienda 🛒' }, widget: {} });
    expect(ok.status).toBe(200);
    expect(ok.body.data.Bot.name).toBe('Tienda 🛒');
  });

  it('takes origins at the edges of a port and a host name', async () => {
    const origins = [
      'https://a.com:1',
      'https://a.com:65535',
      `https://${'a'.repeat(63)}.com`,
      'https://*.example.com',
      'http://localhost:3000',
      'https://xn--espaa-rta.es',
    ];
    const res = await create({
      bot: {},
      widget: { credentials: { whiteList: origins, blackList: origins } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.Widget.credentials.whiteList).toEqual(origins);
  });

  it('stores each origin as browsers spell it, so a port written with leading zeros matches its page', async () => {
    const res = await create({
      bot: {},
      widget: {
        credentials: {
          whiteList: [
            'https://example.com:00080',
            'https://Shop.Example.com:443',
            'https://*.example.org:08443',
            'HTTPS://Shop.example.net/',
          ],
          blackList: ['https://shop.example.com:0443'],
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    const canonical = {
      whiteList: [
        'https://example.com:80',
        'https://shop.example.com',
        'https://*.example.org:8443',
        'https://shop.example.net',
      ],
      blackList: ['https://shop.example.com'],
    };
    expect(res.body.data.Widget.credentials).toEqual(canonical);
    const { rows } = await server.app.charla.db.query<{ config: any }>(
      'SELECT config FROM widgets WHERE id = $1',
      [res.body.data.Widget.id],
    );
    const config = typeof rows[0]?.config === 'string' ? JSON.parse(rows[0].config) : rows[0]?.config;
    expect(config.credentials).toEqual(canonical);
    // A page's session: its Origin as a browser sends it.
    const session = (origin: string) =>
      fetch(`${server.base}/v1/widget/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ apiKey: res.body.data.ApiKey.key, userId: 'origin-user' }),
      });
    for (const origin of ['https://example.com:80', 'https://a.example.org:8443'])
      expect((await session(origin)).status, origin).toBe(200);
    for (const origin of ['https://example.com', 'https://shop.example.com', 'https://a.example.org']) {
      const refused = await session(origin);
      expect(refused.status, origin).toBe(403);
      expect(((await refused.json()) as any).error.key, origin).toBe('ORIGIN_NOT_ALLOWED');
    }
  });

  it('takes internationalised hosts and stores them as browsers send them (punycode)', async () => {
    const res = await create({
      bot: {},
      widget: {
        credentials: {
          whiteList: ['https://bücher.example', 'https://*.españa.es', 'http://*.localhost:3000'],
          blackList: ['https://MÜNCHEN.example:443'],
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.Widget.credentials).toEqual({
      whiteList: ['https://xn--bcher-kva.example', 'https://*.xn--espaa-rta.es', 'http://*.localhost:3000'],
      blackList: ['https://xn--mnchen-3ya.example'],
    });
    const session = (origin: string) =>
      fetch(`${server.base}/v1/widget/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ apiKey: res.body.data.ApiKey.key, userId: 'idn-user' }),
      });
    for (const origin of [
      'https://xn--bcher-kva.example',
      'https://tienda.xn--espaa-rta.es',
      'http://app.localhost:3000',
    ])
      expect((await session(origin)).status, origin).toBe(200);
    for (const origin of ['https://xn--mnchen-3ya.example', 'https://other.example'])
      expect((await session(origin)).status, origin).toBe(403);
  });

  it('refuses origins no browser can send: a port past 65535 or 0, an empty or malformed host', async () => {
    const before = await snapshot(server);
    for (const origin of [
      'https://a.com:65536',
      'https://a.com:99999',
      'https://a.com:0',
      'https://..',
      'https://-',
      'https://a..com',
      'https://-a.com',
      'https://a-.com',
      `https://${'a'.repeat(64)}.com`,
      'https://*.',
      'https://*..com',
      // A wildcard over a whole top-level domain would let every site in it.
      'https://*.com',
      'https://*.ES:8443',
      'https://*.bücher',
      'https://b\u00fc\u0000cher.example',
    ]) {
      for (const list of ['whiteList', 'blackList']) {
        const res = await create({
          bot: {},
          widget: { credentials: { [list]: ['https://ok.com', origin] } },
        });
        expect(res.status, origin).toBe(400);
        expect(res.body.error.key).toBe('VALIDATION_ERROR');
        expect(Object.keys(res.body.validationError), origin).toEqual([`/widget/credentials/${list}/1`]);
      }
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('takes the theme values the widget paints: hex colours, colorScheme auto or light', async () => {
    const res = await create({
      bot: {},
      widget: {
        theme: {
          primaryColor: '#0F766E',
          color: '#abc',
          colors: { primary: '', secondary: 'anything' },
          colorScheme: 'auto',
          darkMode: false,
          menu: { whatever: true },
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.Widget.theme).toMatchObject({ primaryColor: '#0F766E', menu: { whatever: true } });
  });

  it('refuses theme values the widget would silently ignore, naming each', async () => {
    const before = await snapshot(server);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ primaryColor: 'red' }, '/widget/theme/primaryColor'],
      [{ primaryColor: 'red; background:url(https://evil.example/x)' }, '/widget/theme/primaryColor'],
      [{ primaryColor: '#12345' }, '/widget/theme/primaryColor'],
      [{ primaryColor: 0x4f46e5 }, '/widget/theme/primaryColor'],
      [{ color: 'rgb(0,0,0)' }, '/widget/theme/color'],
      [{ colors: { primary: '#gggggg' } }, '/widget/theme/colors/primary'],
      [{ colors: '#4f46e5' }, '/widget/theme/colors'],
      [{ colorScheme: 'dark' }, '/widget/theme/colorScheme'],
      [{ darkMode: 'yes' }, '/widget/theme/darkMode'],
    ];
    for (const [theme, field] of cases) {
      const res = await create({ bot: {}, widget: { theme } });
      expect(res.status, JSON.stringify(theme)).toBe(400);
      expect(Object.keys(res.body.validationError), JSON.stringify(theme)).toEqual([field]);
    }
    expect(await snapshot(server)).toEqual(before);
  });
});
