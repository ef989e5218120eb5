/**
 * The API client (`charla/api`) against the real service: a real server on an
 * ephemeral port, real storage, the scheduler running. Every method once with
 * what the service stores, and the service's own error bodies coming back as
 * CharlaApiError with the HTTP status.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.ts';
import { CharlaApiError, createClient, userHash, type CharlaClient } from '../../src/api/index.ts';

const PUBLIC_BASE = 'https://charla.test';
const DATABASE_URL = process.env['DATABASE_URL'] || 'memory://';

let app: FastifyInstance;
let base: string;
let client: CharlaClient;
/** A bot with calling enabled, and one without. */
let botId: string;
let quietBotId: string;
/** A host of files for the video checks (HEAD answers by path). */
let files: HttpServer;
let filesBase: string;

async function rejection(fn: () => Promise<unknown>): Promise<CharlaApiError> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CharlaApiError);
    return error as CharlaApiError;
  }
  throw new Error('expected a rejection');
}

async function storedMessage(id: string): Promise<Record<string, unknown>> {
  const { rows } = await app.charla.db.query<{ body: Record<string, unknown> | string; room_id: string }>(
    'SELECT body, room_id FROM messages WHERE id = $1',
    [id],
  );
  const row = rows[0];
  if (!row) throw new Error(`message ${id} was not stored`);
  const body = typeof row.body === 'string' ? (JSON.parse(row.body) as Record<string, unknown>) : row.body;
  return { ...body, roomId: row.room_id };
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  files = createServer((req, res) => {
    const type = req.url?.endsWith('.mp4')
      ? 'video/mp4'
      : req.url?.endsWith('.html')
        ? 'text/html'
        : 'image/png';
    res.writeHead(req.url?.includes('missing') ? 404 : 200, { 'content-type': type, 'content-length': '4' });
    res.end(req.method === 'HEAD' ? undefined : 'abcd');
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;

  app = await buildApp({
    databaseUrl: DATABASE_URL,
    storeTemplate: inject('pgliteSchemaTemplate'),
    publicBaseUrl: PUBLIC_BASE,
    logger: false,
    schedulerIntervalMs: 200,
  });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
  client = createClient({
    baseUrl: base,
    clientId: 'demo-client',
    clientSecret: 'demo-secret',
    allowLoopbackHttp: true,
  });

  const created = await client.createWidget({
    bot: { name: 'Client test bot', callingEnabled: true },
    widget: { properties: { type: 'normal' }, theme: { position: 'bottom-right', status: true } },
  });
  botId = created.data.Bot.id;
  const quiet = await client.createWidget({
    bot: { name: 'No calls' },
    widget: { properties: { type: 'normal' } },
  });
  quietBotId = quiet.data.Bot.id;
});

afterAll(async () => {
  await app?.close();
  await new Promise((r) => files?.close(r));
});

describe('timeoutMs', () => {
  it.each([0, Infinity])(
    '%s waits for ever (Infinity was a timer of 1 ms: every call a TIMEOUT)',
    async (timeoutMs) => {
      const late = createClient({
        baseUrl: base,
        clientId: 'demo-client',
        clientSecret: 'demo-secret',
        timeoutMs,
        // The service, 50 ms away.
        fetch: (async (url: string, init: RequestInit) => {
          await new Promise((r) => setTimeout(r, 50));
          return fetch(url, init);
        }) as typeof fetch,
      });
      expect(await late.openapi()).toHaveProperty('openapi');
    },
  );
});

describe('createWidget()', () => {
  it('creates a widget with a new bot and answers its API key', async () => {
    const result = await client.createWidget({
      bot: {},
      widget: {
        properties: { type: 'group' },
        theme: {
          position: 'bl',
          status: true,
          font: { googlefont: true, name: 'Inter' },
          colors: { primary: '#123456' },
        },
        credentials: { whiteList: ['https://*.example.com'] },
      },
    });
    expect(result.status).toBe(1);
    expect(result.statusMessage).toMatch(/success/);
    expect(result.data.ApiKey.key.length).toBeGreaterThanOrEqual(16);
    expect(result.data.ApiKey.widgetId).toBe(result.data.Widget.id);
    expect(result.data.Widget.botId).toBe(result.data.Bot.id);
    expect(result.data.Widget.theme).toMatchObject({ position: 'bl', colors: { primary: '#123456' } });
    const { rows } = await app.charla.db.query<{ key_hash: string }>(
      'SELECT key_hash FROM api_keys WHERE widget_id = $1',
      [result.data.Widget.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).not.toContain(result.data.ApiKey.key);
  });

  it('issues an identity secret whose userHash opens a session of a verifying widget', async () => {
    const result = await client.createWidget({
      bot: { id: botId },
      widget: { properties: { type: 'normal' }, credentials: { identityVerification: true } },
    });
    const secret = result.data.ApiKey.identitySecret;
    expect(secret).toMatch(/^cis_/);
    const open = (body: Record<string, unknown>) =>
      fetch(base + '/v1/widget/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiKey: result.data.ApiKey.key, ...body }),
      });
    const hash = await userHash(secret, 'ana');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await open({ userId: 'ana', userHash: hash })).status).toBe(200);
    expect((await open({ userId: 'beto', userHash: hash })).status).toBe(401);
    await expect(userHash('', 'ana')).rejects.toThrow(TypeError);
    // The client refuses a non-boolean switch before sending.
    const bad = await rejection(() =>
      client.createWidget({
        bot: {},
        widget: { credentials: { identityVerification: 'yes' as unknown as boolean } },
      }),
    );
    expect(bad.validationError).toHaveProperty(['/widget/credentials/identityVerification']);
  });

  it('reuses an existing bot, with a company token', async () => {
    const withToken = createClient({ baseUrl: base, companyToken: 'demo-company-token' });
    const result = await withToken.createWidget({
      bot: { id: botId },
      widget: { properties: { type: 'normal' } },
    });
    expect(result.data.Bot.id).toBe(botId);
  });

  it('rejects wrong credentials with 401 and the error body', async () => {
    const wrong = createClient({ baseUrl: base, clientId: 'demo-client', clientSecret: 'nope' });
    const error = await rejection(() => wrong.createWidget({ bot: {}, widget: {} }));
    expect(error.httpStatus).toBe(401);
    expect(error.body.status).toBe(0);
    expect(error.body.statusMessage).toBe('failed');
    expect(error.key).toBe('UNAUTHORIZED');
  });

  it('answers 404 for a bot that does not exist', async () => {
    const error = await rejection(() => client.createWidget({ bot: { id: 'no-such-bot' }, widget: {} }));
    expect(error.httpStatus).toBe(404);
  });
});

