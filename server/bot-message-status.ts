/**
 * GET /v1/bots/{botId}/messages/{messageId}: where a message the bot sent
 * stands now. The send result's messageId is "usable to track the message
 * status"; this is where it is tracked.
 */
import type { BotMessageStatus, MessageStatus } from '../types/index.ts';
import { ApiError } from './http/errors.ts';
import { storedId } from './http/validation.ts';
import type { Queryable } from './store/db.ts';

interface Row {
  id: string;
  room_id: string;
  status: MessageStatus;
  created_at: Date | string;
  room_key: string | null;
}

/**
 * The status of a message the bot sent in one of its rooms with a user, or
 * 404 NOT_FOUND: an unknown id, someone else's message (another bot's, the
 * user's, one posted into the room under another sender), and anything of
 * another company are answered alike. Two primary-key lookups (the message,
 * then its room). The user is the one the bot room's key names
 * (`bot:<botId>:<userId>`, server/live/rooms.ts): a person added beside them
 * is a member, not whom the room is with.
 */
export async function botMessageStatus(
  db: Queryable,
  companyId: string,
  botId: string,
  messageId: string,
): Promise<BotMessageStatus> {
  const id = storedId(messageId);
  const { rows } = await db.query<Row>(
    `SELECT m.id, m.room_id, m.status, m.created_at, r.room_key
       FROM messages m JOIN rooms r ON r.id = m.room_id
      WHERE m.id = $1 AND m.sender_id = $2 AND r.bot_id = $2 AND r.type = 'bot' AND r.company_id = $3`,
    [id, botId, companyId],
  );
  const row = rows[0];
  const prefix = `bot:${botId}:`;
  if (!row || !row.room_key?.startsWith(prefix)) {
    throw new ApiError('NOT_FOUND', {
      message: `Bot ${botId} sent no message ${messageId}.`,
      data: { botId, messageId },
    });
  }
  return {
    messageId: row.id,
    botId,
    roomId: row.room_id,
    userId: row.room_key.slice(prefix.length),
    status: row.status,
    createdAt: (row.created_at instanceof Date ? row.created_at : new Date(row.created_at)).toISOString(),
  };
}
