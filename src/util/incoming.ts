/**
 * Messages as they come from the network, made safe to keep and show. The
 * service sends well-formed messages; a newer or misbehaving one might not,
 * and a field of the wrong kind (a number for a TEXT's `text`, an object for
 * an option list) must not break the list, the room previews or the
 * announcements. Such a message is kept as type `UNSUPPORTED` with what can
 * still be told (id, room, sender, time, status): the neutral placeholder.
 */
import type { Message, Room } from '../../types/index.ts';
import type { MembershipChange, StatusChange } from '../../types/socket.ts';

/** What a field must be when present: s string, n number, o plain object, a array, l string or number. */
const FIELDS: Record<string, string> = {
  senderId: 's',
  createdAt: 's',
  by: 's',
  status: 's',
  senderNames: 's',
  type: 's',
  text: 's',
  caption: 's',
  mediaUrl: 's',
  slug: 's',
  description: 's',
  timestamp: 'n',
  seq: 'n',
  lat: 'l',
  lng: 'l',
  payload: 'o',
  eventPayload: 'o',
  interactive: 'o',
  error: 'o',
  options: 'a',
  QuickReplies: 'a',
};

/** The fields a type cannot be shown without. */
const NEEDS: Record<string, string[]> = {
  TEXT: ['text'],
  POSTBACK: ['text'],
  IMAGE: ['mediaUrl'],
  AUDIO: ['mediaUrl'],
  VIDEO: ['mediaUrl'],
  DOCUMENT: ['mediaUrl'],
  FILE: ['mediaUrl'],
  LOCATION: ['lat', 'lng'],
  EVENT: ['description'],
};

/** What is kept of a message that cannot be shown. */
const KEPT = ['id', 'roomId', 'senderId', 'createdAt', 'timestamp', 'by', 'status', 'senderNames', 'seq'];

function kind(v: unknown): string {
  if (Array.isArray(v)) return 'a';
  if (typeof v === 'string') return 's';
  if (typeof v === 'number') return Number.isFinite(v) ? 'n' : '?';
  return v !== null && typeof v === 'object' ? 'o' : '?';
}

const fits = (v: unknown, want: string) => (want === 'l' ? /[sn]/.test(kind(v)) : kind(v) === want);

/** Text, or nothing (null or absent). */
const textOrNone = (v: unknown) => v == null || typeof v === 'string';

/** An option or a quick reply: an object with a text title (and, if any, a payload object). */
function choice(v: unknown): boolean {
  const c = v as { title?: unknown; payload?: unknown };
  return (
    kind(v) === 'o' && typeof c.title === 'string' && (c.payload === undefined || kind(c.payload) === 'o')
  );
}

/** A plain object whose named fields are text or nothing. */
const textsIn = (v: unknown, keys: string[]) =>
  kind(v) === 'o' && keys.every((k) => textOrNone((v as Record<string, unknown>)[k]));
/** Nothing, or a list of such objects. */
const listOf = (v: unknown, keys: string[]) =>
  v == null || (Array.isArray(v) && v.every((item) => textsIn(item, keys)));
/** A contact card whose names, phones, e-mails and addresses are of their kind. */
function botContact(v: unknown): boolean {
  const c = v as Record<string, unknown>;
  return (
    kind(v) === 'o' &&
    (c['name'] == null || textsIn(c['name'], ['formatted_name', 'first_name', 'last_name'])) &&
    listOf(c['phones'], ['phone', 'type', 'wa_id']) &&
    listOf(c['emails'], ['email', 'type']) &&
    listOf(c['addresses'], ['street', 'city', 'state', 'zip', 'country', 'country_code', 'type'])
  );
}

