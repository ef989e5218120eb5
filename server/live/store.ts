/**
 * Reading rooms, members and messages into the interface's shapes. Writing
 * happens in messaging.ts (messages) and rooms.ts (rooms and members).
 */
import type { Queryable } from '../store/db.ts';
import type { Member, MemberType, Message, Room, RoomType } from '../../types/index.ts';

export interface RoomRow {
  id: string;
  company_id: string;
  company_name: string | null;
  bot_id: string | null;
  bot_name: string | null;
  bot_type: string | null;
  type: string;
  name: string;
  avatar_url: string | null;
  channel: string;
  channel_provider: string;
  deleted: boolean;
  last_seq: string | number | bigint;
  last_message_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  unread?: number | null;
}

export interface MemberRow {
  room_id: string;
  user_id: string;
  id: string;
  names: string | null;
  legal_id: string | null;
  member_type: string;
  bot_id: string | null;
  company_id: string;
  socket_id: string | null;
  unread: number;
  created_at: Date | string;
  room_type?: string;
  /** The room's last sequence number, read in the same statement as `unread`. */
  room_last_seq?: string | number | bigint;
}

export interface MessageRow {
  id: string;
  room_id: string;
  seq: string | number | bigint;
  status: string;
  body: Record<string, unknown> | string;
}

export const iso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();
const isoOrNull = (d: Date | string | null): string | null => (d === null ? null : iso(d));

export function toMessage(row: MessageRow): Message {
  const body = typeof row.body === 'string' ? (JSON.parse(row.body) as Record<string, unknown>) : row.body;
  return { ...body, seq: Number(row.seq), status: row.status } as unknown as Message;
}

export function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    legalId: row.legal_id,
    names: row.names,
    referenceId: row.user_id,
    roomId: row.room_id,
    groupRoomId: row.room_type === 'group' ? row.room_id : null,
    botId: row.bot_id,
    companyId: row.company_id,
    socketId: row.socket_id,
    createdAt: iso(row.created_at),
    memberType: row.member_type as MemberType,
  };
}

const ROOM_COLUMNS = `r.id, r.company_id, c.name AS company_name, r.bot_id, b.name AS bot_name, b.type AS bot_type,
  r.type, r.name, r.avatar_url, r.channel, r.channel_provider, r.deleted, r.last_seq, r.last_message_at,
  r.created_at, r.updated_at`;
const ROOM_FROM = `rooms r LEFT JOIN companies c ON c.id = r.company_id LEFT JOIN bots b ON b.id = r.bot_id`;
const MEMBER_COLUMNS = `m.room_id, m.user_id, m.id, m.names, m.legal_id, m.member_type, m.bot_id, m.company_id,
  m.socket_id, m.unread, m.created_at, r.type AS room_type, r.last_seq AS room_last_seq`;

/**
 * A room as `viewerId` sees it: its unread count, and for a direct room the
 * other person's names as its name.
 */
function toRoom(row: RoomRow, members: MemberRow[], lastMessage: Message | null, viewerId: string): Room {
  let name = row.name;
  if (!name && row.type === 'direct') {
    const other = members.find((m) => m.user_id !== viewerId);
    name = other?.names ?? other?.user_id ?? '';
  }
  if (!name && row.type === 'bot') name = row.bot_name ?? '';
  const mine = members.find((m) => m.user_id === viewerId);
  return {
    unread: mine?.unread ?? 0,
    id: row.id,
    bot: row.bot_id ? { id: row.bot_id, name: row.bot_name ?? '', type: row.bot_type ?? 'bot' } : null,
    type: row.type as RoomType,
    company: { id: row.company_id, name: row.company_name ?? '' },
    channel: row.channel,
    deleted: row.deleted,
    members: members.map((m) => m.user_id),
    avatarUrl: row.avatar_url,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    name,
    membersInfo: members.map(toMember),
    lastMessageAt: isoOrNull(row.last_message_at),
    channelProvider: row.channel_provider,
    lastMessage,
    // As the viewer's unread count was read (one statement, one snapshot): the messages it counts
    // are those up to it, so a widget holding a later one (come live meanwhile) counts that too.
    lastSeq: Number(mine?.room_last_seq ?? row.last_seq),
  };
}

