/**
 * The API client's checks against the real service's, black-box: each
 * boundary value goes once through the client (which checks before sending)
 * and once straight to the service, and the two must agree: both take it (the
 * client sends it and the service does not answer 400), or both refuse it
 * naming the same fields with the same error (the client before sending, the
 * service with a 400 VALIDATION_ERROR, or a 422 INVALID_MEDIA_URL naming a
 * video's address). What the service answers past validation (404 for an
 * unknown bot, 422 for an address it cannot sign or reach) is a taking, not a
 * refusal.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CharlaApiError, createClient, type CharlaClient } from '../../src/api/index.ts';
import { AssetsRefreshBody } from '../../types/schemas/assets.ts';
import { OriginPattern } from '../../types/schemas/widget-create.ts';
import { HTTPS_ADDRESS_PATTERN, ORIGIN_PATTERN } from '../../types/limits.ts';
import { CLIENT_ID, CLIENT_SECRET, call, createBot, startServer, type Server } from './helpers/http.ts';

let server: Server;
let client: CharlaClient;
let botId: string;

beforeAll(async () => {
  server = await startServer();
  client = createClient({ baseUrl: server.base, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  botId = await createBot(server, { name: 'Agreement bot' });
});
afterAll(async () => {
  await server?.close();
});

/** Taken, or refused with this error (key and code) naming these fields (sorted). */
type Verdict = 'taken' | { key: string; code: string; fields: string[] };

async function clientVerdict(send: () => Promise<unknown>): Promise<Verdict> {
  try {
    await send();
    return 'taken';
  } catch (error) {
    if (!(error instanceof CharlaApiError)) throw error;
    // Refused before sending; anything the service answered means the client let it through.
    return error.local
      ? { key: error.key, code: error.code, fields: Object.keys(error.validationError).sort() }
      : 'taken';
  }
}

function serviceVerdict(res: { status: number; body: any }): Verdict {
  const fields = Object.keys(res.body?.validationError ?? {}).sort();
  // A video address refused before any fetch names its field; an unreachable one names none.
  const refusedAddress =
    res.status === 422 && res.body.error.key === 'INVALID_MEDIA_URL' && fields.length > 0;
  if (res.status !== 400 && !refusedAddress) return 'taken';
  if (res.status === 400) expect(res.body.error.key).toBe('VALIDATION_ERROR');
  return { key: res.body.error.key, code: res.body.error.code, fields };
}

interface Case {
  what: string;
  client: () => Promise<unknown>;
  service: () => Promise<{ status: number; body: any }>;
  /** What the service is expected to do, so a case that tests nothing is noticed. */
  expect: 'taken' | 'refused';
}

/** Every case where client and service disagree, or the service does not do what the case expects. */
async function disagreements(cases: Case[]): Promise<string[]> {
  const out: string[] = [];
  for (const c of cases) {
    const [byClient, byService] = [await clientVerdict(c.client), serviceVerdict(await c.service())];
    const same = JSON.stringify(byClient) === JSON.stringify(byService);
    const expected = (byService === 'taken') === (c.expect === 'taken');
    if (!same || !expected)
      out.push(
        `${c.what}: client ${JSON.stringify(byClient)}, service ${JSON.stringify(byService)}` +
          (expected ? '' : ` (expected ${c.expect})`),
      );
  }
  return out;
}

const widgetCase = (what: string, body: any, expected: Case['expect']): Case => ({
  what,
  client: () => client.createWidget(body),
  service: () => call(server, 'POST', '/v1/widget/create', { body }),
  expect: expected,
});

/** A bot message sent both ways: the client's sendBotMessage and the service's route. */
const botCase = (what: string, bot: object, expected: Case['expect']): Case => ({
  what,
  client: () => client.sendBotMessage(botId, bot as never),
  service: () => call(server, 'POST', `/v1/bots/${botId}/messages`, { body: bot }),
  expect: expected,
});

const withOrigin = (list: 'whiteList' | 'blackList', origin: string) => ({
  bot: {},
  widget: { credentials: { [list]: ['https://ok.example.com', origin] } },
});

