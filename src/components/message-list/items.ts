/**
 * Rows of the message list, built incrementally: a burst of incoming
 * messages appends rows instead of rebuilding ten thousand of them.
 */
import type { Message } from '../../../types/index.ts';
import { dayKey, messageDate } from '../shared/format.ts';

/** One row of the virtualized list: a date separator or a message. */
export type ListItem =
  | { kind: 'day'; key: string; date: Date }
  | { kind: 'message'; key: string; message: Message; own: boolean; grouped: boolean; showSender: boolean };

const dayCache = new WeakMap<Message, string>();
function dayOf(m: Message): string {
  let key = dayCache.get(m);
  if (key === undefined) {
    key = dayKey(messageDate(m));
    dayCache.set(m, key);
  }
  return key;
}

export function isOwn(m: Message, userId: string | null): boolean {
  return userId ? m.senderId === userId : (m.by as string) === 'user';
}

/** Rows for messages: a separator before each new day, sender names in group rooms, grouping of runs. */
export function buildItems(messages: readonly Message[], userId: string | null, groupRoom: boolean): ListItem[] {
  return new ItemsBuilder().build(messages, userId, groupRoom);
}

export class ItemsBuilder {
  private items: ListItem[] = [];
  private from: readonly Message[] = [];
  /** Index in `items` of each message's row, by position in `from`. */
  private rowOf: number[] = [];
  private userId: string | null = null;
  private group = false;
  private lastDay = '';
  private lastSender = '';

  /** The rows for `messages`, reusing the previous rows when `messages` only appended to or patched the last list. */
  build(messages: readonly Message[], userId: string | null, groupRoom: boolean): ListItem[] {
    if (messages === this.from && userId === this.userId && groupRoom === this.group) return this.items;
    const prev = this.from;
    const reusable = userId === this.userId && groupRoom === this.group && messages.length >= prev.length && prev.length > 0;
    if (reusable) {
      // A new array either way, so the virtualizer sees the change.
      this.items = this.items.slice();
      if (this.patch(prev, messages)) {
        this.from = messages;
        this.append(messages, prev.length);
        return this.items;
      }
    }
    this.items = [];
    this.rowOf = [];
    this.lastDay = '';
    this.lastSender = '';
    this.userId = userId;
    this.group = groupRoom;
    this.from = messages;
    this.append(messages, 0);
    return this.items;
  }

  /**
   * True when `next` starts with `prev` message by message (the same id and sender on the same
   * day: a status change, say); changed rows are replaced. False means rebuild.
   */
  private patch(prev: readonly Message[], next: readonly Message[]): boolean {
    const changed: number[] = [];
    for (let i = 0; i < prev.length; i++) {
      const a = prev[i]!;
      const b = next[i]!;
      if (a === b) continue;
      if (a.id !== b.id || a.senderId !== b.senderId || a.type !== b.type || dayOf(a) !== dayOf(b)) return false;
      changed.push(i);
    }
    if (changed.length) {
      for (const i of changed) {
        const row = this.rowOf[i]!;
        const old = this.items[row];
        if (old?.kind === 'message') this.items[row] = { ...old, message: next[i]! };
      }
    }
    return true;
  }

  private append(messages: readonly Message[], start: number): void {
    for (let i = start; i < messages.length; i++) {
      const m = messages[i]!;
      const day = dayOf(m);
      if (day !== this.lastDay) {
        this.items.push({ kind: 'day', key: `day:${day}`, date: messageDate(m) });
        this.lastDay = day;
        this.lastSender = '';
      }
      const own = isOwn(m, this.userId);
      const grouped = m.senderId === this.lastSender && m.type !== 'EVENT';
      this.rowOf[i] = this.items.length;
      this.items.push({ kind: 'message', key: String(m.id), message: m, own, grouped, showSender: this.group && !own && !grouped });
      this.lastSender = m.type === 'EVENT' ? '' : m.senderId;
    }
  }
}
