/**
 * destroy() with a send still queued: the promise rejects DESTROYED saying
 * the message stays queued, and it does: the next widget of that user (same
 * outbox) delivers it, once.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { waitFor } from './helpers/live.ts';
import { liveWidgets, rejection } from './helpers/widgets.ts';

const live = liveWidgets();

describe('destroy() with a send still queued', () => {
  it('rejects DESTROYED saying the message stays queued, and the next widget of the user sends it once', async () => {
    const userId = `u-${randomUUID()}`;
    const namespace = `ns-${randomUUID()}`;
    const first = live.widget({ userId, namespace });
    await first.connect();
    const roomId = first.stores.$currentRoomId.get() as string;
    first.disconnect();
    const pending = first.sendMessage({ roomId, type: 'TEXT', text: 'queda en cola' });
    first.destroy();
    const e = await rejection(pending);
    expect(e.code).toBe('E0003');
    expect(e.key).toBe('DESTROYED');
    expect(e.message).toBe(
      'The widget instance was destroyed; the message stays queued and is sent when a widget for this user connects again (unless the page deletes the outbox storage).',
    );
    // Other DESTROYED rejections keep their words.
    expect((await rejection(first.getRoom(roomId))).message).toBe('The widget instance was destroyed.');

    const next = live.widget({ userId, namespace });
    await next.connect();
    await waitFor(() => next.core.outbox.size === 0, 5000, 'the queued message sent');
    const held = await next.getMessages({ roomId, limit: 100 });
    expect(held.filter((m) => m.type === 'TEXT' && m.text === 'queda en cola')).toHaveLength(1);
  });

  it('a widget of the user already open sends what another left queued at its next connection, in the order written', async () => {
    const userId = `u-${randomUUID()}`;
    const namespace = `ns-${randomUUID()}`;
    // Open first: its outbox was read before the other wrote anything.
    const open = live.widget({ userId, namespace });
    await open.connect();
    const roomId = open.stores.$currentRoomId.get() as string;
    // Another tab (or instance) of the same user queues three offline, then closes.
    const closed = live.widget({ userId, namespace });
    const left = ['A1', 'A2', 'A3'].map((text) => closed.sendMessage({ roomId, type: 'TEXT', text }));
    for (const p of left) p.catch(() => undefined);
    await closed.core.outbox.settled();
    closed.destroy();
    // The open one writes a message later, offline too, and connects again.
    open.disconnect();
    open.sendMessage({ roomId, type: 'TEXT', text: 'B1' }).catch(() => undefined);
    await open.connect();
    await waitFor(() => open.core.outbox.size === 0, 5000, 'everything queued sent');
    const texts = (await open.getMessages({ roomId, limit: 100 }))
      .filter((m) => m.type === 'TEXT' && /^[AB]\d$/.test(m.text))
      .map((m) => (m as { text: string }).text);
    expect(texts).toEqual(['A1', 'A2', 'A3', 'B1']);
  });
});