/** The bot's rich variant, when there is one, with the fields its kind is drawn from of their kind. */
function interactiveFits(v: unknown): boolean {
  if (v === undefined) return true;
  const i = v as Record<string, unknown>;
  switch (kind(v) === 'o' ? i['kind'] : undefined) {
    case undefined:
      return false;
    case 'options':
      return textsIn(i, ['buttonText', 'title']);
    case 'contacts':
      return Array.isArray(i['contacts']) && i['contacts'].every(botContact);
    case 'voice_call':
      return typeof i['displayText'] === 'string' && textOrNone(i['header']);
    default:
      return true;
  }
}

/**
 * The message to keep: itself when every field it has is of its kind and its type's own fields are
 * there; an `UNSUPPORTED` message with its id, room, sender and time otherwise; null when it has
 * not even an id and a room (nothing to keep).
 */
export function usableMessage(value: unknown): Message | null {
  if (kind(value) !== 'o') return null;
  const m = value as Record<string, unknown>;
  if (typeof m['roomId'] !== 'string' || !/[sn]/.test(kind(m['id']))) return null;
  const broken =
    Object.entries(FIELDS).some(([k, want]) => m[k] !== undefined && !fits(m[k], want)) ||
    // Own keys only: a type named `constructor` or `__proto__` needs nothing (and is unsupported).
    (Object.hasOwn(NEEDS, m['type'] as string) ? (NEEDS[m['type'] as string] ?? []) : []).some(
      (k) => m[k] === undefined,
    ) ||
    [m['options'], m['QuickReplies']].some((list) => Array.isArray(list) && !list.every(choice)) ||
    !interactiveFits(m['interactive']);
  if (!broken) return value as Message;
  const kept: Record<string, unknown> = { type: 'UNSUPPORTED' };
  for (const k of KEPT) if (m[k] !== undefined && fits(m[k], FIELDS[k] ?? 'l')) kept[k] = m[k];
  return kept as unknown as Message;
}

/** A room from the network whose last message the previews can show (see {@link usableMessage}). */
export function usableRoom(room: Room): Room {
  const last = room.lastMessage && usableMessage(room.lastMessage);
  return last === room.lastMessage ? room : { ...room, lastMessage: last || null };
}

/** The usable messages of a list from the network (see {@link usableMessage}). */
export function usableMessages(list: unknown): Message[] {
  return Array.isArray(list) ? list.map(usableMessage).filter((m): m is Message => m !== null) : [];
}

/*
 * The other live payloads (and the rooms of a sync or a fetch) are used only when the fields the
 * widget reads are of their kind: a misbehaving service's `member:joined` of null, or a room whose
 * name is a number, is dropped instead of throwing in the page.
 */
const isObject = (v: unknown): v is Record<string, unknown> => kind(v) === 'o';
const member = (m: unknown) => isObject(m) && typeof m['referenceId'] === 'string' && textOrNone(m['names']);

/** A room whose fields the widget reads are of their kind (its last message is made usable apart). */
export const isUsableRoom = (r: unknown): r is Room =>
  isObject(r) &&
  typeof r['id'] === 'string' &&
  ['name', 'avatarUrl', 'type'].every((k) => textOrNone(r[k])) &&
  ['unread', 'lastSeq'].every((k) => r[k] === undefined || kind(r[k]) === 'n') &&
  Array.isArray(r['membersInfo']) &&
  r['membersInfo'].every(member) &&
  Array.isArray(r['members']) &&
  r['members'].every((id) => typeof id === 'string') &&
  [r['bot'], r['company']].every(
    (o) => o == null || (isObject(o) && textOrNone(o['id']) && textOrNone(o['name'])),
  );

export const isStatusChange = (c: unknown): c is StatusChange =>
  isObject(c) &&
  typeof c['roomId'] === 'string' &&
  typeof c['status'] === 'string' &&
  /[sn]/.test(kind(c['id'])) &&
  (c['error'] === undefined || isObject(c['error']));

export const isMembershipChange = (c: unknown): c is MembershipChange =>
  isObject(c) && typeof c['roomId'] === 'string' && member(c['member']);