/** Rooms by id, as `viewerId` sees them, in the order given. */
export async function loadRooms(db: Queryable, roomIds: string[], viewerId: string): Promise<Room[]> {
  if (roomIds.length === 0) return [];
  const [rooms, members, last] = await Promise.all([
    db.query<RoomRow>(`SELECT ${ROOM_COLUMNS} FROM ${ROOM_FROM} WHERE r.id = ANY($1)`, [roomIds]),
    db.query<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM room_members m JOIN rooms r ON r.id = m.room_id
       WHERE m.room_id = ANY($1) ORDER BY m.created_at, m.id`,
      [roomIds],
    ),
    // Each room's last message through the (room_id, seq) index, not a sort of all their messages.
    db.query<MessageRow>(
      `SELECT x.id, x.room_id, x.seq, x.status, x.body FROM unnest($1::text[]) AS a(room_id)
       LEFT JOIN room_members v ON v.room_id = a.room_id AND v.user_id = $2
       CROSS JOIN LATERAL (
         SELECT m.id, m.room_id, m.seq, m.status, m.body FROM messages m
         WHERE m.room_id = a.room_id AND m.seq > COALESCE(v.since_seq, 0)
         ORDER BY m.seq DESC LIMIT 1) x`,
      [roomIds, viewerId],
    ),
  ]);
  const byRoom = new Map<string, MemberRow[]>();
  for (const m of members.rows) {
    const list = byRoom.get(m.room_id) ?? [];
    list.push(m);
    byRoom.set(m.room_id, list);
  }
  const lastByRoom = new Map(last.rows.map((r) => [r.room_id, toMessage(r)]));
  const rowsById = new Map(rooms.rows.map((r) => [r.id, r]));
  const out: Room[] = [];
  for (const id of roomIds) {
    const row = rowsById.get(id);
    if (row) out.push(toRoom(row, byRoom.get(id) ?? [], lastByRoom.get(id) ?? null, viewerId));
  }
  return out;
}

export async function loadRoom(db: Queryable, roomId: string, viewerId: string): Promise<Room | null> {
  return (await loadRooms(db, [roomId], viewerId))[0] ?? null;
}

/** Every room of a user, most recently active first. */
export async function roomIdsOf(db: Queryable, userId: string, companyId: string): Promise<string[]> {
  return (await roomSeqsOf(db, userId, companyId)).map((r) => r.id);
}

export async function loadMembers(db: Queryable, roomId: string): Promise<Member[]> {
  const r = await db.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM room_members m JOIN rooms r ON r.id = m.room_id
     WHERE m.room_id = $1 ORDER BY m.created_at, m.id`,
    [roomId],
  );
  return r.rows.map(toMember);
}

export async function loadMember(db: Queryable, roomId: string, userId: string): Promise<Member | null> {
  const r = await db.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM room_members m JOIN rooms r ON r.id = m.room_id
     WHERE m.room_id = $1 AND m.user_id = $2`,
    [roomId, userId],
  );
  const row = r.rows[0];
  return row ? toMember(row) : null;
}

/** The room's company when `userId` is a member of it (and it is not deleted); null otherwise. */
export async function membership(
  db: Queryable,
  roomId: string,
  userId: string,
): Promise<{ companyId: string; type: string; botId: string | null } | null> {
  const r = await db.query<{ company_id: string; type: string; bot_id: string | null }>(
    `SELECT r.company_id, r.type, r.bot_id FROM room_members m JOIN rooms r ON r.id = m.room_id
     WHERE m.room_id = $1 AND m.user_id = $2 AND NOT r.deleted`,
    [roomId, userId],
  );
  const row = r.rows[0];
  return row ? { companyId: row.company_id, type: row.type, botId: row.bot_id } : null;
}

/**
 * The sequence after which the viewer `$2` may see room `$1`: one who joined a
 * direct conversation turned group sees only what came after the pair's part.
 * Uncorrelated, so it is looked up once per query, not per message.
 */
const SINCE_SEQ = `(SELECT COALESCE(max(v.since_seq), 0) FROM room_members v
    WHERE v.room_id = $1 AND v.user_id = $2)`;

/** The latest `limit` messages `viewerId` may see, or those before message `beforeId`; oldest first. */
export async function history(
  db: Queryable,
  roomId: string,
  viewerId: string,
  limit: number,
  beforeId?: string,
): Promise<Message[] | null> {
  let r;
  if (beforeId !== undefined) {
    // A message said before the viewer joined (a direct room's private past) is as unknown to
    // them as one that does not exist: the same 404, so its id tells them nothing.
    const anchor = await db.query<{ seq: string }>(
      `SELECT seq FROM messages WHERE id = $3 AND room_id = $1 AND seq > ${SINCE_SEQ}`,
      [roomId, viewerId, beforeId],
    );
    const seq = anchor.rows[0]?.seq;
    if (seq === undefined) return null;
    r = await db.query<MessageRow>(
      `SELECT id, room_id, seq, status, body FROM messages
       WHERE room_id = $1 AND seq > ${SINCE_SEQ} AND seq < $3 ORDER BY seq DESC LIMIT $4`,
      [roomId, viewerId, seq, limit],
    );
  } else {
    r = await db.query<MessageRow>(
      `SELECT id, room_id, seq, status, body FROM messages
       WHERE room_id = $1 AND seq > ${SINCE_SEQ} ORDER BY seq DESC LIMIT $3`,
      [roomId, viewerId, limit],
    );
  }
  return r.rows.reverse().map(toMessage);
}

/** A user's rooms with their last sequence, most recently active first. */
export async function roomSeqsOf(
  db: Queryable,
  userId: string,
  companyId: string,
): Promise<{ id: string; lastSeq: number }[]> {
  const r = await db.query<{ id: string; last_seq: string | number }>(
    `SELECT r.id, r.last_seq FROM room_members m JOIN rooms r ON r.id = m.room_id
     WHERE m.user_id = $1 AND r.company_id = $2 AND NOT r.deleted
     ORDER BY COALESCE(r.last_message_at, r.created_at) DESC, r.id`,
    [userId, companyId],
  );
  return r.rows.map((x) => ({ id: x.id, lastSeq: Number(x.last_seq) }));
}

/**
 * Many rooms' messages in a statement or two (not one per room), grouped by
 * room id, each oldest first: with `after` given for a room, what `viewerId`
 * may see after that sequence (at most `caps.gap`); without, the latest
 * `caps.page` it may see. Rooms the viewer is not a member of give nothing.
 */
export async function messagesOfRooms(
  db: Queryable,
  viewerId: string,
  rooms: { roomId: string; after?: number }[],
  caps: { gap: number; page: number },
): Promise<Map<string, Message[]>> {
  const out = new Map<string, Message[]>();
  if (rooms.length === 0) return out;
  const named = rooms.filter((r) => r.after !== undefined);
  const latest = rooms.filter((r) => r.after === undefined).map((r) => r.roomId);
  const [gaps, pages] = await Promise.all([
    named.length === 0
      ? null
      : db.query<MessageRow>(
          `SELECT x.id, x.room_id, x.seq, x.status, x.body
           FROM unnest($2::text[], $3::bigint[]) AS a(room_id, after_seq)
           JOIN room_members v ON v.room_id = a.room_id AND v.user_id = $1
           CROSS JOIN LATERAL (
             SELECT m.id, m.room_id, m.seq, m.status, m.body FROM messages m
             WHERE m.room_id = a.room_id AND m.seq > GREATEST(a.after_seq, v.since_seq)
             ORDER BY m.seq LIMIT $4) x`,
          [viewerId, named.map((r) => r.roomId), named.map((r) => r.after), caps.gap],
        ),
    latest.length === 0
      ? null
      : db.query<MessageRow>(
          `SELECT x.id, x.room_id, x.seq, x.status, x.body
           FROM unnest($2::text[]) AS a(room_id)
           JOIN room_members v ON v.room_id = a.room_id AND v.user_id = $1
           CROSS JOIN LATERAL (
             SELECT m.id, m.room_id, m.seq, m.status, m.body FROM messages m
             WHERE m.room_id = a.room_id AND m.seq > v.since_seq
             ORDER BY m.seq DESC LIMIT $3) x`,
          [viewerId, latest, caps.page],
        ),
  ]);
  for (const row of [...(gaps?.rows ?? []), ...(pages?.rows ?? [])]) {
    const list = out.get(row.room_id) ?? [];
    list.push(toMessage(row));
    out.set(row.room_id, list);
  }
  for (const list of out.values()) list.sort((a, b) => Number(a.seq) - Number(b.seq));
  return out;
}
