/**
 * Argument checks of the facade. Each throws a CharlaError (VALIDATION_ERROR)
 * naming the bad field, before anything is sent.
 */
import {
  MEMBER_TYPES,
  SENDABLE_MESSAGE_TYPES,
  type MemberType,
  type SendableMessageType,
} from '../../types/enums.ts';
import {
  charCount,
  ADD_MEMBERS_MAX,
  GET_MESSAGES_LIMIT_MAX,
  MAX_EVENT_BYTES,
  MEDIA_URL_MAX,
  MESSAGE_TEXT_MAX,
  DIRECTION_CONTROL_PATTERN,
  NOT_BLANK_PATTERN,
  SHORT_TEXT_MAX,
} from '../../types/limits.ts';
import type { AddMembersItem, Contact, OutgoingMessage } from '../../types/index.ts';
import { hasForbiddenChar } from '../../types/urls.ts';
import { CharlaError, invalidArgument } from '../transport/errors.ts';
import { withStandardJSON } from './json.ts';
import { parseSafeUrl } from './url.ts';
import { isUuid } from './uuid.ts';

/** `<field> must be <what>`, naming the field (the facade's VALIDATION_ERROR wording). */
const mustBe = (field: string, what: string) => invalidArgument(`${field} must be ${what}`, field);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The caller's own enumerable properties, copied into an object that inherits
 * nothing: what a page added to Object.prototype (`roomId`, `limit`, `names`)
 * is never read as an argument. Anything but an object as it is.
 */
export const own = <T>(value: T): T => {
  if (typeof value !== 'object' || value === null) return value;
  try {
    // An array is copied too (its length and items read once, here).
    return (Array.isArray(value) ? [...value] : Object.assign(Object.create(null), value)) as T;
  } catch {
    // A Proxy (or a getter) that throws when read: refused like any malformed argument.
    throw invalidArgument('an argument whose properties cannot be read', 'arguments');
  }
};

/** A non-empty string id of at most 200 characters. */
export function requireId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw mustBe(field, 'a non-empty string');
  }
  if (charCount(value) > 200) throw mustBe(field, 'at most 200 characters');
  // As in a message's fields: the service refuses them (and an address cannot be made of one).
  if (ILL_FORMED.test(value)) throw mustBe(field, 'free of NUL and unpaired surrogate characters');
  return value;
}

function optionalShortText(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw mustBe(field, 'a string');
  if (charCount(value) > SHORT_TEXT_MAX) throw mustBe(field, `at most ${SHORT_TEXT_MAX} characters`);
  return value;
}

const VISIBLE = new RegExp(NOT_BLANK_PATTERN, 'u');
const DIRECTION_CONTROLS = new RegExp(DIRECTION_CONTROL_PATTERN, 'gu');
/** True when the text shows something: not white space or invisible characters only (as the service checks). */
export const isVisibleText = (text: string): boolean => VISIBLE.test(text);

/** Line breaks, tabs and the other control characters: a name is one line. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * A name typed by the visitor (the contact-information form), as sent: one line (line breaks, tabs
 * and other control characters become a space), trimmed, without explicit direction controls (a
 * name's reversal would carry the phone and e-mail after it along); '' when nothing visible is
 * left, so it counts as not given rather than sending an invisible answer.
 */
export function typedName(text: string): string {
  const name = text
    .replace(DIRECTION_CONTROLS, '')
    .replace(CONTROLS, ' ')
    .replace(/ {2,}/g, ' ')
    // Half a surrogate pair (the service refuses one): the replacement character, as the composer does.
    .replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]|[\uD800-\uDFFF]/g, (c) => (c.length > 1 ? c : '\uFFFD'))
    .trim();
  return VISIBLE.test(name) ? name : '';
}

/**
 * A contact's name (setContacts and the like) as openRoomWithUser and addMember send it: one line
 * as typedName makes it, at most SHORT_TEXT_MAX characters, as the service takes a name (a name
 * copied from a CRM with a line break in it made the contact one nobody could open); undefined
 * when nothing visible is left (the service then keeps the name it knows).
 */
export function nameToSend(names: string): string | undefined {
  const name = typedName(names);
  return name ? Array.from(name).slice(0, SHORT_TEXT_MAX).join('').trim() : undefined;
}

