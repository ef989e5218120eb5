/** Rooms of the user: upsert by id, newest activity first. */
import type { Contact, Member, Message, Room } from '../../types/index.ts';

/** Sort key: last activity, then creation. */
function activity(room: Room): string {
  return room.lastMessageAt ?? room.updatedAt ?? room.createdAt ?? '';
}

/** Upserts rooms (keeping fields the newer copy lacks) and orders by last activity. */
export function upsertRooms(list: readonly Room[], incoming: readonly Room[]): Room[] {
  const byId = new Map(list.map((r) => [r.id, r] as const));
  for (const room of incoming) {
    const current = byId.get(room.id);
    byId.set(room.id, current ? ({ ...current, ...room } as Room) : room);
  }
  return [...byId.values()].sort((a, b) =>
    activity(a) < activity(b) ? 1 : activity(a) > activity(b) ? -1 : 0,
  );
}

/** The room with a member added (or replaced, by id or referenceId). */
export function withMember(room: Room, member: Member): Room {
  const membersInfo = room.membersInfo.filter(
    (m) => m.id !== member.id && m.referenceId !== member.referenceId,
  );
  membersInfo.push(member);
  const members = room.members.includes(member.referenceId)
    ? room.members
    : [...room.members, member.referenceId];
  return { ...room, membersInfo, members };
}

/** The room without a member. */
export function withoutMember(room: Room, member: Member): Room {
  return {
    ...room,
    membersInfo: room.membersInfo.filter((m) => m.id !== member.id && m.referenceId !== member.referenceId),
    members: room.members.filter((id) => id !== member.referenceId && id !== member.id),
  };
}

/** The rooms with each stored message newer than their last one as their last (reordered); null when none is. */
export function withLastMessages(list: readonly Room[], messages: readonly Message[]): Room[] | null {
  const last = new Map(list.map((r) => [r.id, r.lastMessage ?? null] as const));
  const changed = new Set<string>();
  for (const m of messages) {
    const held = last.get(m.roomId);
    if (held === undefined || m.seq === undefined || m.seq <= (held?.seq ?? 0)) continue;
    last.set(m.roomId, m);
    changed.add(m.roomId);
  }
  if (changed.size === 0) return null;
  return upsertRooms(
    list,
    list
      .filter((r) => changed.has(r.id))
      .map((r) => {
        const m = last.get(r.id) as Message;
        return { ...r, lastMessage: m, lastMessageAt: m.createdAt };
      }),
  );
}

/**
 * The picture a room shows: its own; a direct room without one, the avatar the page gave the
 * other person among its contacts (the service keeps no picture of a person, and a direct room is
 * seen by both people, so each one's widget shows the other's).
 */
export function roomAvatar(
  room: Room | undefined,
  userId: string | null | undefined,
  contacts: readonly Contact[] | undefined,
): string | null | undefined {
  if (!room || room.avatarUrl || room.type !== 'direct') return room?.avatarUrl;
  const others = (room.membersInfo ?? []).filter((m) => m.referenceId !== userId);
  return others.length === 1 ? contacts?.find((c) => String(c.id) === others[0]!.referenceId)?.avatar : null;
}