describe('bot messages', () => {
  const userId = `user-${randomUUID()}`;

  it('sendText stores a TEXT message from the bot in the user’s room', async () => {
    const result = await client.sendText(botId, userId, 'Hola desde el cliente');
    expect(result.success).toBe(true);
    const stored = await storedMessage(result.messageId);
    expect(stored).toMatchObject({ type: 'TEXT', text: 'Hola desde el cliente', by: 'bot', senderId: botId });
  });

  it('sendOptions stores the options with their payloads and the default button text', async () => {
    const result = await client.sendOptions(botId, userId, '¿Qué quieres hacer?', [
      { title: 'Ver pedidos', description: 'Tus últimos pedidos', payload: 'orders' },
      { title: 'Hablar con alguien', payload: 'human' },
    ]);
    const stored = await storedMessage(result.messageId);
    expect(stored['type']).toBe('TEXT');
    expect(stored['options']).toHaveLength(2);
    expect((stored['options'] as Array<{ title: string }>)[0]!.title).toBe('Ver pedidos');
    expect(stored['interactive']).toMatchObject({ kind: 'options', buttonText: 'Opciones' });
  });

  it('sendContacts, sendVoiceCall, sendContactInfoRequest store their rich variants', async () => {
    const contacts = await client.sendContacts(botId, userId, [
      {
        name: { formatted_name: 'Soporte Charla' },
        phones: [{ phone: '+34600111222', type: 'WORK' }],
        emails: [{ email: 'soporte@charla.test' }],
      },
    ]);
    expect((await storedMessage(contacts.messageId))['interactive']).toMatchObject({ kind: 'contacts' });
    const call = await client.sendVoiceCall(botId, userId, {
      text: 'Llámanos',
      displayText: 'Llamar ahora',
      header: 'Soporte',
    });
    expect((await storedMessage(call.messageId))['interactive']).toMatchObject({
      kind: 'voice_call',
      displayText: 'Llamar ahora',
    });
    const info = await client.sendContactInfoRequest(botId, userId, '¿Nos dejas tus datos?');
    expect((await storedMessage(info.messageId))['interactive']).toMatchObject({
      kind: 'contact_info_request',
    });
  });

  it('sendVideo checks the file and stores a VIDEO with its caption', async () => {
    const result = await client.sendVideo(botId, userId, `${filesBase}/clip.mp4`, 'Mira esto');
    expect(await storedMessage(result.messageId)).toMatchObject({ type: 'VIDEO', caption: 'Mira esto' });
  });

  it('maps the video errors of the service (unsupported type, unreachable)', async () => {
    const png = await rejection(() => client.sendVideo(botId, userId, `${filesBase}/picture.png`));
    expect(png.key).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(png.httpStatus).toBe(422);
    const missing = await rejection(() => client.sendVideo(botId, userId, `${filesBase}/missing.mp4`));
    expect(missing.key).toBe('INVALID_MEDIA_URL');
  });

  it('rejects a call button for a bot without calling, with the service’s error', async () => {
    const error = await rejection(() =>
      client.sendVoiceCall(quietBotId, userId, { text: 'x', displayText: 'Llamar' }),
    );
    expect(error.httpStatus).toBe(403);
    expect(error.key).toBe('CALLING_NOT_ENABLED');
  });

  it('the service checks the limits too (a call that skips the client’s checks gets 400 naming the field)', async () => {
    const options = Array.from({ length: 11 }, (_, i) => ({ title: `Opción ${i}` }));
    const error = await rejection(() =>
      client.request('POST', `/v1/bots/${botId}/messages`, {
        type: 'text',
        userId,
        text: 'x',
        buttons: { options },
      }),
    );
    expect(error.httpStatus).toBe(400);
    expect(error.key).toBe('VALIDATION_ERROR');
    expect(Object.keys(error.validationError).join(' ')).toContain('/buttons/options');
  });
});

