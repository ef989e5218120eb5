/**
 * The live gateway as a hostile client would use it: payloads PostgreSQL
 * cannot store, type names that are Object.prototype's, absurd sequence
 * numbers, nesting and keys the HTTP API refuses, media addresses a room post
 * may not use, impossible coordinates, a UUID resent in capitals. Each is
 * refused in its acknowledgement with the interface's 400 error body (never
 * E0000), and nothing is stored.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ack, ErrorBody, Message } from '../../types/index.ts';
import { emitAck, startLive, type ClientSocket, type LiveHarness } from './helpers/live.ts';

let h: LiveHarness;
let socket: ClientSocket;
let roomId: string;

beforeAll(async () => {
  h = await startLive();
  const { apiKey } = await h.createWidget();
  const s = await h.session(apiKey, 'hostile-socket-user');
  roomId = s.botRoomId;
  socket = await h.connect(s.token);
});
afterAll(async () => {
  await h?.close();
});

/** Emits `event` and expects a 400 VALIDATION_ERROR in the acknowledgement. */
async function refused(event: Parameters<typeof emitAck>[1], payload: unknown): Promise<ErrorBody> {
  const ack = (await emitAck(socket, event, payload as never)) as Ack<unknown>;
  expect(ack.ok, JSON.stringify(ack)).toBe(false);
  const error = (ack as { error: ErrorBody }).error;
  expect(error, JSON.stringify(error)).toMatchObject({ status: 0, error: { key: 'VALIDATION_ERROR' } });
  return error;
}

const text = (extra: Record<string, unknown>) => ({
  id: randomUUID(),
  roomId,
  type: 'TEXT',
  text: 'x',
  ...extra,
});

describe('live gateway: text that cannot be stored', () => {
  it('refuses a NUL or an unpaired surrogate in any field or key of any event, storing nothing', async () => {
    const before = await h.messageCount(roomId);
    await refused('message:send', text({ text: 'a\u0000b' }));
    await refused('message:send', text({ text: 'a\ud800b' }));
    await refused('message:send', text({ senderNames: 'N\u0000' }));
    await refused('message:send', text({ roomId: 'r\u0000' }));
    await refused('message:send', {
      id: randomUUID(),
      roomId,
      type: 'POSTBACK',
      text: 'x',
      payload: { 'k\u0000': 'v' },
    });
    await refused('message:send', {
      id: randomUUID(),
      roomId,
      type: 'POSTBACK',
      text: 'x',
      payload: { a: { b: ['\udc00'] } },
    });
    await refused('message:send', {
      id: randomUUID(),
      roomId,
      type: 'EVENT',
      slug: 's',
      description: '',
      eventPayload: { a: '\u0000' },
    });
    await refused('messages:seen', { roomId, ids: ['\u0000'] });
    await refused('messages:seen', { roomId: '\u0000', ids: [] });
    await refused('room:read', { roomId: '\u0000' });
    await refused('messages:sync', { after: { 'r\u0000': 1 } });
    expect(await h.messageCount(roomId)).toBe(before);
  });
});

describe('live gateway: shapes a lenient handler trips on', () => {
  it('counts a room id in characters, as the HTTP routes do: 200 emoji are an id (not a member), 201 are too long', async () => {
    // 200 characters, 400 UTF-16 units: an id like any other, of a room this user is not in.
    const ack = (await emitAck(
      socket,
      'message:send',
      text({ roomId: '😀'.repeat(200) }) as never,
    )) as Ack<unknown>;
    expect(ack.ok).toBe(false);
    expect((ack as { error: ErrorBody }).error.error.key).toBe('NOT_A_MEMBER');
    const error = await refused('message:send', text({ roomId: 'x'.repeat(200) + '😀' }));
    expect(error.validationError).toEqual({ '/roomId': 'must not have more than 200 characters' });
  });

  it('refuses a type named after an Object.prototype member with 400, not E0000', async () => {
    for (const type of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const error = await refused('message:send', { id: randomUUID(), roomId, type, text: 'x' });
      expect(error.validationError).toHaveProperty('/type');
    }
  });

  it('refuses a sequence number that is not a safe integer', async () => {
    for (const seq of [1e308, 2 ** 53, 1.5]) {
      const error = await refused('messages:sync', { after: { [roomId]: seq } });
      expect(error.validationError).toHaveProperty(`/after/${roomId}`);
    }
  });

  it('refuses payloads nested deeper than the HTTP API allows, and __proto__ keys', async () => {
    const before = await h.messageCount(roomId);
    let deep: unknown = 'end';
    for (let i = 0; i < 200; i++) deep = { d: deep };
    await refused('message:send', { id: randomUUID(), roomId, type: 'POSTBACK', text: 'x', payload: deep });
    await refused('message:send', {
      id: randomUUID(),
      roomId,
      type: 'POSTBACK',
      text: 'x',
      payload: JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>,
    });
    expect(await h.messageCount(roomId)).toBe(before);
  });

  it('refuses a number out of range, naming it (sent as a raw frame: socket.io’s client would send null)', async () => {
    const before = await h.messageCount(roomId);
    const { engine } = socket.io;
    const answer = new Promise<string>((resolve) => {
      const hear = (packet: { type: string; data?: unknown }) => {
        if (packet.type !== 'message' || typeof packet.data !== 'string' || !packet.data.startsWith('3999'))
          return;
        engine.off('packet', hear);
        resolve(packet.data.slice(4));
      };
      engine.on('packet', hear);
    });
    const message = `{"id":"${randomUUID()}","roomId":"${roomId}","type":"POSTBACK","text":"x","payload":{"n":[1,1e400]}}`;
    // An EVENT packet with acknowledgement id 999; its ACK comes back as 3999[...].
    engine.write(`2999["message:send",${message}]`);
    const [ack] = JSON.parse(await answer) as [{ ok: boolean; error: ErrorBody }];
    expect(ack.ok).toBe(false);
    expect(ack.error.error.key).toBe('VALIDATION_ERROR');
    expect(Object.keys(ack.error.validationError ?? {})).toEqual(['/payload/n/1']);
    expect(await h.messageCount(roomId)).toBe(before);
  });
});