/** A contact as addMember sends it: its name as nameToSend makes it (none when nothing is left). */
export function sentContact(contact: Contact): Contact {
  if (contact.names === undefined) return contact;
  const { names: given, ...rest } = contact;
  const names = nameToSend(given);
  return names === undefined ? rest : { ...rest, names };
}

function requireText(value: unknown, field: string, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && !isVisibleText(value))) {
    throw mustBe(field, 'a non-empty string');
  }
  if (charCount(value) > MESSAGE_TEXT_MAX) throw mustBe(field, `at most ${MESSAGE_TEXT_MAX} characters`);
  return value;
}

function requireMediaUrl(value: unknown, field: string): string {
  if (typeof value === 'string' && charCount(value) > MEDIA_URL_MAX)
    throw mustBe(field, `at most ${MEDIA_URL_MAX} characters (it has ${charCount(value)})`);
  // As the service: no spaces or control characters (the URL parser would drop them silently).
  if (typeof value === 'string' && hasForbiddenChar(value))
    throw mustBe(field, 'an address without spaces or control characters');
  const url = parseSafeUrl(value);
  // As the service: no credentials in it, no trailing dot on its host.
  if (!url || url.username || url.password || url.hostname.endsWith('.'))
    throw mustBe(field, 'an https address');
  return value as string;
}

/**
 * Largest `message:send` payload, in UTF-8 bytes of its JSON: the service
 * refuses an event over MAX_EVENT_BYTES (413), and socket.io's
 * envelope (event name, ack id) needs a few bytes of that.
 */
export const MESSAGE_MAX_BYTES = MAX_EVENT_BYTES - 512;

/** The JSON socket.io would send for `value`; VALIDATION_ERROR naming `field` when it has none (cycles, BigInt, functions, symbols). */
function toJson(value: unknown, field: string): string {
  try {
    // As socket.io will write it: the page's Array/String toJSON (Prototype.js) set aside.
    const json = withStandardJSON(() =>
      JSON.stringify(value, (key, v: unknown) => {
        const t = typeof v;
        // JSON.stringify would drop these silently (or throw on a BigInt): the receiver would get something else.
        if (t === 'function' || t === 'symbol' || t === 'bigint')
          throw mustBe(field, `JSON data (${key || 'it'} is a ${t})`);
        // The service refuses keys that poison prototypes: refused here, before anything is shown or queued.
        if (
          key === '__proto__' ||
          (key === 'constructor' && t === 'object' && v && Object.hasOwn(v, 'prototype'))
        )
          throw mustBe(field, 'free of __proto__ and constructor.prototype keys');
        // Binary would become {} or {"0":…}; the service refuses binary in events.
        if (
          v instanceof ArrayBuffer ||
          ArrayBuffer.isView(v) ||
          (typeof Blob != 'undefined' && v instanceof Blob)
        )
          throw mustBe(field, `JSON data (${key || 'it'} is binary)`);
        return v;
      }),
    );
    if (json !== undefined) return json;
  } catch (error) {
    if (error instanceof CharlaError) throw error;
  }
  throw mustBe(field, 'JSON data (no cycles, functions, symbols or BigInt)');
}

/** The value as the receiver will see it (a JSON copy), or VALIDATION_ERROR. */
function requireJson(value: unknown, field: string): unknown {
  return JSON.parse(toJson(value, field));
}

/**
 * Throws VALIDATION_ERROR when a message can never go over the socket: not
 * JSON, or larger than the service takes (it would refuse it: 413). Also
 * run on outbox entries an older version stored.
 */
export function requireSendable(message: OutgoingMessage): void {
  const field =
    message?.type === 'POSTBACK' ? 'payload' : message?.type === 'EVENT' ? 'eventPayload' : 'message';
  const json = toJson(message, field);
  // A UTF-16 unit is at most 3 UTF-8 bytes: short messages need no encoding.
  const bytes = json.length * 3 <= MESSAGE_MAX_BYTES ? 0 : new TextEncoder().encode(json).length;
  if (bytes > MESSAGE_MAX_BYTES)
    throw invalidArgument(
      `the message is too large: ${bytes} bytes as JSON, at most ${MESSAGE_MAX_BYTES} (make ${field} smaller)`,
      field,
    );
}

const COORD = /^-?[0-9]{1,3}(\.[0-9]{1,15})?$/;

/**
 * A number as the decimal the service takes (at most 15 decimals): String()
 * would give `1e-7` or `0.30000000000000004`, which no coordinate pattern
 * takes, for values a map or `0.1 + 0.2` easily makes.
 */
