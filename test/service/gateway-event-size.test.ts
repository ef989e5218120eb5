/**
 * An event over MAX_EVENT_BYTES is refused in its acknowledgement (413
 * PAYLOAD_TOO_LARGE), stores nothing, and leaves the socket open with what
 * else it had in flight answered; one without an acknowledgement is dropped.
 * A handshake with an over-long token is refused with `connect_error` (401),
 * not left to time out.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Ack, ErrorBody, Message } from '../../types/index.ts';
import { MAX_EVENT_BYTES } from '../../types/limits.ts';
import { collect, sendText, waitFor } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T | string> =>
  Promise.race([p, new Promise<string>((r) => setTimeout(() => r(`no answer: ${what}`), ms))]);

describe('socket events over MAX_EVENT_BYTES', () => {
  const live = liveWidgets();

  it('answers 413 in the acknowledgement, stores nothing, and keeps the socket and its other events', async () => {
    const s = await live.h.session(live.apiKey, `size-${randomUUID()}`);
    const socket = await live.h.connect(s.token);
    const roomId = s.botRoomId;
    const seen = collect(socket);
    let closed = '';
    socket.on('disconnect', (reason) => (closed = reason));
    const before = await live.h.messageCount(roomId);

    // In flight together: a normal send, the oversized one, another normal send.
    const first = sendText(socket, roomId, 'antes');
    const big = sendText(socket, roomId, 'x'.repeat(MAX_EVENT_BYTES + 6_000));
    const last = sendText(socket, roomId, 'después');
    const [a, b, c] = (await within(
      Promise.all([first, big, last]),
      8000,
      'the three sends',
    )) as Ack<Message>[];

    expect(b, 'the oversized send is answered').toBeDefined();
    expect(b!.ok).toBe(false);
    const error = (b as { error: ErrorBody }).error;
    expect(error).toMatchObject({
      status: 0,
      statusMessage: 'failed',
      error: { key: 'PAYLOAD_TOO_LARGE', code: 'E0413' },
    });
    expect(String(error.message)).toContain(String(MAX_EVENT_BYTES));
    expect(a!.ok).toBe(true);
    expect(c!.ok).toBe(true);
    expect(closed).toBe('');
    expect(socket.connected).toBe(true);
    expect(await live.h.messageCount(roomId)).toBe(before + 2);
    await waitFor(
      () => seen.some((m) => (m as { text?: string }).text === 'después'),
      3000,
      'the later send',
    );
    expect(seen.some((m) => ((m as { text?: string }).text ?? '').startsWith('xxx'))).toBe(false);

    // Without an acknowledgement: dropped, the socket still open.
    (socket as unknown as { emit(ev: string, arg: unknown): void }).emit('message:send', {
      id: randomUUID(),
      roomId,
      type: 'TEXT',
      text: 'y'.repeat(MAX_EVENT_BYTES + 1_000),
    });
    const after = await sendText(socket, roomId, 'sigo');
    expect(after.ok).toBe(true);
    expect(socket.connected).toBe(true);
    expect(await live.h.messageCount(roomId)).toBe(before + 3);
  });

  it('counts binary by its bytes: a large binary payload is 413 too, the socket kept', async () => {
    const s = await live.h.session(live.apiKey, `size-bin-${randomUUID()}`);
    const socket = await live.h.connect(s.token);
    const ack = (await within(
      (
        socket.timeout(8000) as unknown as { emitWithAck(ev: string, arg: unknown): Promise<Ack<unknown>> }
      ).emitWithAck('room:read', { roomId: s.botRoomId, blob: Buffer.alloc(MAX_EVENT_BYTES + 10) }),
      8000,
      'the binary event',
    )) as Ack<unknown>;
    expect(ack.ok).toBe(false);
    expect((ack as { error: ErrorBody }).error.error.key).toBe('PAYLOAD_TOO_LARGE');
    expect(socket.connected).toBe(true);
  });

  it('refuses a handshake with a 200 KB token with connect_error 401, not a timeout', async () => {
    const outcome = await within(
      live.h.connect('a'.repeat(200_000)).then(
        () => 'connected',
        (err: { data?: ErrorBody }) => err.data,
      ),
      8000,
      'the handshake',
    );
    expect(outcome).toMatchObject({ error: { key: 'UNAUTHORIZED' } });
  });
});
