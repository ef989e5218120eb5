/**
 * The Messaging of server/context.ts: every message, whoever sends it (a
 * widget over the socket, a bot message, a room post, a campaign, the flow
 * runner), takes this one way: stored once by its id, numbered in its room,
 * broadcast to the room's sockets, and handed to the room's bot when a person
 * wrote it.
 */
import { randomUUID } from 'node:crypto';
import { letOthersRun, type Db, type Queryable } from '../store/db.ts';
import type { Messaging, NewMessageInput } from '../context.ts';
import type { Message, MessageStatus } from '../../types/index.ts';
import { MESSAGE_CONTENT_KEYS, sameFields } from '../../types/canonical-json.ts';
import { ApiError, validationFailed } from '../http/errors.ts';
import type { Hub } from './hub.ts';
import type { Rooms } from './rooms.ts';
import { mediaSentIn, uploadSent } from './media-rooms.ts';
import { toMessage, type MessageRow } from './store.ts';

/**
 * In a RETURNING list of an UPDATE of `messages` whose room is `$2`: the members
 * (company, user) who may not see the row (they joined a direct conversation
 * turned group after it), as `hidden`, null when none. They do not hear of its
 * status either: its id and who read it belong to the pair.
 */
const NOT_SHOWN_TO = `(SELECT json_agg(json_build_array(h.company_id, h.user_id)) FROM room_members h
    WHERE h.room_id = $2 AND h.since_seq >= messages.seq) AS hidden`;
interface StatusRow {
  id: string;
  hidden: [string, string][] | null;
}
const statusOf = (roomId: string, row: StatusRow, status: MessageStatus) => ({ roomId, id: row.id, status });

/** Called after a person's message is stored in a room that has a bot. */
export type BotHandler = (message: Message, room: { id: string; botId: string }) => void;

const PEOPLE = new Set(['user', 'client']);

/**
 * Who wrote a message, as unread counts and read marks see it: its sender when a
 * person or the room's bot wrote it; nobody for a post of the service (`charla`,
 * `company`), whatever `senderId` it names. A room post that names a member
 * (or the reader) is not that member's message: it counts unread for them too.
 */
const authorOf = (input: Pick<NewMessageInput, 'by' | 'senderId'>): string | null =>
  PEOPLE.has(input.by) || input.by === 'bot' ? input.senderId : null;

/** SQL: a row of `messages` was not written by the user in `param` (authorOf's rule, read from the stored body). */
export const notWrittenBy = (param: string): string =>
  `(sender_id <> ${param} OR body->>'by' NOT IN ('user', 'client', 'bot'))`;

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
      return {
        slug: need('slug'),
        description: input.description ?? '',
        eventPayload: input.eventPayload ?? {},
      };
    default:
      throw validationFailed({ '/type': 'is not a message type' });
  }
}

export interface LiveMessaging extends Messaging {
  /**
   * As Messaging's; `differs` when the id is taken by another message: one of
   * another room, or from another sender, or of another type or content (a
   * retry must repeat what it retries).
   */
  deliver(input: NewMessageInput): Promise<{ message: Message; duplicate: boolean; differs: boolean }>;
  readonly rooms: Rooms;
  /** The bot's turn after a person wrote; set by the flow runner. */
  onPersonMessage: BotHandler | null;
  /** Marks messages DELIVERED_USER (a recipient's widget showed them) and tells the room. */
  markSeen(roomId: string, viewerId: string, ids: string[]): Promise<number>;
}

/** A message waiting for its turn to be stored. */
interface Pending {
  id: string;
  input: NewMessageInput;
  body: Record<string, unknown>;
  status: MessageStatus;
  /** The widget upload it carries (noted in its room with it), or null. */
  upload: string | null;
  resolve: (r: { message: Message; duplicate: boolean }) => void;
  reject: (err: unknown) => void;
}

/** Most messages stored by one statement. */
export const WRITE_BATCH_MAX = 200;

const SELECT_STORED = 'SELECT id, room_id, seq, status, body FROM messages WHERE id = ANY($1)';

/**
 * One message: take the room's next number (the row lock orders concurrent
 * writers) unless the id is stored already, insert, and count it unread for
 * everyone else. A retry costs no number.
 */
