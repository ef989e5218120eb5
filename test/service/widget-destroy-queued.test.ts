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
});
