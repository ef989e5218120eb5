/**
 * `messages:sync` costs one user, not everyone: a user in many rooms who sends
 * a pile of syncs at once does not hold up another user's send, each of the
 * pile is answered (served one after another, or refused 429 with a wait),
 * and a sync hands the latest page of a bounded number of rooms it was not
 * asked about (the rest come as their summary, `lastMessage` and `lastSeq`),
 * while a room it is asked about still gets its whole gap.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Ack, ErrorBody, Message, Room } from '../../types/index.ts';
import { SYNC_LATEST_PAGE, SYNC_LATEST_ROOMS } from '../../server/live/gateway.ts';
import { emitAck, sendText, type ClientSocket } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

type SyncAck = Ack<{ messages: Message[]; rooms: Room[] }>;

const ROOMS = 500;
const PER_ROOM = 3;
const FLOOD = 10;

describe('messages:sync of a user in many rooms', () => {
  const live = liveWidgets();

  /** A user in `ROOMS` direct rooms (each with a peer and `PER_ROOM` messages), written straight to storage. */
  async function crowdedUser() {
    const userId = `crowded-${randomUUID()}`;
    const s = await live.h.session(live.apiKey, userId);
    const db = live.h.app.charla.db;
    const { rows } = await db.query<{ company_id: string }>('SELECT company_id FROM rooms WHERE id = $1', [
      s.botRoomId,
    ]);
    const companyId = rows[0]!.company_id;
    const prefix = `many-${randomUUID()}`;
    await db.query(
      `INSERT INTO rooms (id, company_id, type, last_seq, last_message_at, created_at)
       SELECT $1 || '-' || i, $2, 'direct', $3, now() - make_interval(secs => i), now() - interval '1 day'
       FROM generate_series(1, $4::int) AS i`,
      [prefix, companyId, PER_ROOM, ROOMS],
    );
    await db.query(
      `INSERT INTO room_members (room_id, user_id, id, company_id)
       SELECT $1 || '-' || i, u.uid, $1 || '-m-' || i || '-' || u.n, $2
       FROM generate_series(1, $3::int) AS i,
            LATERAL (VALUES ($4::text, 1), ('peer-' || $1 || '-' || i, 2)) AS u(uid, n)`,
      [prefix, companyId, ROOMS, userId],
    );
    await db.query(
      `INSERT INTO messages (id, room_id, seq, sender_id, status, body)
       SELECT $1 || '-msg-' || i || '-' || q, $1 || '-' || i, q, 'peer-' || $1 || '-' || i, 'DELIVERED',
              jsonb_build_object('id', $1 || '-msg-' || i || '-' || q, 'roomId', $1 || '-' || i,
                'senderId', 'peer-' || $1 || '-' || i, 'by', 'user', 'type', 'TEXT', 'text', 'hola ' || q,
                'createdAt', now(), 'timestamp', 0)
       FROM generate_series(1, $2::int) AS i, generate_series(1, $3::int) AS q`,
      [prefix, ROOMS, PER_ROOM],
    );
    const socket = await live.h.connect(s.token);
    return { socket, roomIds: Array.from({ length: ROOMS }, (_, i) => `${prefix}-${i + 1}`) };
  }

  function emitSync(socket: ClientSocket, after: Record<string, number>): Promise<SyncAck> {
    const s = socket.timeout(120_000) as unknown as {
      emitWithAck(ev: string, arg: unknown): Promise<SyncAck>;
    };
    return s.emitWithAck('messages:sync', { after });
  }

  it("a pile of syncs does not hold up another user's send, and every one is answered", async () => {
    const { socket } = await crowdedUser();
    const other = await live.h.session(live.apiKey, `other-${randomUUID()}`);
    const otherSocket = await live.h.connect(other.token);

    const order: string[] = [];
    const syncs = Array.from({ length: FLOOD }, () =>
      emitSync(socket, {}).then((res) => {
        order.push(res.ok ? 'sync' : 'refused');
        return res;
      }),
    );
    // Sent after the pile: the other user's message is read behind it.
    const sent = sendText(otherSocket, other.botRoomId, 'no me hagas esperar').then((res) => {
      order.push('send');
      return res;
    });
    const [results, send] = await Promise.all([Promise.all(syncs), sent]);

    expect(send.ok).toBe(true);
    for (const res of results) {
      if (res.ok) continue;
      const error = (res as { error: ErrorBody }).error;
      expect(error.error.key).toBe('RATE_LIMITED');
      expect((error.data as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    }
    const served = order.filter((o) => o === 'sync').length;
    expect(served).toBeGreaterThan(0);
    // The send was answered before the user's syncs were all served: they took turns.
    const lastServed = order.lastIndexOf('sync');
    expect(order.indexOf('send'), order.join(',')).toBeLessThan(lastServed);
  }, 120_000);

  it('hands the latest page of a bounded number of rooms, every room, and the whole gap of a room it is asked about', async () => {
    const { socket, roomIds } = await crowdedUser();
    const asked = roomIds[ROOMS - 1]!; // the least recently active
    const res = await emitSync(socket, { [asked]: 1 });
    expect(res.ok).toBe(true);
    const { messages, rooms } = (res as { data: { messages: Message[]; rooms: Room[] } }).data;

    // Every room of the user, each with its summary.
    const ids = new Set(rooms.map((r) => r.id));
    for (const id of roomIds) expect(ids.has(id), id).toBe(true);
    const summary = rooms.find((r) => r.id === roomIds[ROOMS - 2]);
    expect(summary?.lastSeq).toBe(PER_ROOM);
    expect((summary?.lastMessage as { text?: string } | null)?.text).toBe(`hola ${PER_ROOM}`);

    // The room asked about: everything after seq 1, in order.
    expect(messages.filter((m) => m.roomId === asked).map((m) => m.seq)).toEqual(
      Array.from({ length: PER_ROOM - 1 }, (_, i) => i + 2),
    );
    // The others: the latest page of the most recently active rooms only.
    const pages = new Set(messages.filter((m) => m.roomId !== asked).map((m) => m.roomId));
    expect(pages.size).toBeLessThanOrEqual(SYNC_LATEST_ROOMS);
    expect(pages.has(roomIds[0]!)).toBe(true);
    expect(messages.length).toBeLessThanOrEqual(SYNC_LATEST_ROOMS * SYNC_LATEST_PAGE + PER_ROOM);
    // Oldest first within a room.
    const first = messages.filter((m) => m.roomId === roomIds[0]).map((m) => m.seq);
    expect(first).toEqual([...first].sort((a, b) => Number(a) - Number(b)));

    // The socket still works.
    const after = await emitAck(socket, 'room:read', { roomId: asked });
    expect(after.ok).toBe(true);
  }, 60_000);
});