function decimal(value: number): string {
  // Rounded to 15 decimals, then the shortest text that reads back as it; only below 1e-6 is that an exponent.
  const rounded = Number(value.toFixed(15));
  let text = String(rounded);
  if (text.includes('e')) text = rounded.toFixed(15).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

function requireCoordinate(value: unknown, field: string, max: number): string {
  const text =
    typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= max ? decimal(value) : value;
  if (typeof text !== 'string' || !COORD.test(text) || Math.abs(Number(text)) > max) {
    throw mustBe(field, `a coordinate between -${max} and ${max}`);
  }
  return text;
}

function requireStringMap(given: unknown, field: string): Record<string, string> {
  const value = own(given);
  if (!isPlainObject(value)) throw mustBe(field, 'an object of strings');
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw mustBe(`${field}.${k}`, 'a string');
  }
  // A copy: the host changing its object later does not change what is sent.
  return { ...value } as Record<string, string>;
}

/**
 * Checks a message given to sendMessage and returns the outgoing shape (only
 * the fields the service takes). `id` must be a UUID when given.
 */
export function toOutgoingMessage(
  input: unknown,
  defaults: { id: string; roomId: string | null },
): OutgoingMessage {
  const out = outgoing(input, defaults);
  requireSendable(out);
  for (const [field, value] of Object.entries(out)) requireWellFormed(value, field);
  return out;
}

/** NUL, or half of a surrogate pair: what the service refuses in any string of a message. */
const ILL_FORMED = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Refused here, before anything is queued: the service would refuse it, and a retry with it. */
function requireWellFormed(value: unknown, field: string): void {
  if (typeof value === 'string') {
    if (ILL_FORMED.test(value)) throw mustBe(field, 'free of NUL and unpaired surrogate characters');
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      requireWellFormed(key, field);
      requireWellFormed(inner, field);
    }
  }
}

function outgoing(given: unknown, defaults: { id: string; roomId: string | null }): OutgoingMessage {
  const input = own(given);
  if (!isPlainObject(input)) throw mustBe('message', 'an object');
  const type = input['type'];
  if (typeof type !== 'string' || !(SENDABLE_MESSAGE_TYPES as readonly string[]).includes(type)) {
    throw mustBe('type', `one of ${SENDABLE_MESSAGE_TYPES.join(', ')}`);
  }
  const id = input['id'] ?? defaults.id;
  if (!isUuid(id)) throw mustBe('id', 'a UUID (it is the idempotency key)');
  const roomId = requireId(input['roomId'] ?? defaults.roomId, 'roomId');
  const senderNames = optionalShortText(input['senderNames'], 'senderNames');
  const base = senderNames === undefined ? { id, roomId } : { id, roomId, senderNames };
  const caption = () => optionalShortText(input['caption'], 'caption');
  const withCaption = <T extends object>(m: T): T => {
    const c = caption();
    return c === undefined ? m : { ...m, caption: c };
  };
  switch (type as SendableMessageType) {
    case 'TEXT':
      return { ...base, type: 'TEXT', text: requireText(input['text'], 'text') };
    case 'IMAGE':
      return withCaption({
        ...base,
        type: 'IMAGE' as const,
        mediaUrl: requireMediaUrl(input['mediaUrl'], 'mediaUrl'),
      });
    case 'VIDEO':
      return withCaption({
        ...base,
        type: 'VIDEO' as const,
        mediaUrl: requireMediaUrl(input['mediaUrl'], 'mediaUrl'),
      });
    case 'DOCUMENT':
      return withCaption({
        ...base,
        type: 'DOCUMENT' as const,
        mediaUrl: requireMediaUrl(input['mediaUrl'], 'mediaUrl'),
      });
    case 'AUDIO':
      return { ...base, type: 'AUDIO', mediaUrl: requireMediaUrl(input['mediaUrl'], 'mediaUrl') };
    case 'LOCATION':
      return {
        ...base,
        type: 'LOCATION',
        lat: requireCoordinate(input['lat'], 'lat', 90),
        lng: requireCoordinate(input['lng'], 'lng', 180),
      };
    case 'POSTBACK': {
      // payload, description and eventPayload are required (the interface marks none of them optional).
      if (input['payload'] === undefined) throw mustBe('payload', 'an object');
      const payload = requireJson(input['payload'], 'payload');
      if (!isPlainObject(payload)) throw mustBe('payload', 'an object');
      return { ...base, type: 'POSTBACK', text: requireText(input['text'], 'text'), payload };
    }
    case 'EVENT': {
      const slug = input['slug'];
      if (typeof slug !== 'string' || slug.length === 0 || charCount(slug) > 200) {
        throw mustBe('slug', 'a non-empty string of at most 200 characters');
      }
      const description = input['description'];
      if (typeof description !== 'string' || charCount(description) > SHORT_TEXT_MAX) {
        throw mustBe('description', `a string of at most ${SHORT_TEXT_MAX} characters`);
      }
      return {
        ...base,
        type: 'EVENT',
        slug,
        description,
        eventPayload: requireStringMap(input['eventPayload'], 'eventPayload'),
      };
    }
  }
}

