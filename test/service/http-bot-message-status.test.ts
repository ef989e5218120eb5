/**
 * GET /v1/bots/{botId}/messages/{messageId} against a real service and real
 * storage: a message sent through POST is DELIVERED while nobody is
 * connected, DELIVERED_CHANNEL when the user's widget is connected as it is
 * sent, and DELIVERED_USER once that widget showed it (`messages:seen`, the
 * socket event a real widget sends). Only the bot's own messages are found.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveOf } from '../../server/live/index.ts';
import { deliverPrepared } from '../../server/bot-message.ts';
import { emitAck, sendText, startLive, type LiveHarness } from './helpers/live.ts';
import { call, uid } from './helpers/http.ts';

let h: LiveHarness;
let apiKey: string;
let botId: string;
let otherBotId: string;

beforeAll(async () => {
  h = await startLive();
  ({ apiKey, botId } = await h.createWidget());
  ({ botId: otherBotId } = await h.createWidget());
});
afterAll(async () => {
  await h?.close();
});

const statusPath = (bot: string, messageId: string) =>
  `/v1/bots/${encodeURIComponent(bot)}/messages/${encodeURIComponent(messageId)}`;

const getStatus = (bot: string, messageId: string, headers: Record<string, string | undefined> = {}) =>
  call(h.baseUrl, 'GET', statusPath(bot, messageId), { headers });

async function sendFromBot(bot: string, userId: string, text: string): Promise<string> {
  const res = await call(h.baseUrl, 'POST', `/v1/bots/${encodeURIComponent(bot)}/messages`, {
    body: { type: 'text', userId, text },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.messageId as string;
}

async function storedRow(messageId: string) {
  const { rows } = await h.app.charla.db.query<{
    status: string;
    room_id: string;
    body: { createdAt: string };
  }>('SELECT status, room_id, body FROM messages WHERE id = $1', [messageId]);
  return rows[0];
}

function expectNotFound(res: { status: number; body: any }) {
  expect(res.status).toBe(404);
  expect(res.body).toMatchObject({ status: 0, statusMessage: 'failed', error: { key: 'NOT_FOUND' } });
}

describe('GET /v1/bots/{botId}/messages/{messageId}', () => {
  it('answers DELIVERED for a message sent while the user has no widget connected', async () => {
    const userId = uid('user');
    const messageId = await sendFromBot(botId, userId, 'Tu pedido ha salido');
    const stored = await storedRow(messageId);
    expect(stored?.status).toBe('DELIVERED');

    const res = await getStatus(botId, messageId);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      messageId,
      botId,
      roomId: stored?.room_id,
      userId,
      status: 'DELIVERED',
      createdAt: stored?.body.createdAt,
    });
    expect(res.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('follows the status as the user’s widget connects and shows the messages', async () => {
    const userId = uid('user');
    const before = await sendFromBot(botId, userId, 'Antes de conectar');
    expect((await getStatus(botId, before)).body.status).toBe('DELIVERED');

    const session = await h.session(apiKey, userId);
    await liveOf(h.app).flows.idle();
    const socket = await h.connect(session.token);
    const during = await sendFromBot(botId, userId, 'Con el widget abierto');
    const whileOpen = await getStatus(botId, during);
    expect(whileOpen.body).toMatchObject({
      messageId: during,
      roomId: session.botRoomId,
      userId,
      status: 'DELIVERED_CHANNEL',
    });
    // Connecting alone shows nothing: the earlier message is still DELIVERED.
    expect((await getStatus(botId, before)).body.status).toBe('DELIVERED');

    const seen = await emitAck(socket, 'messages:seen', { roomId: session.botRoomId, ids: [before, during] });
    expect(seen).toEqual({ ok: true, data: { updated: 2 } });
    for (const id of [before, during]) {
      const res = await getStatus(botId, id);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('DELIVERED_USER');
      expect(res.body.status).toBe((await storedRow(id))?.status);
    }
  });

  it('takes the id in capitals (message ids are case-insensitive)', async () => {
    const userId = uid('user');
    const messageId = await sendFromBot(botId, userId, 'Mayúsculas');
    const res = await getStatus(botId, messageId.toUpperCase());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ messageId, botId, userId, status: 'DELIVERED' });
  });

  it('answers 404 for an unknown id, another bot’s message, and a message the user sent', async () => {
    const userId = uid('user');
    expectNotFound(await getStatus(botId, randomUUID()));
    expectNotFound(await getStatus(botId, 'no-such-message'));
    expectNotFound(await getStatus(uid('no-such-bot'), randomUUID()));

    const theirs = await sendFromBot(otherBotId, userId, 'De otro bot');
    expectNotFound(await getStatus(botId, theirs));
    expect((await getStatus(otherBotId, theirs)).status).toBe(200);

    const session = await h.session(apiKey, userId);
    await liveOf(h.app).flows.idle();
    const socket = await h.connect(session.token);
    const mine = randomUUID();
    const sent = await sendText(socket, session.botRoomId, 'Hola, soy la persona', mine);
    expect(sent.ok).toBe(true);
    expect((await storedRow(mine))?.room_id).toBe(session.botRoomId);
    expectNotFound(await getStatus(botId, mine));
    expectNotFound(await getStatus(botId, mine.toUpperCase()));
  });

  it('answers 404 for another company’s bot message in the same storage', async () => {
    const db = h.app.charla.db;
    const company = uid('company-other');
    const theirBot = uid('their-bot');
    await db.query('INSERT INTO companies (id, name) VALUES ($1, $2)', [company, 'Other']);
    await db.query('INSERT INTO bots (id, company_id, name) VALUES ($1, $2, $3)', [
      theirBot,
      company,
      'Theirs',
    ]);
    // Sent through the service's own delivery path, as their deployment would.
    const { messageId } = await deliverPrepared(h.app.charla, {
      botId: theirBot,
      userId: uid('user'),
      message: { type: 'TEXT', text: 'Hola de otra empresa' },
    });
    expect(await storedRow(messageId)).toBeDefined();
    expectNotFound(await getStatus(theirBot, messageId));
    // While a message of this company's bot, stored the same way, is found.
    const ours = await deliverPrepared(h.app.charla, {
      botId,
      userId: uid('user'),
      message: { type: 'TEXT', text: 'Hola de esta empresa' },
    });
    expect((await getStatus(botId, ours.messageId)).status).toBe(200);
  });

  it('answers 401 without credentials or with wrong ones', async () => {
    const messageId = await sendFromBot(botId, uid('user'), 'Privado');
    const none = await getStatus(botId, messageId, { authorization: undefined });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ status: 0, statusMessage: 'failed' });
    const wrong = await getStatus(botId, messageId, {
      authorization: `Basic ${Buffer.from('demo-client:wrong').toString('base64')}`,
    });
    expect(wrong.status).toBe(401);
  });

  it('answers 400 VALIDATION_ERROR for an id over 200 characters', async () => {
    const res = await getStatus(botId, 'a'.repeat(201));
    expect(res.status).toBe(400);
    expect(res.body.error.key).toBe('VALIDATION_ERROR');
    expect(Object.keys(res.body.validationError ?? {}).join(' ')).toContain('messageId');
    expect((await getStatus(botId, 'a'.repeat(200))).status).toBe(404);
  });
});
