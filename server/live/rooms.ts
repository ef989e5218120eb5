/**
 * Writing rooms and members: bot rooms, direct rooms, joins and leaves. Every
 * change that concerns connected widgets goes through the Hub.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../store/db.ts';
import type { MemberType } from '../../types/index.ts';
import { ApiError, validationFailed } from '../http/errors.ts';
import type { Hub } from './hub.ts';
import type { Identity } from './session.ts';
import { loadMember, loadMembers, loadRoom } from './store.ts';

export interface MemberInput {
  userId: string;
  names?: string | null | undefined;
  memberType?: MemberType;
  botId?: string | null;
}

/** The ids of the company's bots (they are few). */
export async function botIdsOf(db: Queryable, companyId: string): Promise<Set<string>> {
  const found = await db.query<{ id: string }>('SELECT id FROM bots WHERE company_id = $1', [companyId]);
  return new Set(found.rows.map((r) => r.id));
}

/**
 * Refuses ids that are bots' of the company (400 naming each field): a person (a session's user,
 * a contact, a member, a recipient) is never a bot. The bot is a member of each of its rooms
 * under its own id, so a user by that id would be in all of them, reading and writing every
 * visitor's conversation. `pathOf(i)` names the field of `ids[i]`, made only for a bot's id: the
 * company's bots are read once and compared here, however many ids (a campaign's 100,000).
 */
export async function refuseBotIds(
  db: Queryable,
  companyId: string,
  ids: readonly string[],
  pathOf: (index: number) => string,
): Promise<void> {
  const bots = await botIdsOf(db, companyId);
  if (bots.size === 0) return;
  const problems: Record<string, string> = {};
  ids.forEach((id, i) => {
    if (bots.has(id)) problems[pathOf(i)] = 'is a bot’s id: a person cannot have it';
  });
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
}

/**
 * Remembers a user's names per company. The user's own session gives them (and may change them);
 * names another member gives with a contact (openRoomWithUser, addMember) only fill a gap: a
 * peer cannot rename someone who named themselves, in new rooms or under the messages they send.
 */
export async function upsertUser(
  db: Queryable,
  companyId: string,
  userId: string,
  names?: string | null,
  givenByOther = false,
): Promise<void> {
  await db.query(
    `INSERT INTO live_users (company_id, id, names) VALUES ($1, $2, $3)
     ON CONFLICT (company_id, id) DO UPDATE SET ${namesUpdate(givenByOther)}`,
    [companyId, userId, names ?? null],
  );
}

/** The SET of upsertUser's conflict branch: the names (see upsertUser for whose win) and when they changed. */
function namesUpdate(givenByOther: boolean): string {
  return `names = ${givenByOther ? 'COALESCE(live_users.names, EXCLUDED.names)' : 'COALESCE(EXCLUDED.names, live_users.names)'},
       updated_at = CASE WHEN EXCLUDED.names IS DISTINCT FROM live_users.names AND EXCLUDED.names IS NOT NULL
                         ${givenByOther ? 'AND live_users.names IS NULL ' : ''}THEN now() ELSE live_users.updated_at END`;
}

/**
 * The user of a session being opened, written as upsertUser writes the user's own names, in one
 * statement with the identity check: a verified user id (one that opened a session proven by its
 * userHash on a widget that verifies identities) is written only by a session that proved it too;
 * otherwise nothing is written (its names stay) and null is answered. A proven session on a
 * widget that verifies identities makes the user id verified. Answers the user's names as
 * stored (the given ones, or those known before when none were given).
 */
