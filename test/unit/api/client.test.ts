/**
 * The API client without a service: arguments are checked against the
 * interface's limits before anything is sent, requests carry the right method,
 * path, headers and body, and every failure becomes a CharlaApiError carrying
 * the error body and the HTTP status.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  CharlaApiError,
  base64Utf8,
  createClient,
  isCharlaApiError,
  type CharlaClient,
} from '../../../src/api/index.ts';
import { errorBody } from '../../../types/index.ts';
import { VIDEO_ADDRESS_REFUSALS } from '../../video-address-refusals.ts';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A client whose fetch records each call and answers with `reply`. */
function setup(reply: (call: Call) => Response | Promise<Response> = () => json({ ok: true })) {
  const calls: Call[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const call: Call = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    return reply(call);
  });
  const client = createClient({
    baseUrl: 'https://charla.test/',
    clientId: 'demo-client',
    clientSecret: 'demo-secret',
    fetch: fetchMock as unknown as typeof fetch,
  });
  return { client, calls, fetchMock };
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** Runs fn, expecting a CharlaApiError; returns it. */
async function rejection(fn: () => Promise<unknown>): Promise<CharlaApiError> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CharlaApiError);
    return error as CharlaApiError;
  }
  throw new Error('expected a rejection');
}

const options = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `Option ${i + 1}` }));
const BOT = 'bot-1';
const USER = 'user-1';

describe('base64Utf8()', () => {
  it('encodes UTF-8 like Buffer does, padding included', () => {
    for (const s of ['', 'a', 'ab', 'abc', 'demo-client:demo-secret', 'ñandú:contraseña€', '😀:🔑']) {
      expect(base64Utf8(s)).toBe(Buffer.from(s, 'utf8').toString('base64'));
    }
  });
});

describe('createClient()', () => {
  it('sends Basic base64(clientId:clientSecret), JSON and the path under the base URL', async () => {
    const { client, calls } = setup(() => json({ success: true, messageId: 'm1' }));
    await expect(client.sendText(BOT, USER, 'Hola')).resolves.toEqual({ success: true, messageId: 'm1' });
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.url).toBe('https://charla.test/v1/bots/bot-1/messages');
    expect(call.method).toBe('POST');
    expect(call.headers['authorization']).toBe(
      `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`,
    );
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.body).toEqual({ type: 'text', userId: USER, text: 'Hola' });
  });

  it('sends Basic <COMPANY_TOKEN> when given a company token, and keeps a path prefix of the base URL', async () => {
    const calls: string[] = [];
    const client = createClient({
      baseUrl: 'https://example.com/charla',
      companyToken: 'tok-123',
      fetch: (async (url: string, init: RequestInit) => {
        calls.push(`${url} ${(init.headers as Record<string, string>)['authorization']}`);
        return json({ signedUrl: 'https://x' });
      }) as unknown as typeof fetch,
    });
    await client.refreshAsset({ resourceUrl: 'https://cdn.example.com/a.png', ttl: 900 });
    expect(calls).toEqual(['https://example.com/charla/v1/external/assets/refresh Basic tok-123']);
  });

  it('rejects unusable options at once', () => {
    expect(() => createClient({ baseUrl: 'not a url', clientId: 'a', clientSecret: 'b' })).toThrow(/baseUrl/);
    expect(() => createClient({ baseUrl: 'https://x.test', clientId: '', clientSecret: 'b' })).toThrow(
      /clientId/,
    );
    expect(() => createClient({ baseUrl: 'https://x.test', clientId: 'a:b', clientSecret: 'b' })).toThrow(
      /clientId/,
    );
    expect(() => createClient({ baseUrl: 'https://x.test', companyToken: '' })).toThrow(/companyToken/);
  });

  it.each([2 ** 31 - 1, Infinity, 0])('takes a timeoutMs of %s', (timeoutMs) => {
    expect(() => createClient({ baseUrl: 'https://x.test', companyToken: 't', timeoutMs })).not.toThrow();
  });

  it.each([2 ** 31, 3e9, -1, NaN, '30000', null])(
    'refuses a timeoutMs of %s at once (past 2147483647 ms every call was a TIMEOUT)',
    (timeoutMs) => {
      let error: unknown;
      try {
        createClient({ baseUrl: 'https://x.test', companyToken: 't', timeoutMs: timeoutMs as number });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CharlaApiError);
      expect((error as CharlaApiError).validationError['timeoutMs']).toMatch(/2147483647/);
    },
  );

  it('encodes path parameters', async () => {
    const { client, calls } = setup(() => json({ data: {} }));
    await client.cancelCampaign('a/b c');
    expect(calls[0]!.url).toBe('https://charla.test/v1/campaigns/a%2Fb%20c');
    expect(calls[0]!.method).toBe('DELETE');
    expect(calls[0]!.body).toBeUndefined();
    expect(calls[0]!.headers['content-type']).toBeUndefined();
  });
});