describe('live gateway: what a message may say', () => {
  it('holds media addresses to the room posts’ rule: no private, link-local or plain http hosts', async () => {
    const before = await h.messageCount(roomId);
    for (const mediaUrl of [
      'https://10.0.0.1/a.png',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:192.168.1.1]/a.png',
      'http://example.com/a.png',
      'https://user:secret@example.com/a.png',
      // Spaces, controls and invisible formatting the URL parser would drop or hide.
      'https://cdn.example.com/\ta.png',
      'https://cdn.example.com/\u202Egnp.exe',
      'https://cdn.example.com/a\u00A0b.png',
    ]) {
      const error = await refused('message:send', { id: randomUUID(), roomId, type: 'IMAGE', mediaUrl });
      expect(error.validationError).toHaveProperty('/mediaUrl');
    }
    expect(await h.messageCount(roomId)).toBe(before);
    const fine = await emitAck(socket, 'message:send', {
      id: randomUUID(),
      roomId,
      type: 'IMAGE',
      mediaUrl: 'https://cdn.example.com/a.png',
    });
    expect(fine.ok).toBe(true);
  });

  it('refuses a latitude beyond ±90 or a longitude beyond ±180', async () => {
    const location = (lat: string, lng: string) => ({ id: randomUUID(), roomId, type: 'LOCATION', lat, lng });
    expect((await refused('message:send', location('91', '0'))).validationError).toHaveProperty('/lat');
    expect((await refused('message:send', location('0', '-180.5'))).validationError).toHaveProperty('/lng');
    expect((await refused('message:send', location('-999', '999'))).validationError).toMatchObject({
      '/lat': expect.any(String),
      '/lng': expect.any(String),
    });
    expect((await emitAck(socket, 'message:send', location('-90', '180') as never)).ok).toBe(true);
  });

  it('refuses a text or postback of white space only (an empty bubble), naming /text', async () => {
    const before = await h.messageCount(roomId);
    // Invisible characters only, too: tag characters, variation selectors, a deprecated format control.
    for (const blank of [' ', '\n\t ', '\u00a0\u2003', '\uFE0F\u{E0041}', '\u206A\u{1D173}']) {
      expect((await refused('message:send', text({ text: blank }))).validationError).toEqual({
        '/text': 'must not be blank (white space or invisible characters only)',
      });
      const postback = { id: randomUUID(), roomId, type: 'POSTBACK', text: blank, payload: {} };
      expect((await refused('message:send', postback)).validationError).toHaveProperty('/text');
    }
    expect(await h.messageCount(roomId)).toBe(before);
    expect((await emitAck(socket, 'message:send', text({ text: ' hola ' }) as never)).ok).toBe(true);
  });

  it('is one message whatever the case of its UUID, as room posts are', async () => {
    const id = randomUUID();
    const first = (await emitAck(socket, 'message:send', text({ id }) as never)) as Ack<Message>;
    const again = (await emitAck(
      socket,
      'message:send',
      text({ id: id.toUpperCase() }) as never,
    )) as Ack<Message>;
    expect(first.ok && again.ok).toBe(true);
    if (!first.ok || !again.ok) return;
    expect(again.data.id).toBe(first.data.id);
    expect(again.data.seq).toBe(first.data.seq);
    const rows = await h.app.charla.db.query('SELECT id FROM messages WHERE lower(id) = $1', [id]);
    expect(rows.rows).toHaveLength(1);
  });
});