export async function claimSessionUser(
  db: Queryable,
  companyId: string,
  userId: string,
  names: string | null,
  identity: Identity,
): Promise<{ names: string | null; newlyVerified: boolean } | null> {
  const verify = identity.verifies && identity.proven;
  const r = await db.query<{ names: string | null; was_verified: boolean | null }>(
    `WITH prior AS (SELECT verified FROM live_users WHERE company_id = $1 AND id = $2)
     INSERT INTO live_users (company_id, id, names, verified) VALUES ($1, $2, $3, $4::boolean)
     ON CONFLICT (company_id, id) DO UPDATE SET ${namesUpdate(false)},
       verified = live_users.verified OR EXCLUDED.verified
     WHERE NOT live_users.verified OR $5::boolean
     RETURNING live_users.names, (SELECT verified FROM prior) AS was_verified`,
    [companyId, userId, names, verify, identity.proven],
  );
  const row = r.rows[0];
  return row ? { names: row.names, newlyVerified: verify && row.was_verified !== true } : null;
}

/**
 * Whether the user is one of the two a bot room is made of: its own user (the room's key is
 * `bot:<botId>:<userId>`) or its bot. Neither can be taken out of it; a person added beside them
 * (an operator, say) is a member like in any room. False for any other room.
 */
export async function keepsBotRoom(db: Queryable, roomId: string, userId: string): Promise<boolean> {
  const r = await db.query(
    `SELECT 1 FROM rooms WHERE id = $1 AND type = 'bot'
       AND (bot_id = $2 OR room_key = 'bot:' || bot_id || ':' || $2)`,
    [roomId, userId],
  );
  return r.rows.length > 0;
}

/** The advisory lock (its first key) under which one room's member changes take turns. */
const MEMBERS_LOCK = 7436202;

/** Waits for, and holds until the transaction ends, the turn of `roomId`'s member changes. */
async function lockMembers(tx: Queryable, roomId: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [MEMBERS_LOCK, roomId]);
}

/** A room's members limit, checked as members are added: past `max`, 400 naming `at`. */
export interface MembersCap {
  max: number;
  at: string;
}

/** The room_key of two users' direct room: a hash of the company and the sorted pair. */
function directKey(companyId: string, a: string, b: string): string {
  return (
    'direct:' +
    createHash('sha256')
      .update(JSON.stringify([companyId, ...[a, b].sort()]))
      .digest('hex')
  );
}

async function knownNames(db: Queryable, companyId: string, userId: string): Promise<string | null> {
  const r = await db.query<{ names: string | null }>(
    'SELECT names FROM live_users WHERE company_id = $1 AND id = $2',
    [companyId, userId],
  );
  return r.rows[0]?.names ?? null;
}

async function insertMember(
  tx: Queryable,
  roomId: string,
  companyId: string,
  m: MemberInput,
): Promise<boolean> {
  const r = await tx.query(
    `INSERT INTO room_members (room_id, user_id, id, names, member_type, bot_id, company_id, since_seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE((SELECT private_until_seq FROM rooms WHERE id = $1), 0))
     ON CONFLICT (room_id, user_id) DO NOTHING`,
    [roomId, m.userId, randomUUID(), m.names ?? null, m.memberType ?? 'Client', m.botId ?? null, companyId],
  );
  return r.rowCount > 0;
}

/** Finds a room by its key, or creates it with its first members. Returns whether it was created. */
async function findOrCreate(
  db: Db,
  key: string,
  room: { companyId: string; botId: string | null; type: string; name: string },
  members: MemberInput[],
): Promise<{ roomId: string; created: boolean }> {
  const found = await db.query<{ id: string }>('SELECT id FROM rooms WHERE room_key = $1', [key]);
  if (found.rows[0]) return { roomId: found.rows[0].id, created: false };
  const id = randomUUID();
  const created = await db.transaction(async (tx) => {
    const r = await tx.query(
      `INSERT INTO rooms (id, company_id, bot_id, type, name, room_key) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (room_key) DO NOTHING`,
      [id, room.companyId, room.botId, room.type, room.name, key],
    );
    if (r.rowCount === 0) return false;
    for (const m of members) await insertMember(tx, id, room.companyId, m);
    return true;
  });
  if (created) return { roomId: id, created: true };
  // Another request created it between our look and our insert.
  const again = await db.query<{ id: string }>('SELECT id FROM rooms WHERE room_key = $1', [key]);
  if (!again.rows[0]) throw new Error('room vanished');
  return { roomId: again.rows[0].id, created: false };
}