const INSERT_ONE = `WITH r AS (
    UPDATE rooms SET last_seq = last_seq + 1, last_message_at = $4, updated_at = $4
    WHERE id = $2 AND NOT deleted AND NOT EXISTS (SELECT 1 FROM messages WHERE id = $1)
    RETURNING last_seq, bot_id
  ), m AS (
    INSERT INTO messages (id, room_id, seq, sender_id, status, body, created_at)
    SELECT $1, $2, r.last_seq, $3, $5, $6::jsonb, $4 FROM r
    ON CONFLICT (id) DO NOTHING RETURNING seq
  ), u AS (
    UPDATE room_members SET unread = unread + 1
    WHERE room_id = $2 AND user_id IS DISTINCT FROM $7 AND EXISTS (SELECT 1 FROM m)
  )
  SELECT $1 AS id, (SELECT seq FROM m) AS seq, (SELECT bot_id FROM r) AS bot_id`;

/**
 * Many messages in one statement (group commit): the same steps for a batch,
 * each room's numbers handed out in the batch's order.
 */
const INSERT_MANY = `WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb)
      AS x(id text, room_id text, sender_id text, author text, status text, body jsonb, created_at timestamptz, ord int)
  ), fresh AS (
    SELECT i.* FROM input i WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = i.id)
  ), counts AS (
    SELECT room_id, count(*)::int AS n, max(created_at) AS at FROM fresh GROUP BY room_id
  ), r AS (
    UPDATE rooms SET last_seq = rooms.last_seq + c.n, last_message_at = c.at, updated_at = c.at
    FROM counts c WHERE rooms.id = c.room_id AND NOT rooms.deleted
    RETURNING rooms.id, rooms.last_seq AS top, c.n, rooms.bot_id
  ), numbered AS (
    SELECT f.*, r.top - r.n + row_number() OVER (PARTITION BY f.room_id ORDER BY f.ord) AS seq, r.bot_id
    FROM fresh f JOIN r ON r.id = f.room_id
  ), m AS (
    INSERT INTO messages (id, room_id, seq, sender_id, status, body, created_at)
    SELECT id, room_id, seq, sender_id, status, body, created_at FROM numbered
    ON CONFLICT (id) DO NOTHING RETURNING id, seq
  ), u AS (
    UPDATE room_members rm SET unread = rm.unread + x.k
    FROM (
      SELECT n.room_id, o.user_id, count(*)::int AS k
      FROM numbered n JOIN m ON m.id = n.id
      JOIN room_members o ON o.room_id = n.room_id AND o.user_id IS DISTINCT FROM n.author
      GROUP BY n.room_id, o.user_id
    ) x
    WHERE rm.room_id = x.room_id AND rm.user_id = x.user_id
  )
  SELECT n.id, m.seq, n.bot_id FROM numbered n LEFT JOIN m ON m.id = n.id`;

interface WriteRow {
  id: string;
  seq: string | number | null;
  bot_id: string | null;
}

/** INSERT_ONE for this message. */
async function insertOne(
  db: Queryable,
  p: Pick<Pending, 'id' | 'input' | 'body' | 'status'>,
): Promise<WriteRow[]> {
  const at = p.body['createdAt'] as string;
  const params = [
    p.id,
    p.input.roomId,
    p.input.senderId,
    at,
    p.status,
    JSON.stringify(p.body),
    authorOf(p.input),
  ];
  return (await db.query<WriteRow>(INSERT_ONE, params)).rows;
}

/** INSERT_MANY for these messages, each room's numbers in this order. */
async function insertMany(
  db: Queryable,
  items: Array<Pick<Pending, 'id' | 'input' | 'body' | 'status'>>,
): Promise<WriteRow[]> {
  const input = items.map((p, ord) => ({
    id: p.id,
    room_id: p.input.roomId,
    sender_id: p.input.senderId,
    author: authorOf(p.input),
    status: p.status,
    body: p.body,
    created_at: p.body['createdAt'],
    ord,
  }));
  return (await db.query<WriteRow>(INSERT_MANY, [JSON.stringify(input)])).rows;
}