describe('getBotMessage()', () => {
  it('answers what GET /v1/bots/{botId}/messages/{messageId} answers, an id in capitals too', async () => {
    const userId = `user-${randomUUID()}`;
    const { messageId } = await client.sendText(botId, userId, '¿Lo has visto?');
    const status = await client.getBotMessage(botId, messageId);
    const raw = await client.request(
      'GET',
      `/v1/bots/${encodeURIComponent(botId)}/messages/${encodeURIComponent(messageId)}`,
    );
    expect(status).toEqual(raw);
    expect(status).toMatchObject({ messageId, botId, userId, status: 'DELIVERED' });
    expect(status.roomId).toBe((await storedMessage(messageId))['roomId']);
    expect(await client.getBotMessage(botId, messageId.toUpperCase())).toEqual(status);
  });

  it('maps 404 to CharlaApiError NOT_FOUND (an unknown id, another bot’s message)', async () => {
    const unknown = await rejection(() => client.getBotMessage(botId, randomUUID()));
    expect(unknown.httpStatus).toBe(404);
    expect(unknown.key).toBe('NOT_FOUND');
    const { messageId } = await client.sendText(quietBotId, `user-${randomUUID()}`, 'De otro bot');
    const other = await rejection(() => client.getBotMessage(botId, messageId));
    expect(other.httpStatus).toBe(404);
    expect(other.key).toBe('NOT_FOUND');
  });

  it('refuses a missing or over-long botId or messageId before sending', async () => {
    for (const [bot, id, field] of [
      ['', randomUUID(), 'botId'],
      [botId, '', 'messageId'],
      [botId, 'a'.repeat(201), 'messageId'],
      ['b'.repeat(201), randomUUID(), 'botId'],
    ] as const) {
      const error = await rejection(() => client.getBotMessage(bot, id));
      expect(error.httpStatus).toBe(0);
      expect(error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(error.validationError)).toEqual([field]);
    }
  });
});

