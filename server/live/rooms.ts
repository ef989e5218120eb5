/**
 * Writing rooms and members: bot rooms, direct rooms, joins and leaves. Every
 * change that concerns connected widgets goes through the Hub.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../store/db.ts';
import type { MemberType } from '../../types/index.ts';
import { ApiError } from '../http/errors.ts';
import type { Hub } from './hub.ts';
import { loadMember, loadMembers, loadRoom } from './store.ts';

export interface MemberInput {
  userId: string;
  names?: string | null | undefined;
  memberType?: MemberType;
  botId?: string | null;
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
     ON CONFLICT (company_id, id) DO UPDATE SET names = ${givenByOther ? 'COALESCE(live_users.names, EXCLUDED.names)' : 'COALESCE(EXCLUDED.names, live_users.names)'},
       updated_at = CASE WHEN EXCLUDED.names IS DISTINCT FROM live_users.names AND EXCLUDED.names IS NOT NULL
                         ${givenByOther ? 'AND live_users.names IS NULL ' : ''}THEN now() ELSE live_users.updated_at END`,
    [companyId, userId, names ?? null],
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

  /** The room of a bot and a user, created on first need with both as members. */
  async ensureBotRoom(input: { botId: string; userId: string; userNames?: string | undefined }) {
    const bot = await this.db.query<{ id: string; company_id: string; name: string }>(
      'SELECT id, company_id, name FROM bots WHERE id = $1',
      [input.botId],
    );
    const b = bot.rows[0];
    if (!b) throw new ApiError('NOT_FOUND', { message: `No bot ${input.botId}.` });
    if (input.userNames !== undefined) await upsertUser(this.db, b.company_id, input.userId, input.userNames);
    const names = input.userNames ?? (await knownNames(this.db, b.company_id, input.userId));
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

  /** The direct room of two users of a company: created once, found again afterwards. */
  async openDirect(
    companyId: string,
    a: { id: string; names?: string | null },
    b: { id: string; names?: string | null },
  ) {
    if (a.id === b.id)
      throw new ApiError('VALIDATION_ERROR', { message: 'A direct room needs two different users.' });
    const pair = [a.id, b.id].sort();
    const key =
      'direct:' +
      createHash('sha256')
        .update(JSON.stringify([companyId, ...pair]))
        .digest('hex');
    if (b.names) await upsertUser(this.db, companyId, b.id, b.names, true);
    const namesA = a.names ?? (await knownNames(this.db, companyId, a.id));
    const namesB = await knownNames(this.db, companyId, b.id);
    const result = await findOrCreate(this.db, key, { companyId, botId: null, type: 'direct', name: '' }, [
      { userId: a.id, names: namesA },
      { userId: b.id, names: namesB },
    ]);
    if (result.created) await this.announceNewRoom(result.roomId, [a.id, b.id]);
    else {
      // The pair's room is made once: one of them who left it comes back in (and sees what is said from now on).
      for (const [id, names] of [
        [a.id, namesA],
        [b.id, namesB],
      ] as const) {
        if (!(await loadMember(this.db, result.roomId, id)))
          await this.addMember(result.roomId, { userId: id, names });
      }
    }
    return result;
  }

  /**
   * Adds a member (a no-op when already one). A third person in a direct room
   * makes it a group: the pair's next openRoomWithUser gets a new direct room.
   */
  async addMember(roomId: string, input: MemberInput): Promise<{ added: boolean }> {
    const room = await this.db.query<{ company_id: string; type: string }>(
      'SELECT company_id, type FROM rooms WHERE id = $1 AND NOT deleted',
      [roomId],
    );
    const r = room.rows[0];
    if (!r) throw new ApiError('NOT_FOUND', { message: `No room ${roomId}.` });
    if (input.names) await upsertUser(this.db, r.company_id, input.userId, input.names, true);
    const names = await knownNames(this.db, r.company_id, input.userId);
    let grouped = false;
    const added = await this.db.transaction(async (tx) => {
      if (r.type === 'direct') {
        // A third person is about to make it a group: the pair's messages so far stay theirs.
        await tx.query(
          `UPDATE rooms SET private_until_seq = last_seq WHERE id = $1 AND type = 'direct'
             AND NOT EXISTS (SELECT 1 FROM room_members WHERE room_id = $1 AND user_id = $2)`,
          [roomId, input.userId],
        );
      }
      const ok = await insertMember(tx, roomId, r.company_id, { ...input, names });
      if (ok && r.type === 'direct') {
        const became = await tx.query(
          `UPDATE rooms SET type = 'group', room_key = NULL, updated_at = now()
           WHERE id = $1 AND (SELECT count(*) FROM room_members WHERE room_id = $1) > 2`,
          [roomId],
        );
        grouped = became.rowCount > 0;
      } else if (ok) {
        await tx.query('UPDATE rooms SET updated_at = now() WHERE id = $1', [roomId]);
      }
      return ok;
    });
    if (added) {
      const member = await loadMember(this.db, roomId, input.userId);
      if (member) this.hub.memberJoined(roomId, member);
      // A direct room made a group changes its type and name for everyone in it, not only for the newcomer.
      const told = grouped ? (await loadMembers(this.db, roomId)).map((m) => m.referenceId) : [input.userId];
      for (const userId of told) {
        const room = await loadRoom(this.db, roomId, userId);
        if (room) this.hub.roomUpdated(userId, room);
      }
    }
    return { added };
  }

  async removeMember(roomId: string, userId: string): Promise<{ removed: boolean }> {
    const member = await loadMember(this.db, roomId, userId);
    if (!member) return { removed: false };
    await this.db.query('DELETE FROM room_members WHERE room_id = $1 AND user_id = $2', [roomId, userId]);
    await this.db.query('UPDATE rooms SET updated_at = now() WHERE id = $1', [roomId]);
    this.hub.memberLeft(roomId, member);
    return { removed: true };
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
