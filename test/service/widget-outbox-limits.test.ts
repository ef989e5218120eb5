/**
 * Messages that can never go over the live connection do not break the
 * widget: against the real service (its 64 KB socket limit, real sockets),
 * an oversized message is refused at once, an outbox entry an older version
 * stored that can never go is FAILED instead of resent for ever, and a
 * message the service closes the connection on is FAILED after a few tries
 * while the others keep flowing.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Message, OutgoingMessage } from '../../types/index.ts';
import { MAX_EVENT_BYTES } from '../../types/limits.ts';
import { liveOf } from '../../server/live/index.ts';
import type { WidgetInstance } from '../../src/widget/instance.ts';
import { CharlaError } from '../../src/transport/errors.ts';
import { createOutboxStorage } from '../../src/transport/outbox-storage.ts';
import { MESSAGE_MAX_BYTES } from '../../src/util/validate.ts';
import { waitFor } from './helpers/live.ts';
import { liveWidgets, rejection } from './helpers/widgets.ts';

const live = liveWidgets();

beforeAll(async () => {
  // A service (or a proxy on the way) that closes the connection whenever one particular message arrives.
  liveOf(live.h.app).io.on('connection', (socket) => {
    socket.use(([event, payload], next) => {
      if (event === 'message:send' && (payload as { text?: unknown })?.text === 'poison') socket.conn.close();
      else next();
    });
  });
});

function widget(userId = `u-${randomUUID()}`, namespace = `ns-${randomUUID()}`): WidgetInstance {
  return live.widget({ userId, namespace, reconnectionDelay: 50, reconnectionDelayMax: 400 });
}

/** Two connected widgets, their direct room, and what B receives in it. */
async function pair() {
  const a = widget();
  const b = widget();
  await Promise.all([a.connect(), b.connect()]);
  const { id: roomId } = await a.openRoomWithUser({ id: b.userId, names: 'Beto' });
  await waitFor(() => b.stores.$rooms.get().some((r) => r.id === roomId), 5000, 'B in the room');
  const got: Message[] = [];
  b.on('message', (d) => d.roomId === roomId && got.push(d.message));
  const drops: string[] = [];
  a.on('connection', (d) => d.state !== 'connected' && drops.push(d.state));
  return { a, b, roomId, got, drops };
}

const texts = (list: Message[]) => list.map((m) => (m as { text?: string }).text);

