/**
 * A room's history through the widget against the real service: the latest 20 when it opens,
 * then 50 at a time as the user scrolls up (pages of 20 took five minutes of scrolling to
 * reach the start of a 20,000-message room), until the first message, and no further.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { WidgetInstance } from '../../src/widget/instance.ts';
import { BASIC, waitFor } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

const live = liveWidgets();

const held = (w: WidgetInstance, roomId: string) =>
  (w.core.stores.w.$messagesByRoom.get()[roomId] ?? []).length;

describe('history pages', () => {
  it('come 20 when the room opens, then 50 at a time, to the first message', async () => {
    const w = live.widget({ userId: `pages-${randomUUID()}` });
    await w.connect();
    const roomId = w.stores.$currentRoomId.get()!;
    // 130 messages posted into the room (the bot's greeting may add a few).
    for (let batch = 0; batch < 2; batch++) {
      const res = await fetch(`${live.h.baseUrl}/v1/rooms/${roomId}/message`, {
        method: 'POST',
        headers: { authorization: BASIC, 'content-type': 'application/json' },
        body: JSON.stringify({
          senderId: 'system',
          messages: Array.from({ length: 65 }, (_, i) => ({
            id: randomUUID(),
            type: 'TEXT',
            text: `m${batch * 65 + i}`,
          })),
        }),
      });
      expect(res.status).toBe(200);
    }
    const total = Number(
      (
        await live.h.app.charla.db.query<{ n: string | number }>(
          'SELECT count(*) AS n FROM messages WHERE room_id = $1',
          [roomId],
        )
      ).rows[0]!.n,
    );
    // A fresh page of the same user: it holds only what the room's first page brings.
    w.destroy();
    const again = live.widget({ userId: w.userId });
    await again.connect();
    await waitFor(() => held(again, roomId) >= 20, 5000, 'the first page');
    const first = held(again, roomId);
    expect(first).toBe(20);
    await again.context.actions.loadOlder();
    expect(held(again, roomId)).toBe(70);
    await again.context.actions.loadOlder();
    expect(held(again, roomId)).toBe(Math.min(120, total));
    while (again.context.stores.$currentHistory.get().hasMore) await again.context.actions.loadOlder();
    expect(held(again, roomId)).toBe(total);
  });
});
