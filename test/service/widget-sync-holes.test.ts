/**
 * A message can reach the widget ahead of earlier ones (the acknowledgement of its own send before
 * the broadcast of someone else's, stored just before it). If the link drops in between, the
 * catch-up must ask from before the hole, not from the last message held, or the ones between are
 * never fetched (the widget-chaos test once ended with 11 of 2,000 missing). A stand-in socket.io
 * server records what the real widget library asks for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandIn, type StandIn } from './helpers/stand-in.ts';
import { rawMessage } from '../raw-message.ts';

let service: StandIn;
const text = (id: string, seq: number) => rawMessage(id, 'bot-room', { seq, type: 'TEXT', text: id });
const room = (lastSeq: number) => ({
  id: 'bot-room',
  unread: 0,
  type: 'bot',
  name: 'Bot',
  bot: null,
  company: { id: 'c', name: 'C' },
  membersInfo: [{ id: 'm-u1', referenceId: 'u1', names: 'Ana' }],
  members: ['u1'],
  lastSeq,
});

/** What each catch-up asked for, and what the stand-in answers (by the seq asked from). */
const asked: Record<string, number>[] = [];
/** seq n at index n - 1. */
const stored = [text('m1', 1), text('m2', 2), text('m3', 3), text('m4', 4), text('m5', 5)];

beforeAll(async () => {
  service = await startStandIn();
  service.io.on('connection', (socket) => {
    socket.on('messages:sync', (req: { after?: Record<string, number> }, ack: (res: unknown) => void) => {
      const after = req?.after ?? {};
      asked.push({ ...after });
      const from = after['bot-room'] ?? 0;
      // The first catch-up knows m1 and m2; later, all five are stored.
      const upTo = asked.length === 1 ? 2 : 5;
      ack({
        ok: true,
        data: { rooms: [room(upTo)], messages: stored.slice(from, upTo) },
      });
    });
  });
});
afterAll(() => service.close());

describe('a catch-up after a message that came ahead of others', () => {
  it('asks from before the hole and ends with every message, in order', async () => {
    const w = service.widget();
    await w.connect();
    const held = () => (w.core.stores.w.$messagesByRoom.get()['bot-room'] ?? []).map((m) => m.id);
    expect(held()).toEqual(['m1', 'm2']);

    // m5 arrives live; m3 and m4, stored before it, have not yet when the link drops.
    service.io.emit('message:new', stored[4]);
    await expect.poll(held).toEqual(['m1', 'm2', 'm5']);
    for (const socket of service.io.sockets.sockets.values()) socket.conn.close();

    await expect.poll(() => asked.length, { timeout: 10_000 }).toBe(2);
    expect(asked[1]).toEqual({ 'bot-room': 2 });
    await expect.poll(held).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
  });
});