export class Rooms {
  constructor(
    private readonly db: Db,
    private readonly hub: Hub,
  ) {}

  /**
   * The room of a bot and a user, created on first need with both as members. `storedNames`: the
   * caller has just written the user (a session opening, claimSessionUser), and these are the names
   * stored; the user is neither written nor read again.
   */
  async ensureBotRoom(input: {
    botId: string;
    userId: string;
    userNames?: string | undefined;
    storedNames?: string | null;
  }) {
    const bot = await this.db.query<{ id: string; company_id: string; name: string }>(
      'SELECT id, company_id, name FROM bots WHERE id = $1',
      [input.botId],
    );
    const b = bot.rows[0];
    if (!b) throw new ApiError('NOT_FOUND', { message: `No bot ${input.botId}.` });
    let names: string | null;
    if (input.storedNames !== undefined) names = input.storedNames;
    else {
      if (input.userNames !== undefined)
        await upsertUser(this.db, b.company_id, input.userId, input.userNames);
      names = input.userNames ?? (await knownNames(this.db, b.company_id, input.userId));
    }
    const members: MemberInput[] = [
      { userId: input.userId, names, memberType: 'Client' },
      { userId: b.id, names: b.name, memberType: 'Charla', botId: b.id },
    ];
    const result = await findOrCreate(
      this.db,
      `bot:${b.id}:${input.userId}`,
      { companyId: b.company_id, botId: b.id, type: 'bot', name: '' },
      members,
    );
    // A bot room keeps its two members (leaving one is refused); one stored without them is mended.
    if (!result.created) for (const m of members) await insertMember(this.db, result.roomId, b.company_id, m);
    if (result.created) {
      await this.announceNewRoom(result.roomId, [input.userId]);
    } else if (input.userNames !== undefined) {
      await this.db.query(
        'UPDATE room_members SET names = $3 WHERE room_id = $1 AND user_id = $2 AND names IS DISTINCT FROM $3',
        [result.roomId, input.userId, input.userNames],
      );
    }
    return result;
  }

  /**
   * The direct room of two users of a company (`a` the caller): created once, found again
   * afterwards. A caller the other took out of it is refused (403) until brought back.
   */
  async openDirect(
    companyId: string,
    a: { id: string; names?: string | null },
    b: { id: string; names?: string | null },
  ) {
    if (a.id === b.id)
      throw new ApiError('VALIDATION_ERROR', { message: 'A direct room needs two different users.' });
    const key = directKey(companyId, a.id, b.id);
    if (b.names) await upsertUser(this.db, companyId, b.id, b.names, true);
    const namesA = a.names ?? (await knownNames(this.db, companyId, a.id));
    const namesB = await knownNames(this.db, companyId, b.id);
    const make = () =>
      findOrCreate(this.db, key, { companyId, botId: null, type: 'direct', name: '' }, [
        { userId: a.id, names: namesA },
        { userId: b.id, names: namesB },
      ]);
    let result = await make();
    // Stored before a newcomer made such a room a group (see addMember): it becomes one now.
    if (!result.created && (await this.groupIfNotPair(result.roomId, key, [a.id, b.id])))
      result = await make();
    if (result.created) await this.announceNewRoom(result.roomId, [a.id, b.id]);
    else {
      // Taken out by the other, the caller does not come back by opening the room themselves (as
      // with joinRoom): the other's openRoomWithUser, or an addMember, brings them back.
      const away: { userId: string; names: string | null | undefined }[] = [];
      for (const [userId, names] of [
        [a.id, namesA],
        [b.id, namesB],
      ] as const)
        if (!(await loadMember(this.db, result.roomId, userId))) away.push({ userId, names });
      if (away[0]?.userId === a.id && (await this.wasRemoved(result.roomId, a.id)))
        throw new ApiError('FORBIDDEN', {
          message: 'You were removed from this room; a member can add you back.',
          data: { roomId: result.roomId },
        });
      // The pair's room is made once: one of them who left it comes back in (and sees what is said from now on).
      for (const member of away) await this.addMember(result.roomId, member);
    }
    return result;
  }