describe('listCampaigns()', () => {
  const query = { botId: BOT, startAt: '2026-01-01', endAt: '2026-12-31' };

  it('puts the query in the query string', async () => {
    const { client, calls } = setup(() =>
      json({ message: [], status: 'success', data: { results: [], pagination: {} } }),
    );
    await client.listCampaigns({ ...query, page: 2, limit: 50, status: 'SCHEDULED', elementName: 'promo x' });
    const url = new URL(calls[0]!.url);
    expect(url.pathname).toBe('/v1/campaigns');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      botId: BOT,
      startAt: '2026-01-01',
      endAt: '2026-12-31',
      page: '2',
      limit: '50',
      status: 'SCHEDULED',
      elementName: 'promo x',
    });
  });

  it.each([
    [{ limit: 51 }, 'querystring:/limit'],
    [{ limit: 0 }, 'querystring:/limit'],
    [{ limit: 2.5 }, 'querystring:/limit'],
    [{ page: 0 }, 'querystring:/page'],
    [{ botId: '' }, 'querystring:/botId'],
    [{ startAt: 'yesterday' }, 'querystring:/startAt'],
    [{ endAt: '2026-13-45' }, 'querystring:/endAt'],
    [{ status: 'CANCELLED' }, 'querystring:/status'],
  ])('rejects %o before sending', async (bad, field) => {
    const { client, fetchMock } = setup();
    const error = await rejection(() => client.listCampaigns({ ...query, ...bad } as never));
    expect(error.httpStatus).toBe(0);
    expect(error.key).toBe('VALIDATION_ERROR');
    expect(error.local).toBe(true);
    expect(Object.keys(error.validationError)).toEqual([field]);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('says a date that is given but not real as the service does, and a missing one is required', async () => {
    const { client } = setup();
    const error = await rejection(() =>
      client.listCampaigns({ botId: BOT, startAt: '2026-02-30', endAt: undefined } as never),
    );
    expect(error.validationError).toEqual({
      'querystring:/startAt': 'must be a real date (YYYY-MM-DD) or ISO 8601 date-time',
      'querystring:/endAt': 'is required (a date, YYYY-MM-DD, or an ISO 8601 date-time)',
    });
    // Not a date's shape at all: the service's words for its pattern.
    const shape = await rejection(() =>
      client.listCampaigns({ botId: BOT, startAt: 'abc', endAt: '2026-12-31' }),
    );
    expect(shape.validationError).toEqual({
      'querystring:/startAt':
        "must be a date (YYYY-MM-DD) or an ISO 8601 date-time (in the address, an offset's + is written %2B)",
    });
  });
});