/** The rows an insert stored (the others were there already), by id. */
const storedRows = (rows: WriteRow[]) => new Map(rows.filter((r) => r.seq !== null).map((r) => [r.id, r]));

/**
 * The widget uploads the messages just stored (`stored`, by id) carry were sent in their rooms
 * (media-rooms.ts). Run in the transaction that stores them: a member who hears of one may have
 * its media signed afresh at once, and a failure here stores (and tells) nothing.
 */
async function noteUploads(
  tx: Queryable,
  items: Array<Pick<Pending, 'id' | 'input' | 'upload'>>,
  stored: Map<string, WriteRow>,
): Promise<void> {
  for (const { id, input, upload } of items) {
    if (!upload || !stored.has(id)) continue;
    await mediaSentIn(tx, upload, input.roomId, input.senderId, !PEOPLE.has(input.by));
    await uploadSent(tx, upload);
  }
}

/** PostgreSQL's deadlock and serialization failures: the statement may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);

async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 3 || typeof code !== 'string' || !RETRYABLE.has(code)) throw err;
    }
  }
}

/**
 * Stores messages one statement at a time, per process: while one statement
 * runs, new messages queue, and the next statement takes them all. Alone, a
 * message goes straight through; under load, the cost of a statement is
 * shared by many.
 */
class Writer {
  private queue: Pending[] = [];
  private busy = false;

  constructor(
    private readonly db: Db,
    private readonly done: (p: Pending, seq: number, botId: string | null) => void,
  ) {}

