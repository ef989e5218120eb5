/**
 * Socket events are JSON only: binary data (a Buffer, an ArrayBuffer, a typed
 * array) anywhere in an event's payload is refused 400 VALIDATION_ERROR naming
 * the field; nothing is stored or broadcast, and the socket stays open. (It
 * used to be stored as `{"type":"Buffer","data":[…]}` while the room got a
 * real Buffer live, and an exact retry was refused as another message.)
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Ack, ErrorBody } from '../../types/index.ts';
import { collect, sendText, type ClientSocket } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

/** Emits any payload with an acknowledgement (the typed emit wants JSON shapes). */
function emitAny(socket: ClientSocket, event: string, payload: unknown): Promise<Ack<unknown>> {
  return (
    socket.timeout(5000) as unknown as { emitWithAck(ev: string, arg: unknown): Promise<Ack<unknown>> }
  ).emitWithAck(event, payload);
}

function refusedAt(ack: Ack<unknown>, field: string): void {
  expect(ack.ok, JSON.stringify(ack).slice(0, 300)).toBe(false);
  const error = (ack as { error: ErrorBody }).error;
  expect(error.error.key).toBe('VALIDATION_ERROR');
  expect(Object.keys(error.validationError ?? {})).toEqual([field]);
  expect(String(error.validationError?.[field])).toMatch(/binary/);
}

describe('binary data in socket events', () => {
  const live = liveWidgets();

  it('refuses a POSTBACK whose payload holds a Buffer, storing and broadcasting nothing', async () => {
    const s = await live.h.session(live.apiKey, `bin-${randomUUID()}`);
    const socket = await live.h.connect(s.token);
    const tab = await live.h.connect(s.token);
    const seen = collect(tab);
    const roomId = s.botRoomId;
    const before = await live.h.messageCount(roomId);
    const id = randomUUID();
    const postback = { id, roomId, type: 'POSTBACK', text: 'p', payload: { b: Buffer.alloc(16, 7) } };

    refusedAt(await emitAny(socket, 'message:send', postback), '/payload/b');
    // The same again is refused the same way (not "/id is already used").
    refusedAt(await emitAny(socket, 'message:send', postback), '/payload/b');
    // Typed arrays and ArrayBuffers, however deep.
    const postbackOf = (payload: unknown) => ({
      id: randomUUID(),
      roomId,
      type: 'POSTBACK',
      text: 'p',
      payload,
    });
    const deepArray = postbackOf({ list: ['a', { deep: new Uint8Array([1, 2, 3]) }] });
    refusedAt(await emitAny(socket, 'message:send', deepArray), '/payload/list/1/deep');
    const buffer = postbackOf({ raw: new Float32Array([1.5]).buffer });
    refusedAt(await emitAny(socket, 'message:send', buffer), '/payload/raw');
    // Any event, the payload itself binary included.
    refusedAt(await emitAny(socket, 'room:read', Buffer.from('{"roomId":"x"}')), '/');
    refusedAt(await emitAny(socket, 'messages:seen', { roomId, ids: [Buffer.from('id')] }), '/ids/0');
    refusedAt(
      await emitAny(socket, 'messages:sync', { after: { [roomId]: 0 }, extra: Buffer.alloc(1) }),
      '/extra',
    );

    expect(await live.h.messageCount(roomId)).toBe(before);
    // The same id as JSON is a new message, stored once.
    const json = await emitAny(socket, 'message:send', { ...postback, payload: { b: 'siete' } });
    expect(json.ok, JSON.stringify(json).slice(0, 300)).toBe(true);
    expect(await live.h.messageCount(roomId)).toBe(before + 1);
    expect((await sendText(socket, roomId, 'sigo')).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.every((m) => !JSON.stringify(m).includes('"type":"Buffer"'))).toBe(true);
    expect(socket.connected).toBe(true);
  });
});