describe('messages the live connection cannot carry', () => {
  it('an oversized EVENT or POSTBACK rejects at once with VALIDATION_ERROR; the widget stays connected and later messages arrive', async () => {
    const { a, roomId, got, drops } = await pair();
    const cases = [
      [
        { type: 'EVENT', slug: 's', description: 'd', eventPayload: { a: 'x'.repeat(70_000) } },
        'eventPayload',
      ],
      [{ type: 'POSTBACK', text: 'p', payload: { blob: 'y'.repeat(100_000) } }, 'payload'],
      // 25,000 characters but 75,000 UTF-8 bytes: measured as sent.
      [
        { type: 'EVENT', slug: 's', description: 'd', eventPayload: { a: '€'.repeat(25_000) } },
        'eventPayload',
      ],
    ] as const;
    for (const [message, field] of cases) {
      const e = await rejection(a.sendMessage({ roomId, ...message }));
      expect(e.key).toBe('VALIDATION_ERROR');
      expect(e.body.validationError[field]).toMatch(/too large/);
    }
    expect(a.core.outbox.size).toBe(0);
    const later = await a.sendMessage({ roomId, type: 'TEXT', text: 'después' });
    expect(later.seq).toBeTypeOf('number');
    await waitFor(() => texts(got).includes('después'), 5000, 'B gets the later message');
    expect(drops).toEqual([]);
    expect(a.stores.$connection.get()).toBe('connected');
  });

  it('the largest message the widget lets through is one the service takes', async () => {
    expect(MESSAGE_MAX_BYTES).toBeLessThan(MAX_EVENT_BYTES);
    const { a, roomId, got, drops } = await pair();
    const id = randomUUID();
    const shape = (pad: string) =>
      ({ id, roomId, type: 'EVENT', slug: 's', description: 'd', eventPayload: { a: pad } }) as const;
    const room = MESSAGE_MAX_BYTES - JSON.stringify(shape('')).length;
    const tooBig = await rejection(a.sendMessage(shape('é'.repeat(Math.ceil((room + 1) / 2)))));
    expect(tooBig.key).toBe('VALIDATION_ERROR');
    const fits = await a.sendMessage(shape('z'.repeat(room)));
    expect(fits.seq).toBeTypeOf('number');
    await waitFor(() => got.some((m) => m.id === id), 5000, 'B gets the largest message');
    expect(drops).toEqual([]);
  });

  it('an outbox entry an older version stored that can never go is FAILED with its reason; the rest are delivered', async () => {
    const { a, b, roomId } = await pair();
    // The next page of A's user, with what an older version left in its outbox.
    const namespace = `ns-${randomUUID()}`;
    const storage = createOutboxStorage(namespace, 'memory');
    const entry = (message: Record<string, unknown>, order: number) => ({
      message: { id: randomUUID(), roomId, ...message } as unknown as OutgoingMessage,
      order,
      createdAt: Date.now() - 60_000 + order,
    });
    const circular: Record<string, unknown> = { k: 1 };
    circular['self'] = circular;
    const stored = [
      entry({ type: 'TEXT', text: 'antes' }, 1),
      entry({ type: 'EVENT', slug: 's', description: 'd', eventPayload: { a: 'x'.repeat(70_000) } }, 2),
      entry({ type: 'POSTBACK', text: 'p', payload: circular }, 3),
      entry({ type: 'POSTBACK', text: 'p', payload: { n: 10n } }, 4),
      entry({ type: 'TEXT', text: 'también' }, 5),
    ];
    for (const e of stored) await storage.put(e);
    const got: Message[] = [];
    b.on('message', (d) => d.roomId === roomId && got.push(d.message));
    const next = widget(a.userId, namespace);
    const errors: string[] = [];
    next.on('error', (d) => errors.push(`${d.operation}:${d.error.key}`));
    const states: string[] = [];
    next.on('connection', (d) => states.push(d.state));
    await next.connect();
    await waitFor(() => texts(got).includes('también'), 5000, 'B gets the good entries');
    expect(texts(got)).toEqual(['antes', 'también']);
    for (const e of stored.slice(1, 4)) {
      const held = next.core.findMessage(String(e.message.id));
      expect(held?.status).toBe('FAILED');
      expect(held?.error?.key).toBe('VALIDATION_ERROR');
    }
    expect(next.core.findMessage(String(stored[1]?.message.id))?.error?.description).toMatch(/too large/);
    expect(errors).toEqual([
      'sendMessage:VALIDATION_ERROR',
      'sendMessage:VALIDATION_ERROR',
      'sendMessage:VALIDATION_ERROR',
    ]);
    await waitFor(() => next.core.outbox.size === 0, 5000, 'the outbox empties');
    await next.core.outbox.settled();
    expect(await storage.load()).toEqual([]);
    // Retrying one that can never go says why at once and leaves it FAILED.
    const retried = await rejection(next.core.retry(String(stored[1]?.message.id)));
    expect(retried.key).toBe('VALIDATION_ERROR');
    expect(next.core.findMessage(String(stored[1]?.message.id))?.status).toBe('FAILED');
    const later = await next.sendMessage({ roomId, type: 'TEXT', text: 'luego' });
    expect(later.seq).toBeTypeOf('number');
    expect(states).toEqual(['connecting', 'connected']);
  });

  it('a message the service closes the connection on is FAILED after three tries; the others go through, in order', async () => {
    const { a, roomId, got } = await pair();
    const errors: string[] = [];
    a.on('error', (d) => errors.push(`${d.operation}:${d.error.key}`));
    const sends = ['uno', 'poison', 'dos', 'tres'].map((text) =>
      a.sendMessage({ roomId, type: 'TEXT', text }).then(
        (m) => m.status,
        (e: CharlaError) => e.key,
      ),
    );
    const outcome = await Promise.all(sends);
    expect(outcome[1]).toBe('CONNECTION_DROPPED');
    expect(outcome.filter((s) => s !== 'CONNECTION_DROPPED').every((s) => s.startsWith('DELIVERED'))).toBe(
      true,
    );
    await waitFor(() => texts(got).includes('tres'), 5000, 'B gets the others');
    expect(texts(got)).toEqual(['uno', 'dos', 'tres']);
    const poisoned = a.core.stores.w.$messagesByRoom.get()[roomId]?.find((m) => texts([m])[0] === 'poison');
    expect(poisoned?.status).toBe('FAILED');
    expect(poisoned?.error?.key).toBe('CONNECTION_DROPPED');
    expect(errors).toEqual(['sendMessage:CONNECTION_DROPPED']);
    // Back to normal: pipelined again, connected, later messages arrive.
    await waitFor(() => a.stores.$connection.get() === 'connected', 5000, 'connected again');
    await Promise.all(['cuatro', 'cinco'].map((text) => a.sendMessage({ roomId, type: 'TEXT', text })));
    await waitFor(() => texts(got).includes('cinco'), 5000, 'B gets later messages');
    expect(texts(got)).toEqual(['uno', 'dos', 'tres', 'cuatro', 'cinco']);
  });
});
