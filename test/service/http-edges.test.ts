/**
 * Edges an outside client found: dates at the end of the calendar, URLs the
 * router refuses before any route runs, a room post reusing another room's
 * message id, a short wrong API key, leaving a room one is not in. Each gets
 * the interface's error body (or a success) and never a 500; a refused
 * request changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../types/index.ts';
import { configFromEnv, configWarnings, parseTrustProxy } from '../../server/config.ts';
import {
  BASIC,
  call,
  createBot,
  insertCampaigns,
  snapshot,
  startServer,
  uid,
  type Server,
} from './helpers/http.ts';

let server: Server;
let botId: string;

beforeAll(async () => {
  server = await startServer();
  botId = await createBot(server);
});
afterAll(async () => {
  await server?.close();
});

function expectErrorBody(res: { status: number; body: any }, status: number, key: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({
    statusMessage: 'failed',
    status: 0,
    error: {
      code: expect.any(String),
      key,
      description: expect.any(String),
      developerMessages: { es: expect.any(String), en: expect.any(String) },
      clientMessages: { es: expect.any(String), en: expect.any(String) },
    },
    validationError: expect.any(Object),
  });
}

const createCampaign = (scheduledAt: string) =>
  call(server, 'POST', ROUTES.createCampaign, {
    body: {
      name: 'Edge',
      elementName: 'el',
      botId,
      recipients: ['u1'],
      message: { type: 'text', text: 'Hola' },
      scheduledAt,
    },
  });

describe('dates at the end of the calendar', () => {
  it('lists up to 9999-12-31 (a whole day, any zone) without a 500', async () => {
    for (const endAt of ['9999-12-31', '9999-12-31T23:00:00Z', '9999-12-31T23:59:59.999Z']) {
      const res = await call(server, 'GET', `/v1/campaigns?botId=${botId}&startAt=2000-01-01&endAt=${endAt}`);
      expect(res.status, endAt).toBe(200);
      expect(res.body.data.pagination.total).toBe(0);
    }
  });

  it('refuses with 400 a date that is past year 9999 once in UTC, or before year 1', async () => {
    for (const q of [
      'startAt=2000-01-01&endAt=9999-12-31T23:00:00-05:00',
      'startAt=0000-01-01&endAt=2000-01-01',
      'startAt=9999-12-31T23:30:00-01:00&endAt=9999-12-31',
    ]) {
      const res = await call(server, 'GET', `/v1/campaigns?botId=${botId}&${q}`);
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
    }
  });

  it('reads years below 100 as they are (0050 is not 1950)', async () => {
    await insertCampaigns(server, [{ botId, createdAt: '1950-06-01T00:00:00Z' }]);
    const res = await call(server, 'GET', `/v1/campaigns?botId=${botId}&startAt=0050-01-01&endAt=0050-12-31`);
    expect(res.status).toBe(200);
    expect(res.body.data.pagination.total).toBe(0);
    const real = await call(
      server,
      'GET',
      `/v1/campaigns?botId=${botId}&startAt=1950-01-01&endAt=1950-12-31`,
    );
    expect(real.body.data.pagination.total).toBe(1);
  });

  it('refuses a scheduledAt past year 9999 in UTC on create and update with 400, storing nothing', async () => {
    const before = await snapshot(server);
    expectErrorBody(await createCampaign('9999-12-31T23:59:59-14:00'), 400, 'VALIDATION_ERROR');
    expect(await snapshot(server)).toEqual(before);
    const created = await createCampaign(new Date(Date.now() + 3_600_000).toISOString());
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    const mid = await snapshot(server);
    const res = await call(server, 'PUT', `/v1/campaigns/${id}`, {
      body: { scheduledAt: '9999-12-31T23:59:59-14:00' },
    });
    expectErrorBody(res, 400, 'VALIDATION_ERROR');
    expect(await snapshot(server)).toEqual(mid);
    // The last storable instant is fine.
    const last = await call(server, 'PUT', `/v1/campaigns/${id}`, {
      body: { scheduledAt: '9999-12-31T23:59:59+00:00' },
    });
    expect(last.status).toBe(200);
  });
});

describe('pattern errors in words', () => {
  it('says what a value should be instead of quoting a regular expression', async () => {
    const list = await call(server, 'GET', `/v1/campaigns?botId=${botId}&startAt=abc&endAt=2026-01-01`);
    expectErrorBody(list, 400, 'VALIDATION_ERROR');
    expect(list.body.validationError['querystring:/startAt']).toBe(
      "must be a date (YYYY-MM-DD) or an ISO 8601 date-time (in the address, an offset's + is written %2B)",
    );
    // An offset's + sent unencoded arrives as a space: the same words, which say how to write it.
    const plus = await call(
      server,
      'GET',
      `/v1/campaigns?botId=${botId}&startAt=2026-12-07T20:36:00+01:00&endAt=2026-12-31`,
    );
    expectErrorBody(plus, 400, 'VALIDATION_ERROR');
    expect(plus.body.validationError['querystring:/startAt']).toMatch(/%2B/);
    const encoded = await call(
      server,
      'GET',
      `/v1/campaigns?botId=${botId}&startAt=2026-12-07T20:36:00%2B01:00&endAt=2026-12-31`,
    );
    expect(encoded.status).toBe(200);
    const roomId = (await server.app.charla.messaging.ensureBotRoom({ botId, userId: uid('p') })).roomId;
    const post = await call(server, 'POST', `/v1/rooms/${roomId}/message`, {
      body: { senderId: 'crm', messages: [{ id: 'not-a-uuid', type: 'TEXT', text: 'x' }] },
    });
    expectErrorBody(post, 400, 'VALIDATION_ERROR');
    expect(Object.values(post.body.validationError)).toContain('must be a UUID');
    expect(JSON.stringify(post.body)).not.toContain('must match pattern');
  });
});

describe('campaign content', () => {
  it('refuses a campaign message carrying a userId (the recipients name the users) with 400, storing nothing', async () => {
    const before = await snapshot(server);
    const res = await call(server, 'POST', ROUTES.createCampaign, {
      body: {
        name: 'Con usuario',
        elementName: 'el',
        botId,
        recipients: ['u1'],
        message: { type: 'text', text: 'Hola', userId: 'u9' },
      },
    });
    expectErrorBody(res, 400, 'VALIDATION_ERROR');
    expect(res.body.validationError).toHaveProperty(['/message/userId']);
    expect(await snapshot(server)).toEqual(before);
  });
});

describe('URLs the router refuses', () => {
  it('answers a malformed %-escape with 400 and the error body', async () => {
    const res = await call(server, 'POST', '/v1/bots/%ZZ/messages', {
      body: { type: 'text', userId: 'u', text: 'x' },
    });
    expectErrorBody(res, 400, 'VALIDATION_ERROR');
    // A path field is keyed `params:`, as the schema's are (README: Errors).
    expect(Object.keys(res.body.validationError)).toEqual(['params:/']);
  });

  it('answers an overlong path id with 400 and the error body (schema or router)', async () => {
    for (const n of [201, 5000]) {
      const res = await call(server, 'POST', `/v1/bots/${'a'.repeat(n)}/messages`, {
        body: { type: 'text', userId: 'u', text: 'x' },
      });
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(
        Object.keys(res.body.validationError).every((k) => k.startsWith('params:/')),
        `${n}`,
      ).toBe(true);
    }
  });

  it('accepts a 200-character path id (the Id limit) as far as the route', async () => {
    const res = await call(server, 'POST', `/v1/bots/${'a'.repeat(200)}/messages`, {
      body: { type: 'text', userId: 'u', text: 'x' },
    });
    expectErrorBody(res, 404, 'NOT_FOUND');
  });
});

describe('room post ids', () => {
  it('refuses an id already used in another room with 400, storing nothing of the request', async () => {
    const roomA = (await server.app.charla.messaging.ensureBotRoom({ botId, userId: uid('a') })).roomId;
    const roomB = (await server.app.charla.messaging.ensureBotRoom({ botId, userId: uid('b') })).roomId;
    const used = randomUUID();
    const first = await call(server, 'POST', `/v1/rooms/${roomA}/message`, {
      body: { senderId: 'crm', messages: [{ id: used, type: 'TEXT', text: 'uno' }] },
    });
    expect(first.status).toBe(200);
    const before = await snapshot(server);
    const fresh = randomUUID();
    const res = await call(server, 'POST', `/v1/rooms/${roomB}/message`, {
      body: {
        senderId: 'crm',
        messages: [
          { id: fresh, type: 'TEXT', text: 'nuevo' },
          { id: used, type: 'TEXT', text: 'dos' },
        ],
      },
    });
    expectErrorBody(res, 400, 'VALIDATION_ERROR');
    expect(Object.keys(res.body.validationError)).toEqual(['/messages/1/id']);
    expect(await snapshot(server)).toEqual(before);
    // The same id again in its own room is still an idempotent success.
    const again = await call(server, 'POST', `/v1/rooms/${roomA}/message`, {
      body: { senderId: 'crm', messages: [{ id: used, type: 'TEXT', text: 'uno' }] },
    });
    expect(again.status).toBe(200);
    expect(again.body.data.duplicates).toEqual([used]);
  });
});

describe('widget sessions and rooms', () => {
  it('answers a wrong API key of any length with 401, and an empty one with 400', async () => {
    for (const apiKey of ['wrong-key', 'x', 'k'.repeat(300)]) {
      const res = await call(server, 'POST', ROUTES.widgetSession, { body: { apiKey }, headers: {} });
      expectErrorBody(res, 401, 'UNAUTHORIZED');
    }
    expectErrorBody(
      await call(server, 'POST', ROUTES.widgetSession, { body: { apiKey: '' } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('resolves leaving a room for a user who was not in it, saying so', async () => {
    const created = await call(server, 'POST', ROUTES.createWidget, {
      body: { bot: { id: botId }, widget: { properties: { type: 'group' } } },
    });
    const apiKey = created.body.data.ApiKey.key as string;
    const session = await call(server, 'POST', ROUTES.widgetSession, { body: { apiKey, userId: 'ana' } });
    expect(session.status).toBe(200);
    const { token, botRoomId } = session.body as { token: string; botRoomId: string };
    const auth = { authorization: `Bearer ${token}` };
    const res = await call(server, 'POST', `/v1/widget/rooms/${botRoomId}/leave`, {
      body: { userId: 'nobody' },
      headers: auth,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, statusMessage: 'success' });
    expect(res.body.message.join(' ')).toContain('nobody was not a member');
  });
});

describe('requests the HTTP layer refuses', () => {
  it('refuses a body nested deeper than 64 levels with 400, storing nothing', async () => {
    const deep = (n: number, open = '{"a":', close = '}') => open.repeat(n) + '1' + close.repeat(n);
    const widget = (nested: string) =>
      `{"bot":{},"widget":{"properties":{"type":"normal"},"deep":${nested}}}`;
    const campaign = (nested: string) =>
      JSON.stringify({ name: 'Deep', elementName: 'deep', botId, recipients: ['u1'] }).slice(0, -1) +
      `,"message":{"type":"text","text":"x","extra":${nested}}}`;
    const json = { 'content-type': 'application/json' };
    const before = await snapshot(server);
    for (const [path, raw] of [
      [ROUTES.createWidget, widget(deep(6000))],
      [ROUTES.createWidget, widget(deep(20_000, '[', ']'))],
      [ROUTES.createCampaign, campaign(deep(6000, '[', ']'))],
      // 65 levels in all: the body and its widget (2) and 63.
      [ROUTES.createWidget, widget(deep(63))],
    ] as const) {
      const res = await call(server, 'POST', path, { raw, headers: json });
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(res.body.validationError).toEqual({ '/': 'nests objects or arrays more than 64 levels deep' });
    }
    expect(await snapshot(server)).toEqual(before);
    // 64 levels are fine.
    const ok = await call(server, 'POST', ROUTES.createWidget, { raw: widget(deep(62)), headers: json });
    expect(ok.status).toBe(200);
  });

  it('answers a method a path does not take with 405, the Allow header and the error body; an unknown path stays 404', async () => {
    const before = await snapshot(server);
    const patch = await call(server, 'PATCH', ROUTES.listCampaigns, { body: { name: 'x' } });
    expectErrorBody(patch, 405, 'METHOD_NOT_ALLOWED');
    expect(patch.body.error.code).toBe('E0405');
    expect(patch.headers.get('allow')).toBe('GET, HEAD, POST');
    const put = await call(server, 'POST', `/v1/campaigns/${randomUUID()}`, { body: {} });
    expectErrorBody(put, 405, 'METHOD_NOT_ALLOWED');
    expect(put.headers.get('allow')).toBe('DELETE, PUT');
    const get = await call(server, 'GET', '/v1/widget/create');
    expect(get.headers.get('allow')).toBe('POST');
    // OPTIONS on widget creation (server to server, no CORS), with or without a preflight's
    // Origin, and on a widget path without one: 405 and Allow like any other path; an unknown
    // widget path without Origin: the JSON 404.
    for (const headers of [{}, { origin: 'https://evil.example', 'access-control-request-method': 'POST' }]) {
      const options = await call(server, 'OPTIONS', '/v1/widget/create', { headers });
      expectErrorBody(options, 405, 'METHOD_NOT_ALLOWED');
      expect(options.headers.get('allow')).toBe('POST');
      expect(options.headers.get('access-control-allow-origin')).toBeNull();
    }
    const noPreflight = await call(server, 'OPTIONS', ROUTES.widgetSession);
    expectErrorBody(noPreflight, 405, 'METHOD_NOT_ALLOWED');
    expect(noPreflight.headers.get('allow')).toBe('POST');
    // Signed media (a wildcard route) answers only GET and HEAD.
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const media = await call(server, method, '/v1/media/widget/x.png', { body: {} });
      expectErrorBody(media, 405, 'METHOD_NOT_ALLOWED');
      expect(media.headers.get('allow')).toBe('GET, HEAD');
    }
    expectErrorBody(await call(server, 'OPTIONS', '/v1/widget/nothing-here'), 404, 'NOT_FOUND');
    expectErrorBody(await call(server, 'PATCH', '/v1/nothing-here'), 404, 'NOT_FOUND');
    expect(await snapshot(server)).toEqual(before);
  });

  it('refuses a query string that is not percent-encoded UTF-8, naming the parameter', async () => {
    const base = 'startAt=2025-01-01&endAt=2025-01-02';
    for (const [query, field] of [
      [`botId=%FF&${base}`, 'querystring:/botId'],
      [`botId=x&${base}&elementName=%E0%A4%A`, 'querystring:/elementName'],
      [`botId=%ED%A0%80&${base}`, 'querystring:/botId'],
      [`botId=x&${base}&elementName=100%`, 'querystring:/elementName'],
      [`%FF=1&botId=x&${base}`, 'querystring:/'],
    ] as const) {
      const res = await call(server, 'GET', `/v1/campaigns?${query}`);
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(Object.keys(res.body.validationError), query).toEqual([field]);
    }
    // On the widget API the refusal is readable by the page that asked, as its other answers are.
    const widget = await call(server, 'GET', '/v1/widget/rooms?x=%FF', {
      headers: { origin: 'https://shop.example', authorization: undefined },
    });
    expectErrorBody(widget, 400, 'VALIDATION_ERROR');
    expect(widget.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    // Well-formed escapes, '+' for a space and U+FFFD itself stay what they say.
    const fine = await call(server, 'GET', `/v1/campaigns?botId=x&${base}&elementName=caf%C3%A9+%EF%BF%BD`);
    expect(fine.status).toBe(200);
  });

  it('refuses Basic credentials that are not well-formed base64', async () => {
    const good = Buffer.from('demo-client:demo-secret').toString('base64');
    expect(
      (
        await call(server, 'GET', `/v1/campaigns?botId=${botId}&startAt=2025-01-01&endAt=2025-01-02`, {
          headers: { authorization: `Basic ${good}` },
        })
      ).status,
    ).toBe(200);
    for (const value of [
      `${good}!!!!`,
      `${good}ZZZZ`,
      `${good.slice(0, 8)}.${good.slice(8)}`,
      good.replace(/=+$/, ''),
    ]) {
      const res = await call(
        server,
        'GET',
        `/v1/campaigns?botId=${botId}&startAt=2025-01-01&endAt=2025-01-02`,
        {
          headers: { authorization: `Basic ${value}` },
        },
      );
      expectErrorBody(res, 401, 'UNAUTHORIZED');
    }
  });

  it("answers what Node's HTTP parser refuses with the interface's error body", async () => {
    const raw = (request: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const url = new URL(server.base);
        const socket = connect(Number(url.port), url.hostname, () => socket.write(request));
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString('utf8')));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
          const text = data.slice(data.indexOf('\r\n\r\n') + 4);
          try {
            resolve({ status, body: JSON.parse(text) });
          } catch {
            reject(new Error(`not JSON: ${data.slice(0, 200)}`));
          }
        });
      });
    const long = await raw(`GET /v1/campaigns?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectErrorBody(long, 431, 'HEADERS_TOO_LARGE');
    expect(long.body.error.code).toBe('E0434');
    const noColon = await raw('GET /v1/campaigns HTTP/1.1\r\nHost: x\r\nbroken header line\r\n\r\n');
    expectErrorBody(noColon, 400, 'VALIDATION_ERROR');
    const twoLengths = await raw(
      'POST /v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    );
    expectErrorBody(twoLengths, 400, 'VALIDATION_ERROR');
    // HTTP/1.1 without Host, or with two: a 400 naming the header (RFC 9112 §3.2). HTTP/1.0 may
    // leave Host out.
    const path = `/v1/campaigns?botId=x&startAt=2025-01-01&endAt=2025-01-02`;
    const auth = `Authorization: ${BASIC}\r\nConnection: close\r\n`;
    for (const headers of ['', 'Host: a\r\nHost: b\r\n']) {
      const res = await raw(`GET ${path} HTTP/1.1\r\n${headers}${auth}\r\n`);
      expectErrorBody(res, 400, 'VALIDATION_ERROR');
      expect(Object.keys(res.body.validationError)).toEqual(['headers:/host']);
    }
    expect((await raw(`GET ${path} HTTP/1.0\r\n${auth}\r\n`)).status).toBe(200);
    // Two Content-Type or Authorization headers: a 400 naming each (Node would keep the first).
    const body = '{"name":"x"}';
    const twoTypes = await raw(
      `POST /v1/campaigns HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\n` +
        `Content-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expectErrorBody(twoTypes, 400, 'VALIDATION_ERROR');
    expect(twoTypes.body.validationError).toEqual({ 'headers:/content-type': 'must be given once' });
    const twoAuths = await raw(`GET ${path} HTTP/1.1\r\nHost: x\r\n${auth}Authorization: Basic eDp5\r\n\r\n`);
    expectErrorBody(twoAuths, 400, 'VALIDATION_ERROR');
    expect(twoAuths.body.validationError).toEqual({ 'headers:/authorization': 'must be given once' });
    expect(twoAuths.body.message).toBe('The Authorization header must be given once.');
    // An Expect header other than 100-continue, with or without credentials: 417 with the error body.
    for (const credentials of [auth, 'Connection: close\r\n']) {
      const expectation = await raw(
        `POST /v1/bots/demo-bot/messages HTTP/1.1\r\nHost: x\r\n${credentials}Expect: 200-ok\r\n` +
          'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      );
      expectErrorBody(expectation, 417, 'EXPECTATION_FAILED');
      expect(expectation.body.error.code).toBe('E0417');
      expect(expectation.body.message).toContain('200-ok');
    }
  });

  it('answers a body that stops arriving with 408 REQUEST_TIMEOUT once the request timeout is over; a slow answer is not a late request', async () => {
    const timed = await startServer({ requestTimeoutMs: 300 });
    // A file host that never answers: the video check waits its own 4 s for it.
    const silent = createHttpServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const bot = await createBot(timed);
      const before = await snapshot(timed);
      const url = new URL(timed.base);
      const started = Date.now();
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(Number(url.port), url.hostname, () =>
          // Content-Length 100, and only 7 bytes of it.
          socket.write(
            `POST /v1/bots/${bot}/messages HTTP/1.1\r\nHost: x\r\nAuthorization: ${BASIC}\r\n` +
              'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":1}',
          ),
        );
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString('utf8')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(data));
      });
      const took = Date.now() - started;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      expectErrorBody(
        { status, body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) },
        408,
        'REQUEST_TIMEOUT',
      );
      expect(answer).toContain('"code":"E0408"');
      // Not before the limit (a hang would meet the test's own timeout).
      expect(took).toBeGreaterThanOrEqual(250);
      expect(await snapshot(timed)).toEqual(before);
      // The whole request arrived in time; the answer took longer than the limit (the 4 s video check).
      const port = (silent.address() as AddressInfo).port;
      const slow = await call(timed, 'POST', `/v1/bots/${bot}/messages`, {
        body: { type: 'video', userId: 'timeout-user', mediaUrl: `http://127.0.0.1:${port}/a.mp4` },
      });
      expectErrorBody(slow, 422, 'INVALID_MEDIA_URL');
    } finally {
      silent.closeAllConnections();
      silent.close();
      await timed.close();
    }
  }, 30_000);

  it('believes X-Forwarded-* only from the proxies CHARLA_TRUST_PROXY names (loopback by default)', async () => {
    const refresh = (s: Server) =>
      call(s, 'POST', '/v1/external/assets/refresh', {
        body: { resourceUrl: 'https://evil.example/v1/media/demo/charla.png', ttl: 900 },
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
      });
    const untrusting = await startServer({ publicBaseUrl: undefined, trustProxy: false });
    try {
      const res = await refresh(untrusting);
      expect(res.status).not.toBe(200);
      expect(res.body.statusMessage).toBe('failed');
    } finally {
      await untrusting.close();
    }
    // A proxy on this machine (the test's loopback peer) is believed by default.
    const behindLocalProxy = await startServer({ publicBaseUrl: undefined });
    try {
      const res = await refresh(behindLocalProxy);
      expect(res.status).toBe(200);
      expect(res.body.signedUrl).toMatch(/^https:\/\/evil\.example\/v1\/media\/demo\/charla\.png\?/);
    } finally {
      await behindLocalProxy.close();
    }
    expect(parseTrustProxy(undefined)).toBe('loopback');
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('10.0.0.0/8, uniquelocal')).toBe('10.0.0.0/8, uniquelocal');
  });
});

describe('configuration from the environment', () => {
  const creds = {
    CHARLA_CLIENT_ID: 'c',
    CHARLA_CLIENT_SECRET: 'client-secret-0123456789',
    CHARLA_COMPANY_TOKEN: 'company-token-0123456789',
  };
  const NEW_KEY = 'a'.repeat(32);
  const OLD_KEY = 'b'.repeat(40);

  it('starts in production with CHARLA_SIGNING_KEYS alone, and refuses neither key nor secret', () => {
    const config = configFromEnv({
      NODE_ENV: 'production',
      ...creds,
      CHARLA_SIGNING_KEYS: `k2:${NEW_KEY},k1:${OLD_KEY}`,
    });
    expect(Object.entries(config.signingKeys)).toEqual([
      ['k2', NEW_KEY],
      ['k1', OLD_KEY],
    ]);
    expect(() => configFromEnv({ NODE_ENV: 'production', ...creds })).toThrow(/CHARLA_SIGNING_SECRET/);
    expect(() => configFromEnv({ NODE_ENV: 'production', ...creds, CHARLA_SIGNING_KEYS: 'k2:' })).toThrow(
      /CHARLA_SIGNING_KEYS/,
    );
  });

  it('CHARLA_PUBLIC_URL: an http(s) address or the start stops; production without it is warned about', () => {
    expect(configFromEnv({ CHARLA_PUBLIC_URL: 'https://chat.example.com' }).publicBaseUrl).toBe(
      'https://chat.example.com',
    );
    for (const bad of ['chat.example.com', 'ftp://chat.example.com', 'https://'])
      expect(() => configFromEnv({ CHARLA_PUBLIC_URL: bad }), bad).toThrow(/CHARLA_PUBLIC_URL must be/);
    const creds = {
      CHARLA_CLIENT_ID: 'id',
      CHARLA_CLIENT_SECRET: 'client-secret-0123456789',
      CHARLA_COMPANY_TOKEN: 'company-token-0123456789',
      CHARLA_SIGNING_SECRET: 's'.repeat(32),
    };
    const unset = configWarnings(configFromEnv({ NODE_ENV: 'production', ...creds }));
    expect(unset).toHaveLength(1);
    expect(unset[0]).toMatch(/CHARLA_PUBLIC_URL is not set/);
    expect(
      configWarnings(
        configFromEnv({ NODE_ENV: 'production', ...creds, CHARLA_PUBLIC_URL: 'https://chat.example.com' }),
      ),
    ).toEqual([]);
    // Outside production, only the settings that really fell back are named.
    const demo = configWarnings(configFromEnv({}));
    expect(demo).toHaveLength(1);
    expect(demo[0]).toMatch(/DEMO VALUES IN USE: CHARLA_CLIENT_ID \(demo-client\), CHARLA_CLIENT_SECRET/);
    const onlySigning = configWarnings(
      configFromEnv({
        CHARLA_CLIENT_ID: 'id',
        CHARLA_CLIENT_SECRET: 'secret',
        CHARLA_COMPANY_TOKEN: 'token',
      }),
    );
    expect(onlySigning).toHaveLength(1);
    expect(onlySigning[0]).toMatch(/DEMO VALUES IN USE: CHARLA_SIGNING_SECRET \(a demo signing key\)\. /);
    expect(onlySigning[0]).not.toMatch(/demo-client|demo-secret|demo-company-token/);
    // Its advice names only what is missing (it named all four, whatever was set).
    expect(onlySigning[0]).toMatch(/Set CHARLA_SIGNING_SECRET for real use\./);
    expect(demo[0]).toMatch(
      /Set CHARLA_CLIENT_ID, CHARLA_CLIENT_SECRET, CHARLA_COMPANY_TOKEN and CHARLA_SIGNING_SECRET for real use\./,
    );
    const twoMissing = configWarnings(
      configFromEnv({ CHARLA_CLIENT_ID: 'id', CHARLA_CLIENT_SECRET: 'secret' }),
    );
    expect(twoMissing[0]).toMatch(/Set CHARLA_COMPANY_TOKEN and CHARLA_SIGNING_SECRET for real use\./);
    expect(configWarnings(configFromEnv(creds))).toEqual([]);
  });

  it('production refuses the published demo values and short secrets, set or not, naming them without their values', () => {
    const strong = { ...creds, CHARLA_SIGNING_SECRET: 'k'.repeat(32) };
    expect(configFromEnv({ NODE_ENV: 'production', ...strong }).production).toBe(true);
    for (const [weak, named] of [
      [{ CHARLA_CLIENT_SECRET: 'demo-secret' }, 'CHARLA_CLIENT_SECRET'],
      [{ CHARLA_CLIENT_SECRET: 'x'.repeat(15) }, 'CHARLA_CLIENT_SECRET'],
      [{ CHARLA_COMPANY_TOKEN: 'demo-company-token' }, 'CHARLA_COMPANY_TOKEN'],
      [{ CHARLA_SIGNING_SECRET: 'demo-signing-secret-change-me' }, 'signing key "k1"'],
      [{ CHARLA_SIGNING_SECRET: 'change-me' }, 'signing key "k1"'],
      [
        { CHARLA_SIGNING_SECRET: undefined, CHARLA_SIGNING_KEYS: `k2:${'n'.repeat(32)},k1:short` },
        'signing key "k1"',
      ],
    ] as const) {
      const env = { NODE_ENV: 'production', ...strong, ...weak };
      let said = '';
      try {
        configFromEnv(env);
      } catch (err) {
        said = (err as Error).message;
      }
      expect(said, JSON.stringify(weak)).toMatch(/^In production .* too weak: /);
      expect(said, JSON.stringify(weak)).toContain(named);
      for (const value of Object.values(weak)) if (value) expect(said).not.toContain(value);
    }
    // Outside production the same values start (with the demo warning when unset).
    expect(configFromEnv({ ...strong, CHARLA_SIGNING_SECRET: 'change-me' }).production).toBe(false);
  });

  it('says which LOG_LEVEL values there are instead of failing inside the logger', () => {
    expect(() => configFromEnv({ LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL must be one of .*info/);
    expect(configFromEnv({ LOG_LEVEL: 'warn' }).logger).toEqual({ level: 'warn' });
  });

  it('CHARLA_REQUEST_TIMEOUT_MS: 5 minutes unless set; a positive whole number of milliseconds', () => {
    expect(configFromEnv({}).requestTimeoutMs).toBe(300_000);
    expect(configFromEnv({ CHARLA_REQUEST_TIMEOUT_MS: '30000' }).requestTimeoutMs).toBe(30_000);
    for (const bad of ['0', '-5', '1.5', 'soon'])
      expect(() => configFromEnv({ CHARLA_REQUEST_TIMEOUT_MS: bad }), bad).toThrow(
        /CHARLA_REQUEST_TIMEOUT_MS/,
      );
  });

  it('CHARLA_ALLOW_LOOPBACK_MEDIA: 0 turns it off, 1 on, unset follows production', () => {
    expect(configFromEnv({}).allowLoopbackMedia).toBe(true);
    expect(configFromEnv({ CHARLA_ALLOW_LOOPBACK_MEDIA: '0' }).allowLoopbackMedia).toBe(false);
    const prod = { NODE_ENV: 'production', ...creds, CHARLA_SIGNING_SECRET: 'x'.repeat(32) };
    expect(configFromEnv(prod).allowLoopbackMedia).toBe(false);
    expect(configFromEnv({ ...prod, CHARLA_ALLOW_LOOPBACK_MEDIA: '1' }).allowLoopbackMedia).toBe(true);
  });

  it('on/off switches take 1/0, true/false, on/off, yes/no; anything else stops the start naming the variable', () => {
    const switches = [
      ['CHARLA_SCHEDULER', 'scheduler'],
      ['CHARLA_SEED_DEMO', 'seedDemo'],
      ['CHARLA_SERVE_STATIC', 'serveStatic'],
      ['CHARLA_ALLOW_LOOPBACK_MEDIA', 'allowLoopbackMedia'],
    ] as const;
    for (const [name, field] of switches) {
      for (const off of ['0', 'false', 'OFF', ' no '])
        expect(configFromEnv({ [name]: off })[field], off).toBe(false);
      for (const on of ['1', 'true', 'On', 'yes'])
        expect(configFromEnv({ [name]: on })[field], on).toBe(true);
      expect(configFromEnv({ [name]: '' })[field]).toBe(true);
      for (const bad of ['2', 'nope', 'disabled'])
        expect(() => configFromEnv({ [name]: bad }), bad).toThrow(
          `${name} must be 1, true, on or yes (on), or 0, false, off or no (off) (it is "${bad}").`,
        );
    }
  });

  it('PORT: 0 to 65535, else the start stops naming it; an empty CHARLA_DATA_DIR or HOST is the default', () => {
    expect(configFromEnv({}).port).toBe(8080);
    expect(configFromEnv({ PORT: '0' }).port).toBe(0);
    expect(configFromEnv({ PORT: '65535' }).port).toBe(65535);
    for (const bad of ['abc', '-1', '65536', '80.5', '1e3'])
      expect(() => configFromEnv({ PORT: bad }), bad).toThrow(/^PORT must be a port number from 0 to 65535/);
    expect(configFromEnv({ CHARLA_DATA_DIR: '' }).dataDir).toBe('./.charla-data');
    expect(configFromEnv({ HOST: '' }).host).toBe('127.0.0.1');
  });

  it('CHARLA_TRUST_PROXY: addresses, CIDR ranges and the three names pass; anything else stops the start naming the entry', () => {
    for (const good of ['loopback', '10.0.0.0/8', '10.0.0.0/255.0.0.0', '192.168.1.7', 'fd00::/8, linklocal'])
      expect(parseTrustProxy(good), good).toBe(good);
    expect(parseTrustProxy('true')).toBe(true);
    for (const [bad, entry] of [
      ['bogus!', 'bogus!'],
      ['10.0.0.0/33', '10.0.0.0/33'],
      ['loopback, 10.0.0.300', '10.0.0.300'],
      ['::1/129', '::1/129'],
      ['1', '1'],
    ] as const)
      expect(() => configFromEnv({ CHARLA_TRUST_PROXY: bad }), bad).toThrow(`("${entry}" is none of them)`);
  });
});