describe('postRoomMessages()', () => {
  it('posts text and media into a room, idempotent on the ids', async () => {
    const userId = `user-${randomUUID()}`;
    const { roomId } = await app.charla.messaging.ensureBotRoom({ botId, userId });
    const text = { id: randomUUID(), type: 'TEXT' as const, text: 'Tu pedido ha salido' };
    const image = {
      id: randomUUID(),
      type: 'IMAGE' as const,
      mediaUrl: 'https://cdn.example.com/parcel.png',
      caption: 'El paquete',
    };
    const first = await client.postRoomMessages(roomId, {
      senderId: 'orders-system',
      messages: [text, image],
    });
    expect(first.status).toBe(1);
    expect(first.data.messageIds).toEqual([text.id, image.id]);
    expect(await storedMessage(image.id)).toMatchObject({ type: 'IMAGE', roomId });
    const again = await client.postRoomMessages(roomId, { senderId: 'orders-system', messages: [text] });
    expect(again.data.duplicates).toEqual([text.id]);
    const { rows } = await app.charla.db.query('SELECT id FROM messages WHERE id = $1', [text.id]);
    expect(rows).toHaveLength(1);
  });

  it('answers 404 for a room that does not exist', async () => {
    const error = await rejection(() =>
      client.postRoomMessages('no-such-room', {
        senderId: 's',
        messages: [{ id: randomUUID(), type: 'TEXT', text: 'x' }],
      }),
    );
    expect(error.httpStatus).toBe(404);
    expect(error.key).toBe('NOT_FOUND');
  });
});