/** A Contact (id required: string or number). */
export function requireContact(given: unknown, field = 'contact'): Contact {
  const value = own(given);
  if (!isPlainObject(value)) throw mustBe(field, 'an object');
  const id = value['id'];
  if (typeof id === 'string' && charCount(id) > 200) throw mustBe(`${field}.id`, 'at most 200 characters');
  const idOk = (typeof id === 'string' && id.length > 0) || (typeof id === 'number' && Number.isFinite(id));
  if (!idOk) throw mustBe(`${field}.id`, 'a non-empty string or a number');
  if (typeof id === 'string' && ILL_FORMED.test(id))
    throw mustBe(`${field}.id`, 'free of NUL and unpaired surrogate characters');
  for (const k of ['avatar', 'names', 'color', 'type'] as const) {
    const v = value[k];
    if (v !== undefined && typeof v !== 'string') throw mustBe(`${field}.${k}`, 'a string');
  }
  return value as unknown as Contact;
}

export function requireContacts(given: unknown, field = 'contacts'): Contact[] {
  const value = own(given);
  if (!Array.isArray(value)) throw mustBe(field, 'an array of contacts');
  return value.map((c, i) => requireContact(c, `${field}[${i}]`));
}

/** addMembers items, with memberType defaulting to Client. */
export function requireMembers(given: unknown): (AddMembersItem & { memberType: MemberType })[] {
  const value = own(given);
  if (!Array.isArray(value) || value.length === 0) throw mustBe('members', 'a non-empty array');
  if (value.length > ADD_MEMBERS_MAX)
    throw invalidArgument(`at most ${ADD_MEMBERS_MAX} members at once`, 'members');
  return (value as unknown[]).map((given, i): AddMembersItem & { memberType: MemberType } => {
    const m = own(given);
    if (!isPlainObject(m)) throw mustBe(`members[${i}]`, 'an object');
    const referenceId = requireId(m['referenceId'], `members[${i}].referenceId`);
    const names = optionalShortText(m['names'], `members[${i}].names`);
    const memberType = (m['memberType'] ?? 'Client') as MemberType;
    if (!(MEMBER_TYPES as readonly string[]).includes(memberType)) {
      throw mustBe(`members[${i}].memberType`, `one of ${MEMBER_TYPES.join(', ')}`);
    }
    return names === undefined ? { referenceId, memberType } : { referenceId, names, memberType };
  });
}

/** getMessages options with their defaults. */
export function requireGetMessages(
  given: unknown,
  defaultLimit: number,
): { roomId: string; limit: number; id: string | null } {
  const value = own(given);
  if (!isPlainObject(value))
    throw invalidArgument('getMessages takes an object { roomId, limit?, id? }', 'options');
  const roomId = requireId(value['roomId'], 'roomId');
  // Absent is the default; null is no number (the service would refuse it too).
  const limit = value['limit'] === undefined ? defaultLimit : value['limit'];
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > GET_MESSAGES_LIMIT_MAX) {
    throw mustBe('limit', `an integer from 1 to ${GET_MESSAGES_LIMIT_MAX}`);
  }
  const id = value['id'] ?? null;
  if (
    id !== null &&
    !(typeof id === 'string' && id.length > 0) &&
    !(typeof id === 'number' && Number.isFinite(id))
  ) {
    throw mustBe('id', 'a message id (string or number) or null');
  }
  if (id !== null && charCount(String(id)) > 200) throw mustBe('id', 'at most 200 characters');
  return { roomId, limit, id: id === null ? null : String(id) };
}

/** A map of string to string (storedParams). */
export function optionalStringMap(value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  return requireStringMap(value, field);
}