  /**
   * Adds a member (a no-op when already one), and lifts a removal by another
   * member (see removeMember). Anyone but its pair in a direct room makes it a
   * group (a third member, or someone else beside the one who stayed): what
   * was said before stays the pair's, and the pair key is released, so the
   * pair's next openRoomWithUser makes a new direct room.
   */
  async addMember(roomId: string, input: MemberInput, cap?: MembersCap): Promise<{ added: boolean }> {
    const [added = false] = await this.addMembers(roomId, [input], cap);
    return { added };
  }

  /**
   * Adds members as addMember does, in one transaction: with `cap`, a list that would take the room
   * past `cap.max` members adds nobody (400 naming `cap.at`), however many adds run at once on
   * however many processes. Whether each was added, in order.
   */
  async addMembers(roomId: string, inputs: MemberInput[], cap?: MembersCap): Promise<boolean[]> {
    let grouped = false;
    const added = await this.db.transaction(async (tx) => {
      // Changes of one room's members take turns (each counts what the one before it added), on a
      // lock of their own: messages to the room go on meanwhile, its row is written at the end.
      await lockMembers(tx, roomId);
      const room = await tx.query<{ company_id: string; type: string; room_key: string | null }>(
        'SELECT company_id, type, room_key FROM rooms WHERE id = $1 AND NOT deleted',
        [roomId],
      );
      const r = room.rows[0];
      if (!r) throw new ApiError('NOT_FOUND', { message: `No room ${roomId}.` });
      const present = (
        await tx.query<{ user_id: string }>('SELECT user_id FROM room_members WHERE room_id = $1', [roomId])
      ).rows.map((m) => m.user_id);
      if (cap) {
        const coming = new Set(inputs.map((m) => m.userId).filter((id) => !present.includes(id))).size;
        if (present.length + coming > cap.max)
          throw validationFailed({
            [cap.at]: `would take the room past ${cap.max} members (it has ${present.length})`,
          });
      }
      // The names given, in the order of the users' ids: two lists naming the same people (in two
      // rooms at once) never wait for each other's rows crosswise.
      const named = inputs
        .filter((m) => m.names)
        .sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
      for (const input of named) await upsertUser(tx, r.company_id, input.userId, input.names, true);
      const done: boolean[] = [];
      let type = r.type;
      for (const input of inputs) {
        const names = await knownNames(tx, r.company_id, input.userId);
        await tx.query('DELETE FROM room_removals WHERE room_id = $1 AND user_id = $2', [
          roomId,
          input.userId,
        ]);
        let makesGroup = false;
        if (type === 'direct' && !present.includes(input.userId)) {
          // An empty direct room is refilled only by openRoomWithUser, with its pair.
          makesGroup =
            present.length > 0 &&
            !present.some((m) => directKey(r.company_id, m, input.userId) === r.room_key);
          // A newcomer sees what is said from now on: the pair's messages so far stay theirs.
          await tx.query('UPDATE rooms SET private_until_seq = last_seq WHERE id = $1', [roomId]);
        }
        const ok = await insertMember(tx, roomId, r.company_id, { ...input, names });
        if (ok && makesGroup) {
          const became = await tx.query(
            `UPDATE rooms SET type = 'group', room_key = NULL, updated_at = now() WHERE id = $1 AND type = 'direct'`,
            [roomId],
          );
          if (became.rowCount > 0) [grouped, type] = [true, 'group'];
        }
        if (ok) present.push(input.userId);
        done.push(ok);
      }
      if (done.some(Boolean)) await tx.query('UPDATE rooms SET updated_at = now() WHERE id = $1', [roomId]);
      return done;
    });
    // Told once stored: each newcomer joins, and the room is news to them (to everyone, if it became a group).
    for (const [i, input] of inputs.entries()) {
      if (!added[i]) continue;
      const member = await loadMember(this.db, roomId, input.userId);
      if (member) this.hub.memberJoined(roomId, member);
      if (!grouped) {
        const room = await loadRoom(this.db, roomId, input.userId);
        if (room) this.hub.roomUpdated(input.userId, room);
      }
    }
    if (grouped) await this.tellMembers(roomId);
    return added;
  }

