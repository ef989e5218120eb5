/**
 * Messages of a room: ordered by the service's sequence (pending ones, which
 * have none yet, last in send order), one entry per id whatever arrives twice,
 * and a status that never moves backwards.
 */
import { MESSAGE_STATUS_RANK, type MessageStatus } from '../../types/enums.ts';
import type { Message } from '../../types/index.ts';

/** Key of a message in maps (ids may be numbers on the wire). */
export const messageKey = (m: { id: string | number }): string => String(m.id);

/** Order: by seq; messages without one after, by timestamp. Stable for ties. */
export function compareMessages(a: Message, b: Message): number {
  const sa = a.seq ?? Number.POSITIVE_INFINITY;
  const sb = b.seq ?? Number.POSITIVE_INFINITY;
  if (sa !== sb) return sa < sb ? -1 : 1;
  return (a.timestamp ?? 0) - (b.timestamp ?? 0);
}

/** The status to keep when `incoming` meets `current`: never lower in rank. */
export function mergeStatus(current: MessageStatus, incoming: MessageStatus): MessageStatus {
  return MESSAGE_STATUS_RANK[incoming] >= MESSAGE_STATUS_RANK[current] ? incoming : current;
}

/** One message from two copies of it. */
export function mergeMessage(current: Message, incoming: Message): Message {
  const status = mergeStatus(current.status, incoming.status);
  const merged = { ...current, ...incoming, status } as Message;
  if (merged.seq === undefined && current.seq !== undefined) merged.seq = current.seq;
  if (status !== 'FAILED') delete merged.error;
  return merged;
}

export interface UpsertResult {
  list: Message[];
  /** Messages that were not held before. */
  added: Message[];
  changed: boolean;
}

/** Position of a message by id, searching from the newest end (where updates land). */
export function indexOfMessage(list: readonly Message[], id: string): number {
  for (let i = list.length - 1; i >= 0; i--) if (messageKey(list[i] as Message) === id) return i;
  return -1;
}

/**
 * Upserts messages into an ordered list, returning a new list when anything
 * changed. `has(id)`, when given, says whether the list holds an id (an
 * index kept by the caller), so a new message costs no search.
 */
export function upsertMessages(
  list: readonly Message[],
  incoming: readonly Message[],
  has?: (id: string) => boolean,
): UpsertResult {
  if (incoming.length === 0) return { list: list as Message[], added: [], changed: false };
  // Big batches (gap fill, history) use a full index; single messages search from the end.
  let index: Map<string, number> | null = null;
  if (!has && incoming.length > 8) {
    index = new Map();
    list.forEach((m, i) => index?.set(messageKey(m), i));
  }
  const next = list.slice();
  const added: Message[] = [];
  const addedKeys = new Set<string>();
  let changed = false;
  let needsSort = false;
  for (const m of incoming) {
    const key = messageKey(m);
    let at: number;
    if (index) at = index.get(key) ?? -1;
    else if (has && !has(key) && !addedKeys.has(key)) at = -1;
    else at = indexOfMessage(next, key);
    if (at < 0) {
      const last = next[next.length - 1];
      if (last && compareMessages(last, m) > 0) needsSort = true;
      index?.set(key, next.length);
      addedKeys.add(key);
      next.push(m);
      added.push(m);
      changed = true;
      continue;
    }
    const current = next[at] as Message;
    const merged = mergeMessage(current, m);
    if (shallowEqual(current, merged)) continue;
    if (merged.seq !== current.seq) needsSort = true;
    next[at] = merged;
    changed = true;
  }
  if (!changed) return { list: list as Message[], added, changed };
  if (needsSort) next.sort(compareMessages);
  return { list: next, added, changed };
}

/** Applies a status change to a held message; null when nothing changed. */
export function applyStatus(
  list: readonly Message[],
  id: string,
  status: MessageStatus,
  error?: Message['error'],
): Message[] | null {
  const at = indexOfMessage(list, id);
  if (at < 0) return null;
  const current = list[at] as Message;
  const nextStatus = mergeStatus(current.status, status);
  if (nextStatus === current.status && !(nextStatus === 'FAILED' && error && error !== current.error))
    return null;
  const updated = { ...current, status: nextStatus } as Message;
  if (nextStatus === 'FAILED' && error) updated.error = error;
  if (nextStatus !== 'FAILED') delete updated.error;
  const next = list.slice();
  next[at] = updated;
  return next;
}

/** Highest sequence number held, or undefined when none. */
export function lastSeq(list: readonly Message[]): number | undefined {
  for (let i = list.length - 1; i >= 0; i--) {
    const seq = list[i]?.seq;
    if (seq !== undefined) return seq;
  }
  return undefined;
}

/**
 * The sequence a room's held messages are complete up to, counting up from `base` (what the last
 * sync covered): the last one before the first one missing above it. Without a base, the last held.
 * A message can arrive ahead of earlier ones (the acknowledgement of one's own send before the
 * broadcast of another's): a sync from the last held would leave the ones between out for good.
 */
export function completeUpTo(list: readonly Message[], base: number | undefined): number | undefined {
  if (base === undefined) return lastSeq(list);
  const held = new Set<number>();
  for (const m of list) if (typeof m.seq === 'number' && m.seq > base) held.add(m.seq);
  let seq = base;
  while (held.has(seq + 1)) seq++;
  return seq;
}

function shallowEqual(a: object, b: object): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if ((a as Record<string, unknown>)[k] !== (b as Record<string, unknown>)[k]) return false;
  }
  return true;
}