  push(p: Pending): void {
    this.queue.push(p);
    if (!this.busy) void this.drain();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.queue.length > 0) {
        // Let the event loop read what arrived meanwhile: it joins this batch.
        await letOthersRun();
        const batch = this.queue.splice(0, WRITE_BATCH_MAX);
        try {
          await this.write(batch);
        } catch {
          // Find the one at fault: each on its own.
          for (const p of batch) await this.write([p]).catch((err: unknown) => p.reject(err));
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    // The same id twice in one batch: the first is stored, the others are its retries.
    const first = new Map<string, Pending>();
    const later: Pending[] = [];
    for (const p of batch) {
      if (first.has(p.id)) later.push(p);
      else first.set(p.id, p);
    }
    const unique = [...first.values()];
    const insert = (db: Queryable) =>
      unique.length === 1 ? insertOne(db, unique[0] as Pending) : insertMany(db, unique);
    // Only a batch that carries uploads needs a transaction: its messages and their rooms' notes.
    const rows = await withRetry(() =>
      unique.some((p) => p.upload)
        ? this.db.transaction(async (tx) => {
            const written = await insert(tx);
            await noteUploads(tx, unique, storedRows(written));
            return written;
          })
        : insert(this.db),
    );
    const stored = storedRows(rows);
    const missing = unique.filter((p) => !stored.has(p.id)).map((p) => p.id);
    const before = new Map<string, Message>();
    if (missing.length > 0 || later.length > 0) {
      const ids = [...missing, ...later.map((p) => p.id)];
      const r = await this.db.query<MessageRow>(SELECT_STORED, [ids]);
      for (const row of r.rows) before.set(row.id, toMessage(row));
    }
    for (const p of unique) {
      const row = stored.get(p.id);
      if (row) {
        this.done(p, Number(row.seq), row.bot_id);
        continue;
      }
      // Stored before (a retry), or raced in from elsewhere, or no such room.
      const message = before.get(p.id);
      if (message) p.resolve({ message, duplicate: true });
      else p.reject(new ApiError('NOT_FOUND', { message: `No room ${p.input.roomId}.` }));
    }
    for (const p of later) {
      const message = before.get(p.id);
      if (message) p.resolve({ message, duplicate: true });
      else p.reject(new ApiError('NOT_FOUND', { message: `No room ${p.input.roomId}.` }));
    }
  }
}

/** A message about to be stored: its id, stored body and first status. */
interface Prepared {
  id: string;
  input: NewMessageInput;
  body: Record<string, unknown>;
  status: MessageStatus;
  /** The widget upload it carries, or null. */
  upload: string | null;
  /** Whether another member is connected: true/false here, or 'ask' the cluster after storing. */
  here: boolean | 'ask';
}

/** Ids of deliverAll's messages already used in another room (the transaction is rolled back). */
class Clash {
  constructor(
    readonly ids: string[],
    readonly conflict: string[],
  ) {}
}

/** What makes a message the same message when its id is sent again: who sent it, its type and content. */
const SAME_MESSAGE_KEYS = ['senderId', ...MESSAGE_CONTENT_KEYS];

// Key order aside: the stored copy comes back from JSON storage with its keys reordered.
const sameMessage = (stored: Message, body: Record<string, unknown>): boolean =>
  sameFields(stored, body, SAME_MESSAGE_KEYS);

/**
 * `mediaKeyOf`: the media key a message's address names, or null; a stored
 * message carrying one records the room it was sent in (media-rooms.ts, which
 * decides what that grants).
 */
export function createMessaging(
  db: Db,
  hub: Hub,
  rooms: Rooms,
  mediaKeyOf: (url: string) => string | null = () => null,
): LiveMessaging {
  function prepare(input: NewMessageInput): Prepared {
    const id = input.id ?? randomUUID();
    const fields = typeFields(input);
    // DELIVERED_CHANNEL on the web channel: when it is stored, the message
    // is pushed to an open widget connection of another member.
    // In a cluster, a member on another process is asked about after storing.
    const here = hub.otherMemberOnlineHere(input.roomId, authorOf(input) ?? '');
    const status: MessageStatus = here === true ? 'DELIVERED_CHANNEL' : 'DELIVERED';
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
    // Only widget uploads are noted: the bot's demo media (demo/) are every visitor's already.
    const key = typeof body['mediaUrl'] === 'string' ? mediaKeyOf(body['mediaUrl']) : null;
    const upload = key?.startsWith('widget/') ? key : null;
    return { id, input, body, status, upload, here };
  }
  /** A message just stored: broadcast it, and hand it to the room's bot when a person wrote it. */
  function announce(p: Pick<Prepared, 'input' | 'body' | 'status'>, seq: number, botId: string | null) {
    const message = { ...p.body, seq, status: p.status } as unknown as Message;
    hub.messageNew(message);
    const { input } = p;
    if (botId && PEOPLE.has(input.by) && input.senderId !== botId && messaging.onPersonMessage) {
      messaging.onPersonMessage(message, { id: input.roomId, botId });
    }
    return message;
  }
  const writer = new Writer(db, (p, seq, botId) => {
    p.resolve({ message: announce(p, seq, botId), duplicate: false });
  });
  /** A member connected to another process makes a stored message DELIVERED_CHANNEL (and the room hears of it). */
  async function upgradeIfOnlineElsewhere(message: Message): Promise<void> {
    try {
      if (!(await hub.otherMemberOnlineAnywhere(message.roomId, authorOf(message) ?? ''))) return;
      const r = await db.query<StatusRow>(
        `UPDATE messages SET status = 'DELIVERED_CHANNEL' WHERE id = $1 AND status = 'DELIVERED'
         RETURNING id, ${NOT_SHOWN_TO}`,
        [String(message.id), message.roomId],
      );
      for (const row of r.rows) hub.status(statusOf(message.roomId, row, 'DELIVERED_CHANNEL'), row.hidden);
    } catch {
      // A status that stays DELIVERED is still true.
    }
  }
  const messaging: LiveMessaging = {
    rooms,
    onPersonMessage: null,

    ensureBotRoom: (input) => rooms.ensureBotRoom(input).then((r) => ({ roomId: r.roomId })),

    async findRoom(roomId, senderId) {
      const r = await db.query<{
        id: string;
        company_id: string;
        type: string;
        bot_id: string | null;
        bot_name: string | null;
        sender_bot_name: string | null;
      }>(
        `SELECT r.id, r.company_id, r.type, r.bot_id, b.name AS bot_name, s.name AS sender_bot_name
           FROM rooms r LEFT JOIN bots b ON b.id = r.bot_id
           LEFT JOIN bots s ON s.id = $2 AND s.company_id = r.company_id
          WHERE r.id = $1 AND NOT r.deleted`,
        [roomId, senderId ?? null],
      );
      const row = r.rows[0];
      return row
        ? {
            id: row.id,
            companyId: row.company_id,
            type: row.type,
            botId: row.bot_id,
            botName: row.bot_name,
            senderBotName: row.sender_bot_name,
          }
        : null;
    },

    async deliver(input) {
      const { id, body, status, upload, here } = prepare(input);
      const result = await new Promise<{ message: Message; duplicate: boolean }>((resolve, reject) =>
        writer.push({ id, input, body, status, upload, resolve, reject }),
      );
      if (result.duplicate) {
        const { message } = result;
        return { ...result, differs: message.roomId !== input.roomId || !sameMessage(message, body) };
      }
      if (here === 'ask') void upgradeIfOnlineElsewhere(result.message);
      return { ...result, differs: false };
    },

    async deliverAll(roomId, inputs) {
      const prepared = inputs.map((input) => prepare({ ...input, roomId }));
      // The same id twice in one call: the first is stored, the others are its duplicates.
      const seen = new Set<string>();
      const firsts = prepared.filter((p) => !seen.has(p.id) && seen.add(p.id));
      const outcome = await withRetry(() =>
        db
          .transaction(async (tx) => {
            const stored = storedRows(await insertMany(tx, firsts));
            await noteUploads(tx, firsts, stored);
            const others = firsts.filter((p) => !stored.has(p.id)).map((p) => p.id);
            const before = new Map<string, Message>();
            if (others.length > 0) {
              for (const row of (await tx.query<MessageRow>(SELECT_STORED, [others])).rows)
                before.set(row.id, toMessage(row));
            }
            const clash = others.filter((id) => before.has(id) && before.get(id)?.roomId !== roomId);
            const bodies = new Map(firsts.map((p) => [p.id, p.body]));
            const conflict = others.filter((id) => {
              const old = before.get(id);
              return old?.roomId === roomId && !sameMessage(old, bodies.get(id) ?? {});
            });
            // Rolled back: not one message of the call stays stored.
            if (clash.length > 0 || conflict.length > 0) throw new Clash(clash, conflict);
            if (others.some((id) => !before.has(id)))
              throw new ApiError('NOT_FOUND', {
                message: `Room ${roomId} does not exist.`,
                data: { roomId },
              });
            return { stored, before };
          })
          .catch((err: unknown) => {
            if (err instanceof Clash) return err;
            throw err;
          }),
      );
      if (outcome instanceof Clash) return { results: [], clash: outcome.ids, conflict: outcome.conflict };
      const { stored, before } = outcome;
      const fresh = new Map<string, Message>();
      for (const p of firsts) {
        const row = stored.get(p.id);
        if (!row) continue;
        const message = announce(p, Number(row.seq), row.bot_id);
        fresh.set(p.id, message);
        if (p.here === 'ask') void upgradeIfOnlineElsewhere(message);
      }
      const isFirst = new Set(firsts);
      const results = prepared.map((p) => {
        const message = fresh.get(p.id);
        // Fresh only for the first occurrence of its id; any later one is its duplicate.
        if (message && isFirst.has(p)) return { message, duplicate: false };
        return { message: message ?? (before.get(p.id) as Message), duplicate: true };
      });
      return { results, clash: [], conflict: [] };
    },

    async markSeen(roomId, viewerId, ids) {
      if (ids.length === 0) return 0;
      // Only what the viewer may see: one who joined a direct conversation turned group cannot mark the pair's part.
      const r = await db.query<StatusRow>(
        `UPDATE messages SET status = 'DELIVERED_USER'
         WHERE room_id = $2 AND id = ANY($1) AND ${notWrittenBy('$3')} AND status IN ('DELIVERED', 'DELIVERED_CHANNEL')
           AND seq > (SELECT COALESCE(max(v.since_seq), 0) FROM room_members v WHERE v.room_id = $2 AND v.user_id = $3)
         RETURNING id, ${NOT_SHOWN_TO}`,
        [ids, roomId, viewerId],
      );
      for (const row of r.rows) hub.status(statusOf(roomId, row, 'DELIVERED_USER'), row.hidden);
      return r.rows.length;
    },
  };
  return messaging;
}
