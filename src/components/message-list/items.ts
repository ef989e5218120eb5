/**
 * What a message's row shows besides the message (a date separator above it,
 * its sender's name, tight grouping with the previous one), worked out from
 * its neighbour when the row renders. The list hands the virtualizer the
 * store's own array: opening a room of ten thousand messages or taking a
 * burst allocates nothing per message.
 */
import type { Message } from '../../../types/index.ts';
import { dayKey, messageDate } from '../shared/format.ts';

const dayCache = new WeakMap<Message, string>();
function dayOf(m: Message): string {
  let key = dayCache.get(m);
  if (key === undefined) {
    key = dayKey(messageDate(m));
    dayCache.set(m, key);
  }
  return key;
}

export function isOwn(m: Message, userId: string | null | undefined): boolean {
  return userId ? m.senderId === userId : m.by === 'user';
}

export interface RowInfo {
  /** Written by this widget's user. */
  own: boolean;
  /** Follows a message of the same sender on the same day. */
  grouped: boolean;
  /** Sender name shown (group rooms, others' messages, first of a run). */
  showSender: boolean;
  /** First message of its day: a date separator goes above it. */
  newDay: boolean;
}

export function rowInfo(
  messages: readonly Message[],
  index: number,
  userId: string | null,
  groupRoom: boolean,
): RowInfo {
  const m = messages[index]!;
  const prev = index > 0 ? messages[index - 1] : undefined;
  const newDay = !prev || dayOf(prev) !== dayOf(m);
  const own = isOwn(m, userId);
  const grouped =
    !newDay && !!prev && prev.type !== 'EVENT' && m.type !== 'EVENT' && prev.senderId === m.senderId;
  return { own, grouped, showSender: groupRoom && !own && !grouped, newDay };
}

/** Requests known to be answered (an answer never goes away). */
const answeredRequests = new WeakSet<Message>();

/**
 * Whether the contact_info_request at `index` has its answer (a POSTBACK whose
 * payload.replyTo is the request's id) later in the room. Only request rows
 * ask, when they render, so a room of ordinary messages costs nothing.
 */
export function isAnswered(messages: readonly Message[], index: number): boolean {
  const m = messages[index];
  if (!m || m.interactive?.kind !== 'contact_info_request') return false;
  if (answeredRequests.has(m)) return true;
  const id = String(m.id);
  for (let i = messages.length - 1; i > index; i--) {
    const a = messages[i]!;
    if (a.type === 'POSTBACK' && a.payload['replyTo'] === id) {
      answeredRequests.add(m);
      return true;
    }
  }
  return false;
}