describe('campaigns', () => {
  const today = new Date().toISOString().slice(0, 10);
  const range = { startAt: '2020-01-01', endAt: today };
  const inOneHour = () => new Date(Date.now() + 3600_000).toISOString();

  it('refuses before sending a campaign message that carries a userId', async () => {
    const e = await rejection(() =>
      client.createCampaign({
        name: 'x',
        elementName: 'x',
        botId,
        recipients: ['r1'],
        message: { type: 'text', text: 'Hola', userId: 'u1' } as never,
      }),
    );
    expect(e.httpStatus).toBe(0);
    expect(e.validationError).toHaveProperty(['/message/userId']);
  });

  it('create (scheduled), list, update and cancel', async () => {
    const created = await client.createCampaign({
      name: 'Scheduled one',
      elementName: 'client_test_scheduled',
      botId,
      recipients: ['r1', 'r2'],
      message: { type: 'text', text: 'Hola' },
      scheduledAt: inOneHour(),
    });
    expect(created.data.status).toBe('SCHEDULED');
    expect(created.data.totalMessages).toBe(2);
    const id = created.data.id;

    const listed = await client.listCampaigns({
      botId,
      ...range,
      status: 'SCHEDULED',
      elementName: 'client_test_scheduled',
    });
    expect(listed.data.results.map((c) => c.id)).toEqual([id]);
    expect(listed.data.pagination).toMatchObject({ page: 1, limit: 10, total: 1, offset: 0, totalPages: 1 });

    const later = new Date(Date.now() + 7200_000).toISOString();
    const updated = await client.updateCampaign(id, { name: 'Renamed', scheduledAt: later });
    expect(updated.data).toMatchObject({ id, name: 'Renamed', status: 'SCHEDULED' });
    expect(Date.parse(updated.data.scheduledAt!)).toBe(Date.parse(later));

    const cancelled = await client.cancelCampaign(id);
    expect(cancelled.data.status).toBe('CANCELLED');

    const again = await rejection(() => client.cancelCampaign(id));
    expect(again.httpStatus).toBe(409);
    expect(again.key).toBe('INVALID_STATE');
    const update = await rejection(() => client.updateCampaign(id, { name: 'Too late' }));
    expect(update.httpStatus).toBe(409);
    const { rows } = await app.charla.db.query(
      "SELECT 1 FROM campaign_recipients WHERE campaign_id = $1 AND status <> 'pending'",
      [id],
    );
    expect(rows).toHaveLength(0);
  });

  it('a campaign without scheduledAt is sent at once and ends COMPLETED with its counters', async () => {
    const created = await client.createCampaign({
      name: 'Now',
      elementName: 'client_test_now',
      botId,
      recipients: ['n1', 'n2', 'n3'],
      message: { type: 'text', text: 'Ya' },
    });
    expect(['PENDING', 'IN_PROGRESS', 'COMPLETED']).toContain(created.data.status);
    const done = await waitFor('the campaign to complete', async () => {
      const page = await client.listCampaigns({ botId, ...range, elementName: 'client_test_now' });
      const c = page.data.results[0];
      return c?.status === 'COMPLETED' ? c : undefined;
    });
    expect(done).toMatchObject({ totalMessages: 3, deliveredMessages: 3, failedMessages: 0 });
    expect(done.completedAt).not.toBeNull();
  });

  it('pages with limit and page, and rejects a limit over 50 (client and service)', async () => {
    const page = await client.listCampaigns({ botId, ...range, limit: 1, page: 2 });
    expect(page.data.pagination).toMatchObject({ limit: 1, page: 2, offset: 1 });
    expect(page.data.results).toHaveLength(1);
    expect((await rejection(() => client.listCampaigns({ botId, ...range, limit: 51 }))).httpStatus).toBe(0);
    const server = await rejection(() =>
      client.request('GET', `/v1/campaigns?botId=${botId}&startAt=2020-01-01&endAt=${today}&limit=51`),
    );
    expect(server.httpStatus).toBe(400);
  });

  it('a campaign that does not exist is 404', async () => {
    expect((await rejection(() => client.cancelCampaign('no-such-campaign'))).httpStatus).toBe(404);
  });
});

describe('refreshAsset()', () => {
  it('signs the service’s own media for the ttl asked, and the address serves the file', async () => {
    const key = `test/${randomUUID()}.txt`;
    await app.charla.db.query(
      'INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)',
      [key, app.charla.config.companyId, 'text/plain', 5, 'hello.txt', new TextEncoder().encode('hello')],
    );
    const before = Math.floor(Date.now() / 1000);
    const { signedUrl } = await client.refreshAsset({
      resourceUrl: `${PUBLIC_BASE}/v1/media/${key}`,
      ttl: 900,
    });
    const url = new URL(signedUrl);
    expect(url.origin).toBe(PUBLIC_BASE);
    const exp = Number(url.searchParams.get('exp'));
    expect(exp).toBeGreaterThanOrEqual(before + 900);
    expect(exp).toBeLessThanOrEqual(before + 902);
    const served = await fetch(`${base}${url.pathname}${url.search}`);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe('hello');
  });

  it('answers 422 E1126 SIGNED_URL_ERROR for an address that is not its media', async () => {
    const error = await rejection(() =>
      client.refreshAsset({ resourceUrl: 'https://elsewhere.example.com/a.png', ttl: 3600 }),
    );
    expect(error.httpStatus).toBe(422);
    expect(error.code).toBe('E1126');
    expect(error.key).toBe('SIGNED_URL_ERROR');
  });
});

describe('openapi()', () => {
  it('answers the OpenAPI document naming every operation', async () => {
    const doc = await client.openapi();
    expect(doc.openapi).toMatch(/^3\./);
    const paths = Object.keys(doc.paths ?? {});
    for (const p of [
      '/v1/campaigns',
      '/v1/campaigns/{campaignId}',
      '/v1/widget/create',
      '/v1/bots/{botId}/messages',
      '/v1/rooms/{roomId}/message',
      '/v1/external/assets/refresh',
    ]) {
      expect(paths).toContain(p);
    }
  });
});