describe('sendOptions() and the options limits', () => {
  it('sends 1 to 10 options, accepting a bare list', async () => {
    const { client, calls } = setup(() => json({ success: true, messageId: 'm' }));
    await client.sendOptions(BOT, USER, 'Choose', options(10));
    await client.sendOptions(BOT, USER, 'Choose', {
      title: 'Menu',
      buttonText: { type: 'text', text: 'Ver' },
      options: options(1),
    });
    expect(calls[0]!.body).toEqual({
      type: 'text',
      userId: USER,
      text: 'Choose',
      buttons: { options: options(10) },
    });
    expect((calls[1]!.body as { buttons: { buttonText: unknown } }).buttons.buttonText).toEqual({
      type: 'text',
      text: 'Ver',
    });
  });

  it.each([
    ['no options', options(0), '/buttons/options'],
    ['eleven options', options(11), '/buttons/options'],
    ['a title of 25 characters', [{ title: 'x'.repeat(25) }], '/buttons/options/0/title'],
    ['an empty title', [{ title: '' }], '/buttons/options/0/title'],
    [
      'a description of 73 characters',
      [{ title: 'ok', description: 'd'.repeat(73) }],
      '/buttons/options/0/description',
    ],
  ])('rejects %s', async (_name, opts, field) => {
    const { client, fetchMock } = setup();
    const error = await rejection(() => client.sendOptions(BOT, USER, 'Choose', opts));
    expect(error.validationError).toHaveProperty([field]);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('counts characters, not UTF-16 units (24 emoji fit in a title)', async () => {
    const { client } = setup(() => json({ success: true, messageId: 'm' }));
    await expect(
      client.sendOptions(BOT, USER, 'Elige', [{ title: '😀'.repeat(24), description: 'ñ'.repeat(72) }]),
    ).resolves.toBeTruthy();
  });
});

describe('the other bot-message helpers', () => {
  it('build each variant of the interface', async () => {
    const { client, calls } = setup(() => json({ success: true, messageId: 'm' }));
    await client.sendContacts(BOT, USER, [
      { name: { formatted_name: 'Ana' }, phones: [{ phone: '+34600111222', type: 'CELL' }] },
    ]);
    await client.sendVoiceCall(BOT, USER, { text: 'Call us', displayText: 'Llamar', header: 'Soporte' });
    await client.sendVideo(BOT, USER, 'https://cdn.example.com/v.mp4', 'Mira');
    await client.sendContactInfoRequest(BOT, USER, 'Your details?');
    expect(calls.map((c) => c.body)).toEqual([
      {
        type: 'contacts',
        userId: USER,
        contacts: [{ name: { formatted_name: 'Ana' }, phones: [{ phone: '+34600111222', type: 'CELL' }] }],
      },
      {
        type: 'voice_call',
        userId: USER,
        text: 'Call us',
        parameters: { display_text: 'Llamar' },
        header: 'Soporte',
      },
      { type: 'video', userId: USER, mediaUrl: 'https://cdn.example.com/v.mp4', text: 'Mira' },
      { type: 'contact_info_request', userId: USER, text: 'Your details?' },
    ]);
  });

  it.each([
    [
      'a phone not in E.164',
      () => ({ type: 'contacts', userId: USER, contacts: [{ phones: [{ phone: '600 111 222' }] }] }),
      '/contacts/0/phones/0/phone',
    ],
    [
      'a bad email',
      () => ({ type: 'contacts', userId: USER, contacts: [{ emails: [{ email: 'nope' }] }] }),
      '/contacts/0/emails/0/email',
    ],
    ['no contacts', () => ({ type: 'contacts', userId: USER, contacts: [] }), '/contacts'],
    [
      'an http video',
      () => ({ type: 'video', userId: USER, mediaUrl: 'http://cdn.example.com/v.mp4' }),
      '/mediaUrl',
    ],
    ['a video without address', () => ({ type: 'video', userId: USER }), '/mediaUrl'],
    [
      'a call without display_text',
      () => ({ type: 'voice_call', userId: USER, text: 'x', parameters: {} }),
      '/parameters/display_text',
    ],
    ['a request without text', () => ({ type: 'contact_info_request', userId: USER, text: '' }), '/text'],
    ['no recipient', () => ({ type: 'text', text: 'hi' }), '/userId'],
    ['an unknown type', () => ({ type: 'sticker', userId: USER }), '/type'],
    ['text over 4096 characters', () => ({ type: 'text', userId: USER, text: 'x'.repeat(4097) }), '/text'],
  ])('reject %s before sending', async (_name, body, field) => {
    const { client, fetchMock } = setup();
    const error = await rejection(() => client.sendBotMessage(BOT, body() as never));
    expect(error.validationError).toHaveProperty([field]);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('rejects an empty bot id', async () => {
    const { client } = setup();
    expect((await rejection(() => client.sendText('', USER, 'hi'))).validationError).toHaveProperty([
      'botId',
    ]);
  });

  it('accepts http on the local machine only when allowLoopbackHttp is set', async () => {
    const fetchMock = vi.fn(async () => json({ success: true, messageId: 'm' }));
    const base = {
      baseUrl: 'http://localhost:8080',
      clientId: 'a',
      clientSecret: 'b',
      fetch: fetchMock as unknown as typeof fetch,
    };
    await rejection(() => createClient(base).sendVideo(BOT, USER, 'http://localhost:8080/v.mp4'));
    await expect(
      createClient({ ...base, allowLoopbackHttp: true }).sendVideo(BOT, USER, 'http://localhost:8080/v.mp4'),
    ).resolves.toBeTruthy();
    await rejection(() =>
      createClient({ ...base, allowLoopbackHttp: true }).sendVideo(BOT, USER, 'http://evil.example/v.mp4'),
    );
  });
});

describe('videos: the address as the service refuses it, the caption, a campaign’s message botId', () => {
  const video = (mediaUrl: unknown, extra: Record<string, unknown> = {}) => ({
    type: 'video',
    userId: USER,
    mediaUrl,
    ...extra,
  });
  const campaign = (message: Record<string, unknown>) => ({
    name: 'Vídeo',
    elementName: 'video',
    botId: BOT,
    recipients: ['u1'],
    message,
  });

  // The service's 422 INVALID_MEDIA_URL reasons, and loopback, which the client refuses unless allowed.
  const invalid: Array<readonly [string, string]> = [
    ...VIDEO_ADDRESS_REFUSALS,
    ['http://localhost:8080/v.mp4', 'must be a public https address'],
  ];

  it.each(invalid)(
    'refuses the address %j as the service does: INVALID_MEDIA_URL, E1201, at /mediaUrl',
    async (mediaUrl, reason) => {
      const { client, fetchMock } = setup();
      for (const send of [
        () => client.sendBotMessage(BOT, video(mediaUrl) as never),
        () => client.sendVideo(BOT, USER, mediaUrl, 'Mira'),
      ]) {
        const error = await rejection(send);
        expect(error.key).toBe('INVALID_MEDIA_URL');
        expect(error.code).toBe('E1201');
        expect(error.body).toEqual(
          errorBody('INVALID_MEDIA_URL', {
            message: `The video address (/mediaUrl) ${reason}.`,
            validationError: { '/mediaUrl': reason },
          }),
        );
        expect(error.message).toContain('/mediaUrl');
        expect(error.httpStatus).toBe(0);
        expect(error.request).toBeUndefined();
        expect(error.local).toBe(true);
      }
      expect(fetchMock).not.toHaveBeenCalled();
    },
  );

  it('names /message/mediaUrl in a campaign', async () => {
    const { client, fetchMock } = setup();
    for (const [mediaUrl, reason] of invalid.slice(0, 4)) {
      const error = await rejection(() =>
        client.createCampaign(campaign({ type: 'video', mediaUrl }) as never),
      );
      expect(error.key, mediaUrl).toBe('INVALID_MEDIA_URL');
      expect(error.code).toBe('E1201');
      expect(error.validationError).toEqual({ '/message/mediaUrl': reason });
      expect(error.message).toContain('/message/mediaUrl');
    }
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('leaves a missing or non-string address a VALIDATION_ERROR (the service’s 400)', async () => {
    const { client, fetchMock } = setup();
    for (const mediaUrl of [undefined, null, 5, ['https://example.com/a.mp4'], { href: 'x' }]) {
      const error = await rejection(() => client.sendBotMessage(BOT, video(mediaUrl) as never));
      expect(error.key, JSON.stringify(mediaUrl)).toBe('VALIDATION_ERROR');
      expect(Object.keys(error.validationError)).toEqual(['/mediaUrl']);
      expect(error.local).toBe(true);
    }
    const error = await rejection(() => client.createCampaign(campaign({ type: 'video' }) as never));
    expect(error.key).toBe('VALIDATION_ERROR');
    expect(Object.keys(error.validationError)).toEqual(['/message/mediaUrl']);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('answers other bad fields first, as the service does, without the address', async () => {
    const { client } = setup();
    const error = await rejection(() =>
      client.sendBotMessage(BOT, video('http://example.com/a.mp4', { text: '' }) as never),
    );
    expect(error.key).toBe('VALIDATION_ERROR');
    expect(Object.keys(error.validationError)).toEqual(['/text']);
  });

  it('holds the caption to 1 to 1,024 characters (code points), not blank', async () => {
    const { client, calls, fetchMock } = setup(() => json({ success: true, messageId: 'm' }));
    const url = 'https://cdn.example.com/v.mp4';
    for (const caption of ['😀'.repeat(1024), 'x'.repeat(1024), ' Mira '])
      await expect(client.sendVideo(BOT, USER, url, caption)).resolves.toBeTruthy();
    expect(calls).toHaveLength(3);
    fetchMock.mockClear();
    for (const caption of ['😀'.repeat(1025), 'x'.repeat(1025), '', '   ', '\n\t']) {
      const error = await rejection(() => client.sendVideo(BOT, USER, url, caption));
      expect(error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(error.validationError), JSON.stringify(caption.slice(0, 4))).toEqual(['/text']);
      const inCampaign = await rejection(() =>
        client.createCampaign(campaign({ type: 'video', mediaUrl: url, text: caption }) as never),
      );
      expect(Object.keys(inCampaign.validationError)).toEqual(['/message/text']);
    }
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('refuses a campaign whose message names another bot (400 at /message/botId); the same bot is taken', async () => {
    const { client, calls, fetchMock } = setup(() =>
      json({ message: [], statusMessage: 'success', status: 1, data: {} }),
    );
    const error = await rejection(() =>
      client.createCampaign(campaign({ type: 'text', text: 'Hola', botId: 'bot-2' }) as never),
    );
    expect(error.key).toBe('VALIDATION_ERROR');
    expect(error.validationError).toEqual({ '/message/botId': 'must match the botId of the campaign' });
    expect(fetchMock).not.toHaveBeenCalled();
    await client.createCampaign(campaign({ type: 'text', text: 'Hola', botId: BOT }) as never);
    expect(calls).toHaveLength(1);
  });
});

describe('campaigns, widgets, rooms and assets', () => {
  const message = { type: 'text' as const, text: 'Promo' };
  const create = {
    name: 'Spring',
    elementName: 'spring_2026',
    botId: BOT,
    recipients: ['u1', 'u2'],
    message,
  };

  it('create, update and cancel go to the right routes', async () => {
    const { client, calls } = setup(() =>
      json({ message: [], statusMessage: 'success', status: 1, data: {} }),
    );
    await client.createCampaign({ ...create, scheduledAt: '2030-01-01T10:00:00Z' });
    await client.updateCampaign('c1', { name: 'Renamed', scheduledAt: '2030-01-02T10:00:00+02:00' });
    await client.cancelCampaign('c1');
    expect(calls.map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual([
      'POST /v1/campaigns',
      'PUT /v1/campaigns/c1',
      'DELETE /v1/campaigns/c1',
    ]);
  });

  it.each([
    [{ recipients: [] }, '/recipients'],
    [{ scheduledAt: '2030-01-01T10:00:00' }, '/scheduledAt'],
    [{ message: { type: 'text', text: 'x', buttons: { options: [] } } }, '/message/buttons/options'],
    [{ name: '' }, '/name'],
  ])('createCampaign rejects %o', async (bad, field) => {
    const { client, fetchMock } = setup();
    const error = await rejection(() => client.createCampaign({ ...create, ...bad } as never));
    expect(error.validationError).toHaveProperty([field]);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('updateCampaign needs name or scheduledAt, and a zoned date-time', async () => {
    const { client, fetchMock } = setup();
    expect((await rejection(() => client.updateCampaign('c1', {}))).validationError).toHaveProperty(['/']);
    expect(
      (await rejection(() => client.updateCampaign('c1', { scheduledAt: 'tomorrow' }))).validationError,
    ).toEqual({ '/scheduledAt': 'must be an ISO 8601 date-time with a time zone (Z or an offset)' });
    // Zoned but not a real instant (2027 is not a leap year): the service's words for it.
    expect(
      (await rejection(() => client.updateCampaign('c1', { scheduledAt: '2027-02-29T10:00:00Z' })))
        .validationError,
    ).toEqual({ '/scheduledAt': 'must be a real ISO 8601 date-time with a time zone' });
    expect((await rejection(() => client.updateCampaign('', { name: 'x' }))).validationError).toHaveProperty([
      'campaignId',
    ]);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('createWidget checks the typed fields and passes further visual properties through', async () => {
    const { client, calls, fetchMock } = setup(() => json({ status: 1 }));
    const body = {
      bot: {},
      widget: {
        properties: { type: 'group' as const },
        theme: {
          position: 'bottom-left' as const,
          status: true,
          font: { googlefont: false, name: 'Inter' },
          colors: { primary: '#0a7' },
        },
        credentials: { whiteList: ['https://*.example.com', 'http://localhost:3000'] },
      },
    };
    await client.createWidget(body);
    expect(calls[0]!.body).toEqual(body);
    for (const [bad, field] of [
      [{ bot: {}, widget: { properties: { type: 'huge' } } }, '/widget/properties/type'],
      [{ bot: {}, widget: { theme: { position: 'middle' } } }, '/widget/theme/position'],
      [
        { bot: {}, widget: { credentials: { blackList: ['javascript:alert(1)'] } } },
        '/widget/credentials/blackList/0',
      ],
      [{ widget: {} }, '/bot'],
    ] as const) {
      expect((await rejection(() => client.createWidget(bad as never))).validationError).toHaveProperty([
        field,
      ]);
    }
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('postRoomMessages wants UUIDs, text for TEXT and an https mediaUrl otherwise', async () => {
    const { client, calls } = setup(() => json({ status: 1, data: { messageIds: [] } }));
    const id = '3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
    await client.postRoomMessages('room-1', {
      senderId: 'sys',
      messages: [{ id, type: 'TEXT', text: 'hi' }],
    });
    expect(calls[0]!.url).toBe('https://charla.test/v1/rooms/room-1/message');
    const bad = async (messages: unknown[]) =>
      Object.keys(
        (await rejection(() => client.postRoomMessages('room-1', { senderId: 'sys', messages } as never)))
          .validationError,
      );
    expect(await bad([{ id: 'not-a-uuid', type: 'TEXT', text: 'x' }])).toEqual(['/messages/0/id']);
    expect(await bad([{ id, type: 'TEXT' }])).toEqual(['/messages/0/text']);
    expect(await bad([{ id, type: 'IMAGE', mediaUrl: 'ftp://x/y.png' }])).toEqual(['/messages/0/mediaUrl']);
    expect(await bad([{ id, type: 'STICKER' }])).toEqual(['/messages/0/type']);
    expect(await bad([])).toEqual(['/messages']);
    expect(calls).toHaveLength(1);
  });

  it('refreshAsset wants an https address and a ttl from 900 to 3600', async () => {
    const { client, calls } = setup(() => json({ signedUrl: 'https://s' }));
    await client.refreshAsset({ resourceUrl: 'https://cdn.example.com/a.png', ttl: 900 });
    await client.refreshAsset({ resourceUrl: 'https://cdn.example.com/a.png', ttl: 3600 });
    for (const ttl of [899, 3601, 1000.5]) {
      expect(
        (await rejection(() => client.refreshAsset({ resourceUrl: 'https://cdn.example.com/a.png', ttl })))
          .validationError,
      ).toHaveProperty(['/ttl']);
    }
    expect(
      (await rejection(() => client.refreshAsset({ resourceUrl: 'http://cdn.example.com/a.png', ttl: 900 })))
        .validationError,
    ).toHaveProperty(['/resourceUrl']);
    expect(calls).toHaveLength(2);
  });
});

describe('errors', () => {
  let client: CharlaClient;

  it('carry the service error body and the HTTP status', async () => {
    const body = errorBody('SIGNED_URL_ERROR', { message: 'resource not found' });
    ({ client } = setup(() => json(body, 422)));
    const error = await rejection(() =>
      client.refreshAsset({ resourceUrl: 'https://cdn.example.com/a.png', ttl: 900 }),
    );
    expect(error.httpStatus).toBe(422);
    expect(error.body).toEqual(body);
    expect(error.code).toBe('E1126');
    expect(error.key).toBe('SIGNED_URL_ERROR');
    expect(error.message).toBe('resource not found');
    expect(error.request).toEqual({ method: 'POST', path: '/v1/external/assets/refresh' });
    expect(error.local).toBe(false);
    expect(isCharlaApiError(error)).toBe(true);
  });

  it('make an error body from the status when the response has none', async () => {
    ({ client } = setup(() => new Response('<h1>Bad gateway</h1>', { status: 502 })));
    const error = await rejection(() => client.openapi());
    expect(error.httpStatus).toBe(502);
    expect(error.key).toBe('UNKNOWN_ERROR');
    expect(error.body.data).toEqual({ response: '<h1>Bad gateway</h1>' });
    ({ client } = setup(() => new Response('', { status: 401 })));
    expect((await rejection(() => client.openapi())).key).toBe('UNAUTHORIZED');
  });

  it('report a network failure as NETWORK_ERROR with status 0', async () => {
    ({ client } = setup(() => {
      throw new TypeError('fetch failed');
    }));
    const error = await rejection(() => client.sendText(BOT, USER, 'hi'));
    expect(error.httpStatus).toBe(0);
    expect(error.key).toBe('NETWORK_ERROR');
    expect(error.message).toContain('fetch failed');
  });

  it('report a slow service as TIMEOUT', async () => {
    const slow = createClient({
      baseUrl: 'https://charla.test',
      clientId: 'a',
      clientSecret: 'b',
      timeoutMs: 20,
      fetch: ((_url: string, init: RequestInit) =>
        new Promise((_resolve, reject) => {
          init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        })) as unknown as typeof fetch,
    });
    expect((await rejection(() => slow.openapi())).key).toBe('TIMEOUT');
  });

  it('report a 200 that is not JSON as INVALID_RESPONSE', async () => {
    ({ client } = setup(() => new Response('<html>', { status: 200 })));
    expect((await rejection(() => client.openapi())).key).toBe('INVALID_RESPONSE');
  });
});
