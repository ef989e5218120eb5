/** Small formatting helpers shared by the views. */
import { byPerson } from '../../util/own.ts';
import type { BotContact, Message, Room } from '../../../types/index.ts';
import { DIRECTION_CONTROL_PATTERN } from '../../../types/limits.ts';
import type { Translate } from '../../i18n/index.ts';

/** The message's moment as a Date (timestamp first, createdAt second). */
export function messageDate(message: Pick<Message, 'timestamp' | 'createdAt'>): Date {
  const fromStamp =
    typeof message.timestamp === 'number' && Number.isFinite(message.timestamp) ? message.timestamp : NaN;
  const d = new Date(Number.isNaN(fromStamp) ? message.createdAt : fromStamp);
  return Number.isNaN(d.getTime()) ? new Date(0) : d;
}

/** YYYY-MM-DD in local time: the key of a date separator. */
export function dayKey(date: Date): string {
  return `${date.getFullYear()}-${date.getMonth() + 1}-${date.getDate()}`;
}

export function locale(language: string): string {
  return language === 'en' ? 'en' : 'es';
}

/**
 * Times and dates are formatted by hand: the first Intl.DateTimeFormat of a
 * page loads locale data (tens of milliseconds), which would land on the
 * first paint of a room.
 */
export function formatTime(date: Date, language: string): string {
  const h = date.getHours();
  const m = String(date.getMinutes()).padStart(2, '0');
  if (language === 'en') return `${h % 12 || 12}:${m} ${h < 12 ? 'AM' : 'PM'}`;
  return `${String(h).padStart(2, '0')}:${m}`;
}

/** "Hoy", "Ayer" or the date. */
export function formatDay(date: Date, language: string, t: Translate, now = new Date()): string {
  const today = dayKey(now);
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  const key = dayKey(date);
  if (key === today) return t('today');
  if (key === dayKey(yesterday)) return t('yesterday');
  const month = t('months').split(',')[date.getMonth()] ?? '';
  const year = date.getFullYear() === now.getFullYear() ? '' : ` ${date.getFullYear()}`;
  return language === 'en'
    ? `${month} ${date.getDate()}${year ? `,${year}` : ''}`
    : `${date.getDate()} de ${month}${year ? ` de${year}` : ''}`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / (1024 * 1024))} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

/** Explicit directional formatting characters (types/limits.ts): in names, only a disguise. */
export const BIDI_CONTROL = new RegExp(DIRECTION_CONTROL_PATTERN);
const BIDI_CONTROLS = new RegExp(BIDI_CONTROL.source, 'g');

/** A name or file name as shown: without directional formatting characters, trimmed. */
export function plainName(name: string | null | undefined): string {
  return (name ?? '').replace(BIDI_CONTROLS, '').trim();
}

/** The name the business gave its widget (`properties.name`), as a name shows: '' when none. */
export function widgetName(config: { properties: Record<string, unknown> } | null | undefined): string {
  const name = config?.properties['name'];
  return typeof name === 'string' ? plainName(name) : '';
}

/**
 * A room's name, as the chat's header shows it; a room without one (a direct room made a group by
 * addMember) is named after its other members ("Bob, Carol"), else after its kind; a room not
 * known (yet) is the chat.
 */
export function roomName(room: Room | undefined, userId: string | null | undefined, t: Translate): string {
  if (!room) return t('chat');
  const others = (room.membersInfo ?? []).filter((m) => m.referenceId !== userId);
  const names = others.map((m) => plainName(m.names)).filter(Boolean);
  // Members without a name still count: "Beto, Ana +1", not a name list that hides someone.
  const unnamed = others.length - names.length;
  return (
    plainName(room.name) ||
    (names.length ? names.join(', ') + (unnamed ? ` +${unnamed}` : '') : '') ||
    t(room.type === 'group' ? 'groupConversation' : 'conversation')
  );
}

/** What a message without a name of its own is credited to (see senderName). */
export interface SenderLabels {
  /** The room's members with a name, and its bot, by id. */
  members: ReadonlyMap<string, string>;
  /** The business's systems and bots (a room post, an unnamed bot): the room's company, else a neutral word. */
  service: string;
  /** A person who gave no name. */
  someone: string;
}

/** The labels of a room's senders: its bot and members, and the service as its company. */
export function senderLabels(room: Room | undefined, t: Translate): SenderLabels {
  const members = new Map<string, string>();
  const bot = room?.bot;
  const botName = typeof bot?.name === 'string' ? plainName(bot.name) : '';
  if (bot && botName) members.set(bot.id, botName);
  for (const m of room?.membersInfo ?? []) {
    const name = plainName(m.names);
    if (name) members.set(m.referenceId, name);
  }
  const company = plainName(room?.company?.name);
  return { members, service: company || t('serviceSender'), someone: t('someone') };
}

/**
 * Who wrote a message, as the user is told: its sender's name, else the name the room knows its
 * sender by, else what it is: a person (`someone`) or the service (a room post carries no name).
 * Never the room's own name: in a room with Ana, a post of the business is not Ana's.
 */
