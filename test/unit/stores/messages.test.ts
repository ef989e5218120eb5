import { describe, expect, it } from 'vitest';
import type { Message, Room } from '../../../types/index.ts';
import {
  applyStatus,
  completeUpTo,
  createStores,
  lastSeq,
  mergeContacts,
  patchUi,
  uniqueContacts,
  upsertMessages,
  upsertRooms,
  withMember,
  withoutMember,
} from '../../../src/stores/index.ts';

function msg(id: string, seq: number | undefined, extra: Partial<Message> = {}): Message {
  const m = {
    id,
    roomId: 'r1',
    senderId: 'u1',
    createdAt: '2026-01-01T00:00:00.000Z',
    timestamp: seq ?? 1e13,
    by: 'user',
    type: 'TEXT',
    status: seq === undefined ? 'CREATED' : 'DELIVERED',
    text: id,
    ...extra,
  } as Message;
  if (seq !== undefined) m.seq = seq;
  return m;
}

function room(id: string, lastMessageAt: string | null, extra: Partial<Room> = {}): Room {
  return {
    unread: 0,
    id,
    bot: null,
    type: 'direct',
    company: { id: 'c', name: 'C' },
    channel: 'web',
    deleted: false,
    members: ['u1'],
    avatarUrl: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    name: id,
    membersInfo: [],
    lastMessageAt,
    channelProvider: 'charla',
    ...extra,
  };
}

describe('messages of a room', () => {
  it('orders by sequence whatever order they arrive in, pending ones last', () => {
    const { list } = upsertMessages([], [msg('c', 3), msg('p', undefined), msg('a', 1), msg('b', 2)]);
    expect(list.map((m) => m.id)).toEqual(['a', 'b', 'c', 'p']);
  });

  it('keeps one entry per id when a message arrives twice', () => {
    const first = upsertMessages([], [msg('a', 1), msg('b', 2)]);
    const again = upsertMessages(first.list, [msg('b', 2), msg('a', 1)]);
    expect(again.list.map((m) => m.id)).toEqual(['a', 'b']);
    expect(again.added).toEqual([]);
    expect(again.changed).toBe(false);
    expect(again.list).toBe(first.list);
  });

  it('moves a pending copy into place when the stored copy arrives with its sequence', () => {
    const start = upsertMessages([], [msg('a', 1), msg('p', undefined), msg('c', 3)]).list;
    expect(start.map((m) => m.id)).toEqual(['a', 'c', 'p']);
    const { list, added } = upsertMessages(start, [msg('p', 2, { status: 'DELIVERED' })]);
    expect(list.map((m) => m.id)).toEqual(['a', 'p', 'c']);
    expect(list[1]?.status).toBe('DELIVERED');
    expect(added).toEqual([]);
  });

  it('never moves a status backwards', () => {
    const seen = upsertMessages([], [msg('a', 1, { status: 'DELIVERED_USER' })]).list;
    const older = upsertMessages(seen, [msg('a', 1, { status: 'DELIVERED' })]).list;
    expect(older[0]?.status).toBe('DELIVERED_USER');
    expect(applyStatus(older, 'a', 'DELIVERED_CHANNEL')).toBeNull();
    const failed = upsertMessages([], [msg('f', undefined, { status: 'FAILED' })]).list;
    const delivered = applyStatus(failed, 'f', 'DELIVERED');
    expect(delivered?.[0]?.status).toBe('DELIVERED');
    // A delivered message does not become FAILED.
    expect(applyStatus(delivered ?? [], 'f', 'FAILED', { code: 'E', key: 'K', description: 'd' })).toBeNull();
  });

  it('keeps the reason of a FAILED message and drops it once delivered', () => {
    const list = upsertMessages([], [msg('f', undefined)]).list;
    const failed = applyStatus(list, 'f', 'FAILED', {
      code: 'E0432',
      key: 'NOT_A_MEMBER',
      description: 'no',
    });
    expect(failed?.[0]).toMatchObject({ status: 'FAILED', error: { key: 'NOT_A_MEMBER' } });
    const ok = upsertMessages(failed ?? [], [msg('f', 7)]).list;
    expect(ok[0]?.status).toBe('DELIVERED');
    expect(ok[0]?.error).toBeUndefined();
  });

  it('gives the highest sequence held', () => {
    expect(lastSeq([])).toBeUndefined();
    expect(lastSeq(upsertMessages([], [msg('a', 4), msg('b', 9), msg('p', undefined)]).list)).toBe(9);
  });
});

