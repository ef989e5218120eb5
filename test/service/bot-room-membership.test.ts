/**
 * A bot room is the user's conversation with the bot. Neither the user nor
 * the bot can be taken out of it (the widget would be left, for good, with a
 * room it can neither read nor write), and a bot room stored without one of
 * them is mended at the user's next session.
 */
import { describe, expect, it } from 'vitest';
import { liveWidgets, rejection } from './helpers/widgets.ts';

const live = liveWidgets();

const visitor = (userId: string) => live.widget({ userId });

describe('the bot room', () => {
  it('cannot be left by its user nor emptied of its bot: 403, and the conversation goes on', async () => {
    const w = visitor(`bot-room-${Date.now()}`);
    await w.connect();
    const roomId = w.core.currentSession!.botRoomId;
    const members = await w.getMembers(roomId);
    expect(members).toHaveLength(2);
    for (const m of members) {
      const e = await rejection(w.leaveRoom(roomId, m.referenceId));
      expect(e.httpStatus).toBe(403);
      expect(e.key).toBe('FORBIDDEN');
    }
    expect(await w.getMembers(roomId)).toHaveLength(2);
    // Someone who is not in it: out afterwards either way, as before.
    expect((await w.leaveRoom(roomId, 'nobody-here')).status).toBe(true);
    const sent = await w.sendMessage({ roomId, type: 'TEXT', text: 'sigo aquí' });
    expect(sent.roomId).toBe(roomId);
    expect((await w.getMessages({ roomId })).some((m) => m.id === sent.id)).toBe(true);
  });

  it('stored without its user (an older service let them leave) is mended at the next session', async () => {
    const userId = `bot-room-mend-${Date.now()}`;
    const first = visitor(userId);
    await first.connect();
    const roomId = first.core.currentSession!.botRoomId;
    first.destroy();
    await live.h.app.charla.db.query('DELETE FROM room_members WHERE room_id = $1 AND user_id = $2', [
      roomId,
      userId,
    ]);

    const again = visitor(userId);
    await again.connect();
    expect(again.core.currentSession!.botRoomId).toBe(roomId);
    expect((await again.getMembers(roomId)).map((m) => m.referenceId)).toContain(userId);
    const sent = await again.sendMessage({ roomId, type: 'TEXT', text: 'de vuelta' });
    expect((await again.getMessages({ roomId })).some((m) => m.id === sent.id)).toBe(true);
  });
});