const label = (n: number, c = 'a') => c.repeat(n);
/** A host of exactly n characters: labels of 63 joined by dots. */
const hostOf = (n: number) => {
  const labels: string[] = [];
  let left = n;
  while (left > 0) {
    const take = Math.min(63, left === 64 ? 62 : left);
    labels.push(label(take));
    left -= take + 1;
  }
  return labels.join('.');
};

describe('the client and the service agree on', () => {
  it('the contract patterns the client shares (no copy of a schema pattern drifts)', () => {
    expect((OriginPattern as { pattern?: string }).pattern).toBe(ORIGIN_PATTERN);
    expect((AssetsRefreshBody.properties.resourceUrl as { pattern?: string }).pattern).toBe(
      HTTPS_ADDRESS_PATTERN,
    );
  });

  it('origins of widget credentials: ports, DNS labels, host length', async () => {
    expect(hostOf(253)).toHaveLength(253);
    expect(hostOf(254)).toHaveLength(254);
    const taken = [
      'https://a.com',
      'http://localhost:3000',
      'https://*.example.com',
      'https://a.com:1',
      'https://a.com:65535',
      'https://a.com:00080',
      'https://a.com.',
      'https://a-b.c0',
      'https://1.2.3.4',
      'https://1.2.3.4.',
      'https://0.0.0.0:8080',
      `https://${label(63)}.com`,
      `https://${hostOf(253)}`,
      `https://*.${hostOf(253)}:8080`,
      'https://bücher.example',
      'https://😀.example',
      'https://*.españa.es',
      'http://*.localhost:3000',
      // As pasted from an address bar: the scheme in any case, one trailing slash.
      'https://a.com/',
      'HTTPS://a.com',
      'Http://localhost:3000/',
      'https://*.example.com:8443/',
    ];
    const refused = [
      'https://a.com:0',
      'https://a.com:00000',
      'https://a.com:65536',
      'https://a.com:99999',
      'https://..',
      'https://.',
      'https://-',
      'https://a..com',
      'https://.a.com',
      'https://a.com..',
      'https://-a.com',
      'https://a-.com',
      'https://*..com',
      `https://${label(64)}.com`,
      `https://${hostOf(254)}`,
      'https://a.com:123456',
      'ftp://a.com',
      'https://*.com',
      'https://*.bücher',
      `https://${'ü'.repeat(60)}.com`,
      'https://a.com//',
      'https://a.com/shop',
      'https://a.com/?x',
      // A last label of digits makes an IPv4 address, which these are not.
      'https://256.256.256.256',
      'https://999.1.1.1',
      'https://1.2.3.4.5',
      'https://a.1',
      'https://*.1.2.3',
      // Read as an address by a browser but spelled otherwise in Origin (1.2.0.3, 127.0.0.1, 1.2.3.4).
      'https://1.2.3',
      'https://0x7f.0.0.1',
      'https://01.2.3.4',
      'https://1.2.3.0x4',
    ];
    const cases: Case[] = [];
    for (const list of ['whiteList', 'blackList'] as const) {
      for (const o of taken) cases.push(widgetCase(`${list} ${o}`, withOrigin(list, o), 'taken'));
      for (const o of refused) cases.push(widgetCase(`${list} ${o}`, withOrigin(list, o), 'refused'));
    }
    expect(await disagreements(cases)).toEqual([]);
  });

  it('theme colours, colorScheme and darkMode', async () => {
    const theme = (t: Record<string, unknown>) => ({ bot: {}, widget: { theme: t } });
    const cases: Case[] = [];
    for (const field of ['primaryColor', 'color', 'colors.primary']) {
      const put = (v: unknown) =>
        field === 'colors.primary' ? theme({ colors: { primary: v } }) : theme({ [field]: v });
      for (const v of ['#fff', '#A1b2C3', '', ' #abc ', '#123456\n'])
        cases.push(widgetCase(`${field} ${JSON.stringify(v)}`, put(v), 'taken'));
      for (const v of ['#ffff', '#12345', '#1234567', 'fff', 'red', '#ggg', 'rgb(0,0,0)', 0, null, true])
        cases.push(widgetCase(`${field} ${JSON.stringify(v)}`, put(v), 'refused'));
    }
    cases.push(widgetCase('colors {}', theme({ colors: {} }), 'taken'));
    for (const colors of ['#fff', ['#fff'], null, 3])
      cases.push(widgetCase(`colors ${JSON.stringify(colors)}`, theme({ colors }), 'refused'));
    for (const colorScheme of ['auto', 'light'])
      cases.push(widgetCase(`colorScheme ${colorScheme}`, theme({ colorScheme }), 'taken'));
    for (const colorScheme of ['dark', 'AUTO', '', null, 1])
      cases.push(widgetCase(`colorScheme ${JSON.stringify(colorScheme)}`, theme({ colorScheme }), 'refused'));
    for (const darkMode of [true, false])
      cases.push(widgetCase(`darkMode ${darkMode}`, theme({ darkMode }), 'taken'));
    for (const darkMode of ['true', 1, null])
      cases.push(widgetCase(`darkMode ${JSON.stringify(darkMode)}`, theme({ darkMode }), 'refused'));
    cases.push(
      widgetCase(
        'several bad theme values at once',
        theme({ primaryColor: 'red', colorScheme: 'dark', darkMode: 'yes', colors: { primary: '#12' } }),
        'refused',
      ),
    );
    expect(await disagreements(cases)).toEqual([]);
  });

  it('the bot (its settings beside bot.id, a closed object) and the widget’s name', async () => {
    const w = { properties: { type: 'normal' } };
    const cases: Case[] = [
      widgetCase('bot { id }', { bot: { id: botId }, widget: w }, 'taken'),
      widgetCase(
        'bot { name, callingEnabled }',
        { bot: { name: 'n', callingEnabled: true }, widget: w },
        'taken',
      ),
      widgetCase('bot { id, name }', { bot: { id: botId, name: 'n' }, widget: w }, 'refused'),
      widgetCase(
        'bot { id, callingEnabled }',
        { bot: { id: botId, callingEnabled: false }, widget: w },
        'refused',
      ),
      widgetCase(
        'bot { id, name, callingEnabled }',
        { bot: { id: botId, name: 'n', callingEnabled: true }, widget: w },
        'refused',
      ),
      widgetCase('bot { id: "", name }', { bot: { id: '', name: 'n' }, widget: w }, 'refused'),
      widgetCase('bot { id: 5, name }', { bot: { id: 5, name: 'n' }, widget: w }, 'refused'),
      widgetCase('bot { id, name: "" }', { bot: { id: botId, name: '' }, widget: w }, 'refused'),
      widgetCase('bot { id, foo }: a closed object', { bot: { id: botId, foo: 1 }, widget: w }, 'refused'),
      widgetCase('bot { foo, bar }', { bot: { foo: 1, bar: 2 }, widget: w }, 'refused'),
      widgetCase(
        'properties.name of 1,024',
        { bot: {}, widget: { properties: { name: 'n'.repeat(1024) } } },
        'taken',
      ),
      widgetCase(
        'properties.name of 1,025',
        { bot: {}, widget: { properties: { name: 'n'.repeat(1025) } } },
        'refused',
      ),
      widgetCase('properties.name 5', { bot: {}, widget: { properties: { name: 5 } } }, 'refused'),
      widgetCase(
        'an unknown bot { id } (404, not 400)',
        { bot: { id: `no-${randomUUID()}` }, widget: w },
        'taken',
      ),
    ];
    expect(await disagreements(cases)).toEqual([]);
  });

  it('the campaign list’s page and elementName', async () => {
    const base = { botId, startAt: '2020-01-01', endAt: '2030-01-01' };
    const listCase = (what: string, extra: Record<string, unknown>, expected: Case['expect']): Case => {
      const query = { ...base, ...extra };
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) params.set(k, String(v));
      return {
        what,
        client: () => client.listCampaigns(query as never),
        service: () => call(server, 'GET', `/v1/campaigns?${params.toString()}`),
        expect: expected,
      };
    };
    const cases: Case[] = [
      listCase('page 1', { page: 1 }, 'taken'),
      listCase('page 1,000,000,000', { page: 1_000_000_000 }, 'taken'),
      listCase('page 1,000,000,001', { page: 1_000_000_001 }, 'refused'),
      listCase('page 2^53', { page: 2 ** 53 }, 'refused'),
      listCase('page 0', { page: 0 }, 'refused'),
      listCase('elementName "x"', { elementName: 'x' }, 'taken'),
      listCase('elementName of 1,024', { elementName: 'e'.repeat(1024) }, 'taken'),
      listCase('elementName of 1,025', { elementName: 'e'.repeat(1025) }, 'refused'),
      listCase('elementName ""', { elementName: '' }, 'refused'),
    ];
    expect(await disagreements(cases)).toEqual([]);
  });

  it('dates: the list filters and scheduledAt (real dates, offsets within ±14:00, +05 as +05:00)', async () => {
    const year = new Date().getUTCFullYear() + 1;
    const listCase = (startAt: string, expected: Case['expect']): Case => {
      const query = { botId, startAt, endAt: '9999-12-31' };
      return {
        what: `list startAt ${startAt}`,
        client: () => client.listCampaigns(query as never),
        service: () =>
          call(
            server,
            'GET',
            `/v1/campaigns?${new URLSearchParams(query as Record<string, string>).toString()}`,
          ),
        expect: expected,
      };
    };
    const scheduledCase = (scheduledAt: string, expected: Case['expect']): Case => {
      const campaign = {
        name: 'Fechas',
        elementName: 'dates',
        botId,
        recipients: ['r1'],
        message: { type: 'text', text: 'Hola' },
        scheduledAt,
      };
      return {
        what: `scheduledAt ${scheduledAt}`,
        client: () => client.createCampaign(campaign as never),
        service: () => call(server, 'POST', '/v1/campaigns', { body: campaign }),
        expect: expected,
      };
    };
    const cases: Case[] = [
      listCase('2026-02-28', 'taken'),
      listCase('2028-02-29', 'taken'),
      listCase('2026-02-29', 'refused'),
      listCase('2026-04-31', 'refused'),
      listCase('0000-01-01', 'refused'),
      listCase('2026-01-01 10:00', 'taken'),
      listCase('2026-01-01T10:00+05', 'taken'),
      listCase('2026-01-01T10:00+0530', 'taken'),
      listCase('2026-01-01T24:00', 'refused'),
      listCase('2026-01-01T10:00+14:01', 'refused'),
      scheduledCase(`${year}-06-01T10:00:00Z`, 'taken'),
      scheduledCase(`${year}-06-01T10:00+05`, 'taken'),
      scheduledCase(`${year}-06-01T10:00-0330`, 'taken'),
      scheduledCase(`${year}-06-01T10:00:00.123456789+05:30`, 'taken'),
      scheduledCase(`${year}-06-01T10:00+14:01`, 'refused'),
      scheduledCase(`${year}-06-01T10:00+15`, 'refused'),
      scheduledCase(`${year}-06-01T10:00`, 'refused'),
      scheduledCase(`${year}-06-01 10:00Z`, 'refused'),
      scheduledCase(`${year}-06-01`, 'refused'),
      scheduledCase(`${year}-02-30T10:00Z`, 'refused'),
      scheduledCase(`${year}-06-01T23:60Z`, 'refused'),
    ];
    expect(await disagreements(cases)).toEqual([]);
  });

  it('the assets refresh’s resourceUrl: a valid address or not', async () => {
    const refreshCase = (resourceUrl: unknown, expected: Case['expect']): Case => ({
      what: `resourceUrl ${JSON.stringify(resourceUrl).slice(0, 60)}`,
      client: () => client.refreshAsset({ resourceUrl: resourceUrl as string, ttl: 900 }),
      service: () => call(server, 'POST', '/v1/external/assets/refresh', { body: { resourceUrl, ttl: 900 } }),
      expect: expected,
    });
    const path = 'https://cdn.example.com/';
    const cases: Case[] = [
      // Valid addresses the service cannot sign: 422, past validation.
      refreshCase('https://cdn.example.com/v1/media/x.png', 'taken'),
      refreshCase('HTTPS://cdn.example.com/x.png', 'taken'),
      refreshCase('https://a', 'taken'),
      refreshCase('https://user:pass@cdn.example.com/v1/media/x.png', 'refused'),
      refreshCase('https://user@cdn.example.com/v1/media/x.png', 'refused'),
      // A space or control character, which the URL parser would drop silently.
      refreshCase('https://cdn.example.com/x.png ', 'refused'),
      refreshCase('https://cdn.example.com/\tx.png', 'refused'),
      refreshCase(path + 'x'.repeat(4096 - path.length), 'taken'),
      // 4,096 characters as the service counts them (code points), more UTF-16 units.
      refreshCase(path + '😀'.repeat(4096 - path.length), 'taken'),
      // Not valid addresses.
      refreshCase('https://exa mple.com/x.png', 'refused'),
      refreshCase('https://[::1/x.png', 'refused'),
      refreshCase('https://cdn.example.com:99999/x.png', 'refused'),
      refreshCase('https://%zz/x.png', 'refused'),
      refreshCase(' https://cdn.example.com/x.png', 'refused'),
      refreshCase('https:cdn.example.com/x.png', 'refused'),
      refreshCase('https:/cdn.example.com/x.png', 'refused'),
      refreshCase('http://cdn.example.com/x.png', 'refused'),
      refreshCase('https://', 'refused'),
      refreshCase(path + 'x'.repeat(4097 - path.length), 'refused'),
      refreshCase(path + '😀'.repeat(4097 - path.length), 'refused'),
    ];
    expect(await disagreements(cases)).toEqual([]);
  });

  it('a room post’s mediaUrl: an address from its first character, no credentials, at most 2,048', async () => {
    const { roomId } = await server.app.charla.messaging.ensureBotRoom({ botId, userId: 'agreement-user' });
    const postCase = (mediaUrl: unknown, expected: Case['expect'], extra: object = {}): Case => {
      const body = { senderId: 'erp', messages: [{ id: randomUUID(), type: 'IMAGE', mediaUrl, ...extra }] };
      return {
        what: `mediaUrl ${JSON.stringify(mediaUrl).slice(0, 60)} ${JSON.stringify(extra).slice(0, 40)}`,
        client: () => client.postRoomMessages(roomId, body as never),
        service: () => call(server, 'POST', `/v1/rooms/${roomId}/message`, { body }),
        expect: expected,
      };
    };
    const path = 'https://cdn.example.com/';
    const cases: Case[] = [
      postCase('https://cdn.example.com/pan.png', 'taken'),
      postCase('HTTPS://cdn.example.com/pan.png', 'taken'),
      postCase(path + 'x'.repeat(2048 - path.length), 'taken'),
      postCase(path + 'x'.repeat(2049 - path.length), 'refused'),
      postCase(' https://cdn.example.com/pan.png', 'refused'),
      postCase('https:cdn.example.com/pan.png', 'refused'),
      postCase('https://user:pass@cdn.example.com/pan.png', 'refused'),
      postCase('https://cdn.example.com./pan.png', 'refused'),
      postCase('http://cdn.example.com/pan.png', 'refused'),
      postCase('ftp://cdn.example.com/pan.png', 'refused'),
      // Unicode spaces and direction controls, as ASCII ones.
      postCase('https://cdn.example.com/\u202Egnp.exe', 'refused'),
      postCase('https://cdn.example.com/a\u00A0b.png', 'refused'),
      // Its text is its caption when it gives none: a caption's 1,024 characters then.
      postCase('https://cdn.example.com/pan.png', 'taken', { text: 't'.repeat(1024) }),
      postCase('https://cdn.example.com/pan.png', 'refused', { text: 't'.repeat(1025) }),
      postCase('https://cdn.example.com/pan.png', 'taken', { caption: 'c', text: 't'.repeat(1025) }),
    ];
    expect(await disagreements(cases)).toEqual([]);
  });

  it('message texts that are white space only (an empty bubble)', async () => {
    const { roomId } = await server.app.charla.messaging.ensureBotRoom({ botId, userId: 'agreement-blank' });
    const cases: Case[] = [];
    for (const [text, expected] of [
      ['hola', 'taken'],
      [' hola ', 'taken'],
      [' ', 'refused'],
      ['\n\t', 'refused'],
      ['\u00a0\u2003', 'refused'],
      // Invisible characters only: zero-width space, joiners, word joiner, a bidi mark, a Hangul filler.
      ['\u200b\u200c\u200d\u2060', 'refused'],
      ['\u200f\u3164', 'refused'],
      // The rest of Unicode's default-ignorable characters: tag characters, variation selectors,
      // deprecated format controls, musical formatting, variation selectors supplement.
      ['\u{E0041}\u{E0042}', 'refused'],
      ['\uFE0F\uFE0E', 'refused'],
      ['\u206A', 'refused'],
      ['\u{1D173}', 'refused'],
      ['\u{E0001}\u{E0100}', 'refused'],
      // Control characters only (C0 other than white space, DEL, C1): nothing shows either.
      ['\u0001\u0002', 'refused'],
      ['\u0007', 'refused'],
      ['\u007f\u0085\u009f', 'refused'],
      ['\u0001 hola', 'taken'],
      ['\u200bhola', 'taken'],
      ['\u2764\uFE0F', 'taken'],
    ] as const) {
      const bot = { type: 'text', userId: 'agreement-blank', text };
      cases.push(botCase(`bot text ${JSON.stringify(text)}`, bot, expected));
      const post = { senderId: 'erp', messages: [{ id: randomUUID(), type: 'TEXT', text }] };
      cases.push({
        what: `room post text ${JSON.stringify(text)}`,
        client: () => client.postRoomMessages(roomId, post as never),
        service: () => call(server, 'POST', `/v1/rooms/${roomId}/message`, { body: post }),
        expect: expected,
      });
    }
    expect(await disagreements(cases)).toEqual([]);
  });

  it('a contact card’s e-mail addresses: the service’s rule (RFC 6531: RFC 5322 shapes in any script), no more, no fewer', async () => {
    const cases: Case[] = [];
    for (const [email, expected] of [
      ['ana@example.com', 'taken'],
      ['a@b', 'taken'],
      ['user@localhost', 'taken'],
      ['"a b"@example.com', 'taken'],
      ['first.last+tag@sub.example.co', 'taken'],
      ['ñ@example.com', 'taken'],
      ['ana@ñandú.es', 'taken'],
      ['用户@例子.广告', 'taken'],
      // An address literal names a host, not a mailbox anyone gives out.
      ['ana@[192.168.0.1]', 'refused'],
      ['a..b@example.com', 'refused'],
      ['ana@', 'refused'],
      ['@example.com', 'refused'],
      ['ana example.com', 'refused'],
      [
        // 324 characters: past the 320 the contract allows.
        `${'a'.repeat(64)}@${Array(4).fill('b'.repeat(63)).join('.')}.com`,
        'refused',
      ],
    ] as const) {
      const contacts = [{ name: { formatted_name: 'Ana' }, emails: [{ email }] }];
      cases.push({
        what: `contact e-mail ${JSON.stringify(email)}`,
        client: () => client.sendContacts(botId, 'agreement-email', contacts as never),
        service: () =>
          call(server, 'POST', `/v1/bots/${botId}/messages`, {
            body: { type: 'contacts', userId: 'agreement-email', contacts },
          }),
        expect: expected,
      });
    }
    expect(await disagreements(cases)).toEqual([]);
  });

  it('a call button’s header: none, or one line of visible text', async () => {
    const cases: Case[] = [];
    for (const [header, expected] of [
      ['Llámanos', 'taken'],
      ['', 'taken'],
      ['a\u0007b', 'refused'],
      ['Línea 1\nLínea 2', 'refused'],
      ['\u200b ', 'refused'],
      ['x'.repeat(1025), 'refused'],
    ] as const) {
      const bot = {
        type: 'voice_call',
        userId: 'agreement-header',
        header,
        text: 'Un agente te atiende',
        parameters: { display_text: 'Llamar' },
      };
      cases.push(botCase(`header ${JSON.stringify(header.slice(0, 20))}`, bot, expected));
    }
    expect(await disagreements(cases)).toEqual([]);
  });

  it('labels and names that show nothing: option titles, button text, display_text, campaign names', async () => {
    const cases: Case[] = [];
    const later = new Date(Date.now() + 86_400_000).toISOString();
    for (const [label, expected] of [
      ['Sí', 'taken'],
      ['   ', 'refused'],
      ['\u200b', 'refused'],
      ['\u2060\u00ad', 'refused'],
      ['\u2800', 'refused'],
      ['\u0001', 'refused'],
      ['\u{E0041}', 'refused'],
      ['\uFE0F', 'refused'],
      ['\u206A', 'refused'],
    ] as const) {
      const shown = JSON.stringify(label);
      const bots = {
        [`option title ${shown}`]: {
          type: 'text',
          text: 'Elige',
          buttons: { options: [{ title: label, payload: 'x' }] },
        },
        [`button text ${shown}`]: {
          type: 'text',
          text: 'Elige',
          buttons: { buttonText: { type: 'text', text: label }, options: [{ title: 'Sí' }] },
        },
        [`display_text ${shown}`]: {
          type: 'voice_call',
          text: 'Llámanos',
          parameters: { display_text: label },
        },
      };
      for (const [what, content] of Object.entries(bots)) {
        cases.push(botCase(what, { ...content, userId: 'agreement-labels' }, expected));
      }
      const campaign = {
        name: label,
        elementName: 'labels',
        botId,
        recipients: ['r1'],
        message: { type: 'text', text: 'Hola' },
        scheduledAt: later,
      };
      cases.push({
        what: `campaign name ${shown}`,
        client: () => client.createCampaign(campaign as never),
        service: () => call(server, 'POST', '/v1/campaigns', { body: campaign }),
        expect: expected,
      });
      const element = { ...campaign, name: 'Rebajas', elementName: label };
      cases.push({
        what: `campaign elementName ${shown}`,
        client: () => client.createCampaign(element as never),
        service: () => call(server, 'POST', '/v1/campaigns', { body: element }),
        expect: expected,
      });
    }
    expect(await disagreements(cases)).toEqual([]);

    // A scheduled campaign keeps its name when an update would blank it.
    const made = await call(server, 'POST', '/v1/campaigns', {
      body: {
        name: 'Rebajas',
        elementName: 'labels',
        botId,
        recipients: ['r1'],
        message: { type: 'text', text: 'Hola' },
        scheduledAt: later,
      },
    });
    const id = made.body.data?.id ?? made.body.data?.campaign?.id ?? made.body.id;
    expect(typeof id, JSON.stringify(made.body)).toBe('string');
    const blank = { name: '\u200b\u200b' };
    expect(
      await disagreements([
        {
          what: 'campaign update name "\\u200b\\u200b"',
          client: () => client.updateCampaign(id, blank as never),
          service: () => call(server, 'PUT', `/v1/campaigns/${id}`, { body: blank }),
          expect: 'refused',
        },
      ]),
    ).toEqual([]);
  });

  describe('video messages: the address, the caption, a campaign’s message botId', () => {
    let media: HttpServer;
    let mediaBase: string;
    let local: Server;
    let loopbackClient: CharlaClient;
    let localBot: string;

    beforeAll(async () => {
      // A local file host for the service's HEAD check, and a service and client that allow loopback media.
      media = createServer((req, res) => {
        if (req.url === '/ok.mp4')
          res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '1000' });
        else res.writeHead(404);
        res.end();
      });
      await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
      mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
      local = await startServer({ allowLoopbackMedia: true });
      loopbackClient = createClient({
        baseUrl: local.base,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        allowLoopbackHttp: true,
      });
      localBot = await createBot(local, { name: 'Video agreement bot' });
    });
    afterAll(async () => {
      await local?.close();
      await new Promise((r) => media?.close(r));
    });

    const sendCase = (what: string, message: Record<string, unknown>, expected: Case['expect']): Case => {
      const body = { userId: 'agreement-video', ...message };
      return {
        what: `send: ${what}`,
        client: () => loopbackClient.sendBotMessage(localBot, body as never),
        service: () => call(local, 'POST', `/v1/bots/${localBot}/messages`, { body }),
        expect: expected,
      };
    };
    const campaignCase = (what: string, message: Record<string, unknown>, expected: Case['expect']): Case => {
      const body = {
        name: 'Vídeo',
        elementName: 'video',
        botId: localBot,
        recipients: ['agreement-video'],
        message,
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      };
      return {
        what: `campaign: ${what}`,
        client: () => loopbackClient.createCampaign(body as never),
        service: () => call(local, 'POST', '/v1/campaigns', { body }),
        expect: expected,
      };
    };

    it('a video address that is a string but not one the service may fetch: 422 INVALID_MEDIA_URL at its path', async () => {
      const cases: Case[] = [];
      const refused = [
        'http://example.com/a.mp4',
        'ftp://example.com/a.mp4',
        'https://user:pass@example.com/a.mp4',
        'https://localhost./a.mp4',
        'https://',
        'javascript:alert(1)',
        'not a url',
        '',
        ' https://example.com/a.mp4',
        `https://example.com/${'a'.repeat(2048)}`,
      ];
      for (const mediaUrl of refused) {
        const what = `mediaUrl ${JSON.stringify(mediaUrl).slice(0, 40)}`;
        cases.push(sendCase(what, { type: 'video', mediaUrl }, 'refused'));
        cases.push(campaignCase(what, { type: 'video', mediaUrl }, 'refused'));
      }
      // No address, or no string: the body's shape, 400.
      for (const mediaUrl of [undefined, null, 5, ['https://example.com/a.mp4']]) {
        const what = `mediaUrl ${JSON.stringify(mediaUrl)}`;
        cases.push(sendCase(what, { type: 'video', mediaUrl }, 'refused'));
        cases.push(campaignCase(what, { type: 'video', mediaUrl }, 'refused'));
      }
      // Another bad field is the 400 the service answers first, without the address.
      cases.push(
        sendCase(
          'bad address and blank caption',
          { type: 'video', mediaUrl: 'ftp://x', text: ' ' },
          'refused',
        ),
      );
      // Reachable, and unreachable (past the address check: 422 without a field).
      cases.push(sendCase('a reachable file', { type: 'video', mediaUrl: `${mediaBase}/ok.mp4` }, 'taken'));
      cases.push(
        sendCase('a missing file', { type: 'video', mediaUrl: `${mediaBase}/missing.mp4` }, 'taken'),
      );
      cases.push(
        campaignCase('a reachable file', { type: 'video', mediaUrl: `${mediaBase}/ok.mp4` }, 'taken'),
      );
      expect(await disagreements(cases)).toEqual([]);
    });

    it('a video caption: 1 to 1,024 characters (code points), not blank', async () => {
      const mediaUrl = `${mediaBase}/ok.mp4`;
      const cases: Case[] = [];
      for (const [text, expected] of [
        ['Mira', 'taken'],
        [' Mira ', 'taken'],
        ['😀'.repeat(1024), 'taken'],
        ['x'.repeat(1024), 'taken'],
        ['😀'.repeat(1025), 'refused'],
        ['x'.repeat(1025), 'refused'],
        ['', 'refused'],
        ['   ', 'refused'],
        ['\n\t', 'refused'],
      ] as const) {
        const what = `caption ${JSON.stringify(text.slice(0, 4))} (${[...text].length})`;
        cases.push(sendCase(what, { type: 'video', mediaUrl, text }, expected));
        cases.push(campaignCase(what, { type: 'video', mediaUrl, text }, expected));
      }
      expect(await disagreements(cases)).toEqual([]);
    });

    it('a campaign message’s botId: the campaign’s bot or none', async () => {
      const other = await createBot(local, { name: 'Other bot' });
      const cases: Case[] = [
        campaignCase('no botId in the message', { type: 'text', text: 'Hola' }, 'taken'),
        campaignCase('the campaign’s botId', { type: 'text', text: 'Hola', botId: localBot }, 'taken'),
        campaignCase('another bot', { type: 'text', text: 'Hola', botId: other }, 'refused'),
        campaignCase('an unknown bot', { type: 'text', text: 'Hola', botId: 'no-such-bot' }, 'refused'),
      ];
      expect(await disagreements(cases)).toEqual([]);
    });
  });
});