export function senderName(m: Message, labels: SenderLabels): string {
  // People (the service's own split: user, client) and the bot go by the name the room knows;
  // a post of the service (charla, company) never takes a member's, whatever sender it names.
  const person = byPerson(m);
  return (
    plainName(m.senderNames) ||
    (person || m.by === 'bot' ? labels.members.get(m.senderId) : undefined) ||
    (person ? labels.someone : labels.service)
  );
}

/** Text as a search compares it: lower case, without accents (`Ángela` is found by `angela`). */
export function searchable(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** What a contact search found, for its status line: how many, or that none matches; '' without one. */
export function searchStatus(t: Translate, query: string, found: number): string {
  if (!query) return '';
  return found ? t('contactsFound', { count: found }) : t('noMatch', { query });
}

/** The viramas of the Indic and South-East Asian scripts, at the end of an initial. */
const VIRAMA_END =
  /[\u094D\u09CD\u0A4D\u0ACD\u0B4D\u0BCD\u0C4D\u0CCD\u0D4D\u0DCA\u0E3A\u1039\u17D2\u1B44\uA8C4]+$/u;

/** Initials for an avatar without a picture: the first letter or digit of the first two words that have one. */

export function initials(name: string | null | undefined): string {
  const firsts = (name ?? '')
    .split(/\s+/)
    // A letter with its combining marks ("N\u0300gozi" is "Ǹ", not "N").
    .map((w) => /[\p{L}\p{N}]\p{M}*/u.exec(w.normalize('NFC'))?.[0] ?? '')
    .filter(Boolean);
  // Words' letters first: "Contacto 36" is "C", not "C3"; a name of numbers only keeps them.
  const letters = firsts.filter((c) => /\p{L}/u.test(c));
  return (
    (letters.length ? letters : firsts)
      .slice(0, 2)
      // A letter's virama would join it to the next initial (क् + दे drawn as one conjunct).
      .map((c) => c.replace(VIRAMA_END, ''))
      .join('')
      .toUpperCase()
      .normalize('NFC') || '?'
  );
}

/** A one-line summary of a message for previews and announcements. */
export function summarize(message: Message | null | undefined, t: Translate): string {
  if (!message) return '';
  switch (message.type) {
    case 'TEXT':
      // A contact card by its names, in the widget's words (the stored text is the service's summary).
      return message.interactive?.kind === 'contacts'
        ? contactsLine(message.interactive.contacts, t)
        : message.text;
    case 'POSTBACK':
      return message.text;
    case 'IMAGE':
      return message.caption || t('image');
    case 'VIDEO':
      return message.caption || t('video');
    case 'AUDIO':
      return t('audio');
    case 'DOCUMENT':
    case 'FILE':
      return plainName(message.caption) || t('document');
    case 'LOCATION':
      return t('location');
    case 'EVENT':
      return message.description;
    default:
      return t('unsupported');
  }
}

/**
 * A contacts message in a line, as a room's preview: each card by its name, else its first phone,
 * e-mail or street, else "Contact"; direction controls taken out of all of them.
 */
function contactsLine(contacts: readonly BotContact[], t: Translate): string {
  return contacts
    .map((c) => {
      const where = [c.addresses?.[0]?.street, c.addresses?.[0]?.city]
        .map(plainName)
        .filter(Boolean)
        .join(', ');
      return (
        [botContactName(c), plainName(c.phones?.[0]?.phone), plainName(c.emails?.[0]?.email), where].find(
          Boolean,
        ) ?? t('contact')
      );
    })
    .join(', ');
}

/** A contact card's name: its formatted name, else its first and last names (a blank one is none). */
export function botContactName(c: BotContact): string {
  const n = c.name;
  return plainName(n?.formatted_name) || plainName([n?.first_name, n?.last_name].filter(Boolean).join(' '));
}

/**
 * What a screen reader is told of a message that arrives: what it shows (a contact card by its
 * names, not the summary text the card replaces) and what it asks of the user: options or quick
 * replies to choose from, a call button, a form for their details.
 */
export function announcement(m: Message, t: Translate): string {
  const i = m.interactive;
  if (m.type === 'TEXT' && i?.kind === 'contacts')
    return t('announceContactCard', {
      names: i.contacts.map(botContactName).filter(Boolean).join(', ') || t('contact'),
    });
  const parts = [summarize(m, t)];
  if (m.options?.length) parts.push(t('announceOptions', { count: m.options.length }));
  if (m.QuickReplies?.length) parts.push(t('announceQuickReplies', { count: m.QuickReplies.length }));
  if (i?.kind === 'voice_call') parts.push(t('announceCallButton', { text: plainName(i.displayText) }));
  if (i?.kind === 'contact_info_request') parts.push(t('announceContactForm'));
  // Sentences: a part that ends in its own stop (¿Qué prefieres?) takes no period after it.
  return parts
    .filter(Boolean)
    .reduce((said, part) => (said ? `${said}${/[.!?…:]$/.test(said) ? '' : '.'} ${part}` : part), '');
}

/** The file name at the end of an address, for file cards (see {@link plainName}). */
export function fileNameOf(url: string): string {
  let name = url;
  try {
    const path = new URL(url).pathname;
    name = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) || url;
  } catch {
    // Not an address: shown as it is, without its directional controls.
  }
  return plainName(name);
}