describe('rooms and contacts', () => {
  it('upserts rooms by id, newest activity first, keeping fields', () => {
    const list = upsertRooms([], [room('old', '2026-01-01T00:00:00Z'), room('new', '2026-02-01T00:00:00Z')]);
    expect(list.map((r) => r.id)).toEqual(['new', 'old']);
    const again = upsertRooms(list, [room('old', '2026-03-01T00:00:00Z', { name: 'renamed' })]);
    expect(again.map((r) => r.id)).toEqual(['old', 'new']);
    expect(again[0]?.name).toBe('renamed');
  });

  it('adds and removes members of a room', () => {
    const member = {
      id: 'm2',
      referenceId: 'u2',
      roomId: 'r',
      botId: null,
      companyId: 'c',
      socketId: null,
      createdAt: '2026-01-01T00:00:00Z',
      memberType: 'Client' as const,
    };
    const r = withMember(room('r', null), member);
    expect(r.members).toEqual(['u1', 'u2']);
    expect(r.membersInfo).toHaveLength(1);
    expect(withMember(r, member).membersInfo).toHaveLength(1);
    const out = withoutMember(r, member);
    expect(out.members).toEqual(['u1']);
    expect(out.membersInfo).toEqual([]);
  });

  it('merges contacts by id, replacing in place', () => {
    const merged = mergeContacts([{ id: 1, names: 'a' }, { id: '2' }], [{ id: 1, names: 'A' }, { id: 3 }]);
    expect(merged).toEqual([{ id: 1, names: 'A' }, { id: '2' }, { id: 3 }]);
    expect(uniqueContacts([{ id: 1 }, { id: 1, names: 'x' }])).toEqual([{ id: 1, names: 'x' }]);
  });
});

describe('createStores', () => {
  it('derives the current room messages, history and unread total', () => {
    const { w, read, host } = createStores('en');
    expect(read.$language.get()).toBe('en');
    expect(read.$currentMessages.get()).toEqual([]);
    w.$messagesByRoom.set({ r1: [msg('a', 1)], r2: [msg('b', 1, { roomId: 'r2' })] });
    w.$currentRoomId.set('r2');
    expect(read.$currentMessages.get().map((m) => m.id)).toEqual(['b']);
    expect(read.$currentHistory.get()).toEqual({ loading: false, hasMore: true });
    w.$unreadByRoom.set({ r1: 2, r2: 3 });
    expect(read.$unreadTotal.get()).toBe(5);
    expect(host.$unreadTotal.get()).toBe(5);
    expect(host.$open.get()).toBe(false);
    patchUi(w.$ui, { open: true });
    expect(host.$open.get()).toBe(true);
  });

  it("counts on the launcher the unread of the rooms a widget can open: a normal one's bot room and current room, every room on the home menu or a group widget", () => {
    const { w, read, host } = createStores();
    const config = { id: 'w1', properties: { type: 'normal' }, theme: {}, credentials: {}, config: {} };
    w.$config.set(config as never);
    w.$botRoomId.set('bot');
    w.$currentRoomId.set('bot');
    w.$unreadByRoom.set({ bot: 2, other: 3, third: 1 });
    expect(read.$launcherUnread.get()).toBe(2);
    expect(read.$reachableRooms.get()).toEqual(new Set(['bot']));
    expect(host.$unreadTotal.get()).toBe(6);
    w.$currentRoomId.set('other');
    expect(read.$launcherUnread.get()).toBe(5);
    w.$currentRoomId.set('bot');
    w.$homeShown.set(true);
    expect(read.$launcherUnread.get()).toBe(6);
    expect(read.$reachableRooms.get()).toBe('all');
    const group = createStores();
    group.w.$config.set({ ...config, properties: { type: 'group' } } as never);
    group.w.$botRoomId.set('bot');
    group.w.$unreadByRoom.set({ bot: 1, other: 4 });
    expect(group.read.$launcherUnread.get()).toBe(5);
  });

  it('makes separate stores for each instance', () => {
    const one = createStores();
    const two = createStores();
    one.w.$contacts.set([{ id: 1 }]);
    expect(two.read.$contacts.get()).toEqual([]);
  });

  it('patchUi reports whether anything changed', () => {
    const { w } = createStores();
    const before = w.$ui.get();
    expect(patchUi(w.$ui, { view: 'home' })).toBe(false);
    expect(w.$ui.get()).toBe(before);
    expect(patchUi(w.$ui, { view: 'chat' })).toBe(true);
  });
});

describe('completeUpTo', () => {
  it('counts up from what the last sync covered, stopping before the first message missing', () => {
    const held = [msg('a', 1), msg('b', 2), msg('c', 3), msg('e', 5), msg('p', undefined), msg('f', 6)];
    expect(completeUpTo(held, 2)).toBe(3);
    expect(completeUpTo(held, 3)).toBe(3);
    expect(completeUpTo(held, 5)).toBe(6);
    // Nothing held past it, or held below it only (older history): what the sync covered.
    expect(completeUpTo(held, 9)).toBe(9);
    expect(completeUpTo([], 4)).toBe(4);
    // No sync yet: the last held, as before.
    expect(completeUpTo(held, undefined)).toBe(6);
    expect(completeUpTo([], undefined)).toBeUndefined();
  });
});
