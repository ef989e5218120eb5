/**
 * The bot's turns waiting per (room, user) are bounded: a user writing faster than the store
 * answers gets replies to the first MAX_QUEUED_TURNS waiting, not a queue without end (a
 * reviewer's 150 users under the socket's rate grew the process by 600 MB in 40 s, and it went
 * on answering for minutes after they left); a stopping process runs none of its queued turns.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../types/index.ts';
import { liveOf } from '../../server/live/index.ts';
import { MAX_QUEUED_TURNS } from '../../server/live/flows.ts';
import { startLive, type LiveHarness } from './helpers/live.ts';

let h: LiveHarness;
let apiKey: string;

beforeAll(async () => {
  h = await startLive();
  await h.insertBot('demo-bot', 'Charla Demo Bot');
  ({ apiKey } = await h.createWidget({ botId: 'demo-bot' }));
});
afterAll(async () => {
  await h?.close();
});

const botMessages = async (roomId: string) =>
  Number(
    (
      await h.app.charla.db.query<{ n: string | number }>(
        "SELECT count(*) AS n FROM messages WHERE room_id = $1 AND body->>'by' = 'bot'",
        [roomId],
      )
    ).rows[0]!.n,
  );

/** `n` texts of a visitor handed to the bot at once, as the socket hands them when they arrive together. */
function flood(roomId: string, userId: string, n: number): void {
  const { messaging } = liveOf(h.app);
  for (let i = 0; i < n; i++) {
    const message = {
      id: randomUUID(),
      roomId,
      senderId: userId,
      by: 'user',
      type: 'TEXT',
      text: `hola ${i}`,
      status: 'DELIVERED',
      createdAt: new Date().toISOString(),
      timestamp: Date.now(),
    } as Message;
    messaging.onPersonMessage!(message, { id: roomId, botId: 'demo-bot' });
  }
}

async function visitorRoom(): Promise<{ roomId: string; userId: string }> {
  const userId = `v-${randomUUID()}`;
  const s = await h.session(apiKey, userId, { userNames: 'Vero' });
  await liveOf(h.app).flows.idle();
  return { roomId: s.botRoomId, userId };
}

describe('the bot’s waiting turns', () => {
  it('answer a flood’s first turns only, the same as that many turns alone', async () => {
    const one = await visitorRoom();
    const before = await botMessages(one.roomId);
    flood(one.roomId, one.userId, 1);
    await liveOf(h.app).flows.idle();
    const perTurn = (await botMessages(one.roomId)) - before;
    expect(perTurn).toBeGreaterThan(0);

    const many = await visitorRoom();
    const start = await botMessages(many.roomId);
    flood(many.roomId, many.userId, MAX_QUEUED_TURNS * 5);
    await liveOf(h.app).flows.idle();
    expect((await botMessages(many.roomId)) - start).toBe(perTurn * MAX_QUEUED_TURNS);

    // Once they are answered, the bot answers again.
    flood(many.roomId, many.userId, 1);
    await liveOf(h.app).flows.idle();
    expect((await botMessages(many.roomId)) - start).toBe(perTurn * (MAX_QUEUED_TURNS + 1));
  });

  it('are left when the process stops: only the turn running ends', async () => {
    const v = await visitorRoom();
    const start = await botMessages(v.roomId);
    flood(v.roomId, v.userId, MAX_QUEUED_TURNS);
    const flows = liveOf(h.app).flows;
    flows.stop();
    await flows.idle();
    const answered = (await botMessages(v.roomId)) - start;
    expect(answered).toBeLessThanOrEqual(2);
  });
});
