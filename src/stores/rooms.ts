/** Rooms of the user: upsert by id, newest activity first. */
import type { Member, Room } from '../../types/index.ts';

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
