/**
 * A room post naming one message id twice: the same message twice is one
 * message and its duplicate (the idempotency key at work); two different
 * messages under one id is the client's mistake, refused with 400, never one
 * of them silently dropped.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../types/index.ts';
import { BASIC, startServer, type Server } from './helpers/http.ts';

let s: Server;
let roomId: string;

beforeAll(async () => {
  s = await startServer();
  const { db, config } = s.app.charla;
  await db.query('INSERT INTO bots (id, company_id, name) VALUES ($1, $2, $3)', [
    'twin-bot',
    config.companyId,
    'Bot',
  ]);
  ({ roomId } = await s.app.charla.messaging.ensureBotRoom({ botId: 'twin-bot', userId: 'twin-user' }));
});
afterAll(async () => {
  await s?.close();
});

async function post(messages: unknown[]) {
  const res = await fetch(`${s.base}/v1/rooms/${roomId}/message`, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({ senderId: 'system', messages }),
  });
  return { status: res.status, body: (await res.json()) as ErrorBody & { data: unknown } };
}

const texts = async () =>
  (
    await s.app.charla.db.query<{ text: string }>(
      "SELECT body->>'text' AS text FROM messages WHERE room_id = $1 ORDER BY seq",
      [roomId],
    )
  ).rows.map((r) => r.text);

describe('POST /v1/rooms/{roomId}/message with one id twice', () => {
  it('refuses two different messages under one id with 400 naming the second, and stores neither', async () => {
    const id = randomUUID();
    const other = randomUUID();
    const r = await post([
      { id: other, type: 'TEXT', text: 'kept only if all is' },
      { id, type: 'TEXT', text: 'primero' },
      { id: id.toUpperCase(), type: 'TEXT', text: 'segundo' },
    ]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { key: 'VALIDATION_ERROR' } });
    expect(Object.keys(r.body.validationError ?? {})).toEqual(['/messages/2/id']);
    expect(await texts()).toEqual([]);
  });

  it('still takes the same message twice as one message and its duplicate', async () => {
    const id = randomUUID();
    const r = await post([
      { id, type: 'TEXT', text: 'igual' },
      { id: id.toUpperCase(), type: 'TEXT', text: 'igual' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ messageIds: [id], duplicates: [id] });
    expect(await texts()).toEqual(['igual']);
  });
});

describe('POST /v1/rooms/{roomId}/message with one id twice, differing only in what is not stored', () => {
  it('takes the copies as one message and its duplicate, as two requests would', async () => {
    const url = 'https://cdn.example.com/a.png';
    const pairs: [Record<string, unknown>, Record<string, unknown>][] = [
      // An unknown field, and a TEXT's mediaUrl and caption, are ignored.
      [
        { type: 'TEXT', text: 'x', foo: 1 },
        { type: 'TEXT', text: 'x', foo: 2 },
      ],
      [
        { type: 'TEXT', text: 'y', mediaUrl: url },
        { type: 'TEXT', text: 'y', caption: 'c' },
      ],
      // A media message's text is its caption when it gives none.
      [
        { type: 'IMAGE', mediaUrl: url, caption: 'pie' },
        { type: 'IMAGE', mediaUrl: url, text: 'pie' },
      ],
    ];
    for (const [a, b] of pairs) {
      const id = randomUUID();
      const r = await post([
        { id, ...a },
        { id, ...b },
      ]);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toMatchObject({ messageIds: [id], duplicates: [id] });
    }
  });

  it('still refuses copies that would store other content (another caption, type or address)', async () => {
    const url = 'https://cdn.example.com/a.png';
    const pairs: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        { type: 'IMAGE', mediaUrl: url, caption: 'a' },
        { type: 'IMAGE', mediaUrl: url, caption: 'b' },
      ],
      [
        { type: 'IMAGE', mediaUrl: url },
        { type: 'DOCUMENT', mediaUrl: url },
      ],
      [
        { type: 'IMAGE', mediaUrl: url },
        { type: 'IMAGE', mediaUrl: `${url}?v=2` },
      ],
    ];
    for (const [a, b] of pairs) {
      const id = randomUUID();
      const r = await post([
        { id, ...a },
        { id, ...b },
      ]);
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.validationError ?? {})).toEqual(['/messages/1/id']);
    }
  });
});

describe('POST /v1/rooms/{roomId}/message with an id a former request used', () => {
  it('refuses another message under an id already stored in the room, and stores nothing of the request', async () => {
    const id = randomUUID();
    const first = await post([{ id, type: 'TEXT', text: 'original' }]);
    expect(first.status).toBe(200);
    const before = await texts();
    const fresh = randomUUID();
    const r = await post([
      { id: fresh, type: 'TEXT', text: 'new, kept only if all is' },
      { id: id.toUpperCase(), type: 'TEXT', text: 'changed' },
    ]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { key: 'VALIDATION_ERROR' } });
    expect(Object.keys(r.body.validationError ?? {})).toEqual(['/messages/1/id']);
    expect(await texts()).toEqual(before);
  });

  it('takes the same message again as its duplicate (a retry)', async () => {
    const id = randomUUID();
    expect((await post([{ id, type: 'TEXT', text: 'retried' }])).status).toBe(200);
    const again = await post([{ id, type: 'TEXT', text: 'retried' }]);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ messageIds: [], duplicates: [id] });
    expect((await texts()).filter((t) => t === 'retried')).toHaveLength(1);
  });
});
