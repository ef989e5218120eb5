/**
 * The Messaging of server/context.ts: every message, whoever sends it (a
 * widget over the socket, a bot message, a room post, a campaign, the flow
 * runner), takes this one way: stored once by its id, numbered in its room,
 * broadcast to the room's sockets, and handed to the room's bot when a person
 * wrote it.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import type { Messaging, NewMessageInput } from '../context.ts';
import type { Message, MessageStatus } from '../../types/index.ts';
import { ApiError, validationFailed } from '../http/errors.ts';
import type { Hub } from './hub.ts';
import type { Rooms } from './rooms.ts';
import { toMessage, type MessageRow } from './store.ts';

/** Called after a person's message is stored in a room that has a bot. */
export type BotHandler = (message: Message, room: { id: string; botId: string }) => void;

const PEOPLE = new Set(['user', 'client']);

/** The type's own fields of a message; throws 400 when a required one is missing. */
function typeFields(input: NewMessageInput): Record<string, unknown> {
  const need = (field: keyof NewMessageInput) => {
    const v = input[field];
    if (v === undefined || v === null) throw validationFailed({ [`/${String(field)}`]: 'is required' });
    return v;
  };
  const opt = (out: Record<string, unknown>, field: keyof NewMessageInput) => {
    if (input[field] !== undefined) out[field] = input[field];
    return out;
  };
  switch (input.type) {
    case 'TEXT':
      return { text: need('text') };
    case 'IMAGE':
    case 'VIDEO':
    case 'DOCUMENT':
    case 'FILE':
      return opt({ mediaUrl: need('mediaUrl') }, 'caption');
    case 'AUDIO':
      return { mediaUrl: need('mediaUrl') };
    case 'LOCATION':
      return { lat: need('lat'), lng: need('lng') };
    case 'POSTBACK':
      return { text: need('text'), payload: input.payload ?? {} };
    case 'EVENT':
      return { slug: need('slug'), description: input.description ?? '', eventPayload: input.eventPayload ?? {} };
    default:
      throw validationFailed({ '/type': 'is not a message type' });
  }
}

export interface LiveMessaging extends Messaging {
  readonly rooms: Rooms;
  /** The bot's turn after a person wrote; set by the flow runner. */
  onPersonMessage: BotHandler | null;
  /** Marks messages DELIVERED_USER (a recipient's widget showed them) and tells the room. */
  markSeen(roomId: string, viewerId: string, ids: string[]): Promise<number>;
}

export function createMessaging(db: Db, hub: Hub, rooms: Rooms): LiveMessaging {
  const messaging: LiveMessaging = {
    rooms,
    onPersonMessage: null,

    ensureBotRoom: (input) => rooms.ensureBotRoom(input).then((r) => ({ roomId: r.roomId })),

    async findRoom(roomId) {
      const r = await db.query<{ id: string; company_id: string; bot_id: string | null }>(
        'SELECT id, company_id, bot_id FROM rooms WHERE id = $1 AND NOT deleted',
        [roomId],
      );
      const row = r.rows[0];
      return row ? { id: row.id, companyId: row.company_id, botId: row.bot_id } : null;
    },

    async deliver(input) {
      const id = input.id ?? randomUUID();
      const fields = typeFields(input);
      // DELIVERED_CHANNEL on the web channel: at the moment it is stored, the
      // message is pushed to an open widget connection of another member.
      const status: MessageStatus = (await hub.otherMemberOnline(input.roomId, input.senderId))
        ? 'DELIVERED_CHANNEL'
        : 'DELIVERED';
      const now = new Date();
      const body: Record<string, unknown> = {
        id,
        roomId: input.roomId,
        senderId: input.senderId,
        createdAt: now.toISOString(),
        timestamp: now.getTime(),
        by: input.by,
        type: input.type,
        ...fields,
      };
      if (input.senderNames !== undefined) body['senderNames'] = input.senderNames;
      if (input.options !== undefined) body['options'] = input.options;
      if (input.QuickReplies !== undefined) body['QuickReplies'] = input.QuickReplies;
      if (input.interactive !== undefined) body['interactive'] = input.interactive;

      // One statement: take the room's next number (the row lock orders
      // concurrent writers) unless the id is stored already, insert, and
      // count it unread for everyone else. A retry costs no number.
      let result;
      try {
        result = await db.query<{ room_seq: string | null; seq: string | null; bot_id: string | null }>(
          `WITH r AS (
             UPDATE rooms SET last_seq = last_seq + 1, last_message_at = $4, updated_at = $4
             WHERE id = $2 AND NOT deleted AND NOT EXISTS (SELECT 1 FROM messages WHERE id = $1)
             RETURNING last_seq, bot_id
           ), m AS (
             INSERT INTO messages (id, room_id, seq, sender_id, status, body, created_at)
             SELECT $1, $2, r.last_seq, $3, $5, $6::jsonb, $4 FROM r
             ON CONFLICT (id) DO NOTHING RETURNING seq
           ), u AS (
             UPDATE room_members SET unread = unread + 1
             WHERE room_id = $2 AND user_id <> $3 AND EXISTS (SELECT 1 FROM m)
           )
           SELECT (SELECT last_seq FROM r) AS room_seq, (SELECT seq FROM m) AS seq, (SELECT bot_id FROM r) AS bot_id`,
          [id, input.roomId, input.senderId, now.toISOString(), status, JSON.stringify(body)],
        );
      } catch (err) {
        // The same id raced in from another room or process: the stored copy wins.
        const again = await db.query<MessageRow>('SELECT id, room_id, seq, status, body FROM messages WHERE id = $1', [id]);
        if (again.rows[0]) return { message: toMessage(again.rows[0]), duplicate: true };
        throw err;
      }
      const row = result.rows[0];
      if (!row || row.room_seq === null || row.seq === null) {
        // Stored before (a retry), or raced in between, or no such room.
        const again = await db.query<MessageRow>('SELECT id, room_id, seq, status, body FROM messages WHERE id = $1', [id]);
        if (again.rows[0]) return { message: toMessage(again.rows[0]), duplicate: true };
        throw new ApiError('NOT_FOUND', { message: `No room ${input.roomId}.` });
      }
      const message = { ...body, seq: Number(row.seq), status } as unknown as Message;
      hub.messageNew(message);
      if (row.bot_id && PEOPLE.has(input.by) && input.senderId !== row.bot_id && messaging.onPersonMessage) {
        messaging.onPersonMessage(message, { id: input.roomId, botId: row.bot_id });
      }
      return { message, duplicate: false };
    },

    async markSeen(roomId, viewerId, ids) {
      if (ids.length === 0) return 0;
      const r = await db.query<{ id: string }>(
        `UPDATE messages SET status = 'DELIVERED_USER'
         WHERE room_id = $1 AND id = ANY($2) AND sender_id <> $3 AND status IN ('DELIVERED', 'DELIVERED_CHANNEL')
         RETURNING id`,
        [roomId, ids, viewerId],
      );
      for (const { id } of r.rows) hub.status({ roomId, id, status: 'DELIVERED_USER' });
      return r.rows.length;
    },
  };
  return messaging;
}