  /**
   * A direct room (found by the pair's key) that holds someone outside the
   * pair becomes the group it should have become; true when it did.
   */
  private async groupIfNotPair(roomId: string, key: string, pair: string[]): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE rooms SET type = 'group', room_key = NULL, updated_at = now()
       WHERE id = $1 AND room_key = $2 AND type = 'direct'
         AND EXISTS (SELECT 1 FROM room_members WHERE room_id = $1 AND user_id <> ALL($3))`,
      [roomId, key, pair],
    );
    if (r.rowCount === 0) return false;
    await this.tellMembers(roomId);
    return true;
  }

  /** A room's type and name changed for everyone in it: each member hears of it. */
  private async tellMembers(roomId: string): Promise<void> {
    for (const m of await loadMembers(this.db, roomId)) {
      const room = await loadRoom(this.db, roomId, m.referenceId);
      if (room) this.hub.roomUpdated(m.referenceId, room);
    }
  }

  /**
   * Takes a member out. Taken out by another member (`by`), the user may not
   * join the room again by themselves until a member adds them back
   * ({@link wasRemoved}); leaving by themselves leaves no such mark. A direct
   * room is marked too, though only a group can be joined by oneself: the
   * other's openRoomWithUser adds them back (lifting it; their own is 403), but a room someone
   * else is added to meanwhile becomes a group, and the mark keeps it closed
   * to the one who was taken out.
   */
  async removeMember(roomId: string, userId: string, by: string): Promise<{ removed: boolean }> {
    const member = await loadMember(this.db, roomId, userId);
    if (!member) return { removed: false };
    const removed = await this.db.transaction(async (tx) => {
      // Member changes of the room take turns (lockMembers), and the room's row comes before its
      // member's, as a message's insert takes them (in the other order the two could deadlock).
      await lockMembers(tx, roomId);
      await tx.query('SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE', [roomId]);
      const gone = await tx.query('DELETE FROM room_members WHERE room_id = $1 AND user_id = $2', [
        roomId,
        userId,
      ]);
      if (gone.rowCount === 0) return false;
      if (by !== userId) {
        await tx.query(
          `INSERT INTO room_removals (room_id, user_id, removed_by) VALUES ($1, $2, $3)
           ON CONFLICT (room_id, user_id) DO UPDATE SET removed_by = EXCLUDED.removed_by, created_at = now()`,
          [roomId, userId, by],
        );
      }
      await tx.query('UPDATE rooms SET updated_at = now() WHERE id = $1', [roomId]);
      return true;
    });
    if (removed) this.hub.memberLeft(roomId, member);
    return { removed };
  }

  /** Whether another member took the user out of the room (and no member has added them back since). */
  async wasRemoved(roomId: string, userId: string): Promise<boolean> {
    const r = await this.db.query('SELECT 1 FROM room_removals WHERE room_id = $1 AND user_id = $2', [
      roomId,
      userId,
    ]);
    return r.rows.length > 0;
  }

  /** Puts the users' sockets in a new room and tells them about it. */
  private async announceNewRoom(roomId: string, userIds: string[]): Promise<void> {
    if (!this.hub.io) return;
    for (const userId of userIds) {
      const room = await loadRoom(this.db, roomId, userId);
      if (!room) continue;
      this.hub.joinUser(room.company.id, userId, roomId);
      this.hub.roomUpdated(userId, room);
    }
  }
}
