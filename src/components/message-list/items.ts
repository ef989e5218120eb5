/**
 * What a message's row shows besides the message (a date separator above it,
 * its sender's name, tight grouping with the previous one), worked out from
 * its neighbour when the row renders. The list hands the virtualizer the
 * store's own array: opening a room of ten thousand messages or taking a
 * burst allocates nothing per message.
 */
import type { Message, PostbackMessage, Room } from '../../../types/index.ts';
import { dayKey, messageDate } from '../shared/format.ts';
import { isOwn } from '../../util/own.ts';

export { isOwn };

const dayCache = new WeakMap<Message, string>();
function dayOf(m: Message): string {
  let key = dayCache.get(m);
  if (key === undefined) {
    key = dayKey(messageDate(m));
    dayCache.set(m, key);
  }
  return key;
}

export interface RowInfo {
  /** Written by this widget's user. */
  own: boolean;
  /** Follows a message of the same sender on the same day. */
  grouped: boolean;
  /** Sender name shown (others' messages, first of a run: in a group room, or not the counterpart's). */
  showSender: boolean;
  /** First message of its day: a date separator goes above it. */
  newDay: boolean;
}

/**
 * Whose messages are named above them: everyone's in a group room; in a room of two, all but the
 * counterpart's (its bot, the other person), whose the room is: a post of the business or of
 * another bot there would pass for theirs. Nobody's while the room is not known yet.
 */
export type Naming = 'everyone' | 'nobody' | { counterparts: ReadonlySet<string> };

export function namingIn(room: Room | undefined, userId: string | null): Naming {
  if (!room) return 'nobody';
  if (room.type === 'group' || room.members.length > 2) return 'everyone';
  const counterparts = new Set(room.members.filter((id) => id !== userId));
  if (room.bot) counterparts.add(room.bot.id);
  return { counterparts };
}

export function rowInfo(
  messages: readonly Message[],
  index: number,
  userId: string | null,
  naming: Naming,
): RowInfo {
  const m = messages[index]!;
  const prev = index > 0 ? messages[index - 1] : undefined;
  const newDay = !prev || dayOf(prev) !== dayOf(m);
  const own = isOwn(m, userId);
  const grouped =
    !newDay &&
    !!prev &&
    prev.type !== 'EVENT' &&
    m.type !== 'EVENT' &&
    prev.senderId === m.senderId &&
    prev.by === m.by;
  const named =
    naming === 'everyone' ||
    (naming !== 'nobody' &&
      (m.by === 'charla' || m.by === 'company' || !naming.counterparts.has(m.senderId)));
  return { own, grouped, showSender: named && !own && !grouped, newDay };
}

/** Asking messages whose answer is known (an answer never goes away). */
const answers = new WeakMap<Message, PostbackMessage>();

/**
 * The visitor's answer to the message at `index` when it asks for one (options, quick replies, a
 * call button, a contact_info_request): the POSTBACK whose payload.replyTo is its id, later in the
 * room. Only asking rows search, when they render, so a room of ordinary messages costs nothing;
 * the answer lives in the room, so a reload, another tab or a row made anew shows it too.
 */
export function answerOf(messages: readonly Message[], index: number): PostbackMessage | undefined {
  const m = messages[index];
  if (!m || !asks(m)) return undefined;
  const known = answers.get(m);
  if (known) return known;
  const id = String(m.id);
  for (let i = messages.length - 1; i > index; i--) {
    const a = messages[i]!;
    if (a.type === 'POSTBACK' && a.payload?.['replyTo'] === id) {
      answers.set(m, a);
      return a;
    }
  }
  return undefined;
}

function asks(m: Message): boolean {
  const kind = m.interactive?.kind;
  return (
    !!(m.options?.length || m.QuickReplies?.length) ||
    kind === 'voice_call' ||
    kind === 'contact_info_request'
  );
}
