/**
 * The one path a bot message takes, from the API and from campaigns alike:
 * check it (bot, calling setting, video file), turn the variant into the
 * widget message it shows as, and deliver it into the bot's room with the user.
 */
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  DEFAULT_BUTTON_TEXT,
  VIDEO_MAX_BYTES,
  VIDEO_MEDIA_TYPES,
  type BotContact,
  type BotMessageContent,
  type MessageOption,
} from '../types/index.ts';
import type { Charla, NewMessageInput } from './context.ts';
import { ApiError, validationFailed } from './http/errors.ts';
import type { Queryable } from './store/db.ts';

/** What a message needs besides the recipient: its room-independent widget form. */
export type PreparedMessage = Omit<NewMessageInput, 'id' | 'roomId' | 'senderId' | 'by'>;

export interface BotRow {
  id: string;
  company_id: string;
  name: string;
  type: string;
  calling_enabled: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

/** The bot, or 404. */
export async function requireBot(db: Queryable, botId: string): Promise<BotRow> {
  const { rows } = await db.query<BotRow>('SELECT * FROM bots WHERE id = $1', [botId]);
  const bot = rows[0];
  if (!bot) throw new ApiError('NOT_FOUND', { message: `Bot ${botId} does not exist.`, data: { botId } });
  return bot;
}

/** A human line for a contacts message (what a client without cards shows). */
function contactsSummary(contacts: BotContact[]): string {
  const names = contacts.map((c) => {
    const n = c.name;
    const full = n?.formatted_name || [n?.first_name, n?.last_name].filter(Boolean).join(' ');
    return full || c.phones?.[0]?.phone || c.emails?.[0]?.email || 'Contacto';
  });
  return names.join(', ');
}

/** The widget message a bot message variant shows as. Pure. */
export function toWidgetMessage(content: BotMessageContent): PreparedMessage {
  switch (content.type) {
    case 'text': {
      if (!('buttons' in content) || content.buttons === undefined)
        return { type: 'TEXT', text: content.text };
      const b = content.buttons;
      const options: MessageOption[] = b.options.map((o, i) => ({
        type: 'postback',
        title: o.title,
        payload: { payload: o.payload ?? o.title, title: o.title },
        order: i,
        ...(o.description !== undefined ? { description: o.description } : {}),
      }));
      return {
        type: 'TEXT',
        text: content.text,
        options,
        interactive: {
          kind: 'options',
          buttonText: b.buttonText?.text ?? DEFAULT_BUTTON_TEXT,
          ...(b.title !== undefined ? { title: b.title } : {}),
        },
      };
    }
    case 'contacts':
      return {
        type: 'TEXT',
        text: contactsSummary(content.contacts),
        interactive: { kind: 'contacts', contacts: content.contacts },
      };
    case 'voice_call':
      return {
        type: 'TEXT',
        text: content.text,
        interactive: {
          kind: 'voice_call',
          displayText: content.parameters.display_text,
          ...(content.header !== undefined ? { header: content.header } : {}),
        },
      };
    case 'video':
      return {
        type: 'VIDEO',
        mediaUrl: content.mediaUrl,
        ...(content.text !== undefined && content.text !== '' ? { caption: content.text } : {}),
      };
    case 'contact_info_request':
      return { type: 'TEXT', text: content.text, interactive: { kind: 'contact_info_request' } };
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True for IP literals in private, loopback, link-local or unspecified ranges. */
function isPrivateAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  const kind = isIP(h);
  if (kind === 4) {
    const [a = 0, b = 0] = h.split('.').map(Number);
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (kind === 6) {
    const l = h.toLowerCase();
    return (
      l === '::1' ||
      l === '::' ||
      l.startsWith('fc') ||
      l.startsWith('fd') ||
      l.startsWith('fe80') ||
      l.startsWith('::ffff:')
    );
  }
  return h === 'localhost' || h.endsWith('.localhost');
}

/**
 * Whether the service may fetch (and a widget may show) this media address:
 * https to a public host, or http/https on loopback when the configuration
 * allows it (tests, the demo). Null when allowed, else the reason.
 */
export function mediaUrlProblem(raw: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute address';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hostname.endsWith('.')) return 'must name its host without a trailing dot';
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (loopback)
    return allowLoopback && (url.protocol === 'http:' || url.protocol === 'https:')
      ? null
      : 'must be a public https address';
  if (url.protocol !== 'https:') return 'must be an https address';
  if (isPrivateAddress(url.hostname)) return 'must be a public https address';
  return null;
}

/** How long the video check waits for the file's host, in ms. */
export const MEDIA_CHECK_TIMEOUT_MS = 4000;
const MAX_REDIRECTS = 3;

/**
 * Checks a video address with HEAD requests (redirects followed by hand, each
 * hop held to the same rule): unreachable, not 2xx or an HTML page ->
 * INVALID_MEDIA_URL; not video/mp4 or video/3gp(p) -> UNSUPPORTED_MEDIA_TYPE;
 * over 16 MB -> MEDIA_TOO_LARGE. A file whose size the host does not say passes.
 */
export async function checkVideo(
  raw: string,
  allowLoopback: boolean,
  timeoutMs = MEDIA_CHECK_TIMEOUT_MS,
): Promise<void> {
  let current = raw;
  const signal = AbortSignal.timeout(timeoutMs);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const problem = mediaUrlProblem(current, allowLoopback);
    if (problem) {
      if (hop === 0) throw validationFailed({ '/mediaUrl': problem });
      throw new ApiError('INVALID_MEDIA_URL', {
        message: `The media address redirects to an address that ${problem}.`,
      });
    }
    const host = new URL(current).hostname;
    if (!LOOPBACK_HOSTS.has(host) && isIP(host.replace(/^\[|\]$/g, '')) === 0) {
      // A public name must not lead to a private address (DNS pointing inside).
      let addresses: Array<{ address: string }>;
      try {
        addresses = await lookup(host, { all: true });
      } catch {
        throw new ApiError('INVALID_MEDIA_URL', { message: 'The media host does not resolve.' });
      }
      if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) {
        throw new ApiError('INVALID_MEDIA_URL', { message: 'The media host resolves to a private address.' });
      }
    }
    let res: Response;
    try {
      res = await fetch(current, { method: 'HEAD', redirect: 'manual', signal });
    } catch {
      throw new ApiError('INVALID_MEDIA_URL', { message: 'The media address is unreachable.' });
    }
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location');
      if (!location)
        throw new ApiError('INVALID_MEDIA_URL', { message: 'The media address redirects nowhere.' });
      current = new URL(location, current).toString();
      continue;
    }
    if (res.status < 200 || res.status >= 300) {
      throw new ApiError('INVALID_MEDIA_URL', { message: `The media address answered ${res.status}.` });
    }
    const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type === 'text/html' || type === 'application/xhtml+xml') {
      throw new ApiError('INVALID_MEDIA_URL', { message: 'The media address is a page, not a file.' });
    }
    if (!(VIDEO_MEDIA_TYPES as readonly string[]).includes(type)) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
        message: `Video must be ${VIDEO_MEDIA_TYPES.join(' or ')}; the file is ${type || 'of no stated type'}.`,
      });
    }
    const length = res.headers.get('content-length');
    if (length !== null && /^\d+$/.test(length.trim()) && Number(length) > VIDEO_MAX_BYTES) {
      throw new ApiError('MEDIA_TOO_LARGE', {
        message: `The file is ${length} bytes; the limit is ${VIDEO_MAX_BYTES}.`,
      });
    }
    return;
  }
  throw new ApiError('INVALID_MEDIA_URL', { message: 'The media address redirects too many times.' });
}

/**
 * Everything a bot message needs before it can go to anyone: the bot exists,
 * calling is on for voice_call, the video file is fine. Returns the widget form.
 */
export async function prepareBotMessage(
  charla: Charla,
  botId: string,
  content: BotMessageContent,
): Promise<PreparedMessage> {
  const bot = await requireBot(charla.db, botId);
  if (content.type === 'voice_call' && !bot.calling_enabled) {
    throw new ApiError('CALLING_NOT_ENABLED', {
      message: `Calling is not enabled for bot ${botId}.`,
      data: { botId },
    });
  }
  if (content.type === 'video') await checkVideo(content.mediaUrl, charla.config.allowLoopbackMedia);
  return toWidgetMessage(content);
}

/**
 * Delivers a prepared message to one user in the bot's room. With a fixed id
 * (campaigns) a second call stores nothing new.
 */
export async function deliverPrepared(
  charla: Charla,
  input: { botId: string; userId: string; message: PreparedMessage; id?: string },
): Promise<{ messageId: string; duplicate: boolean }> {
  const { roomId } = await charla.messaging.ensureBotRoom({ botId: input.botId, userId: input.userId });
  const { message, duplicate } = await charla.messaging.deliver({
    ...input.message,
    id: input.id ?? randomUUID(),
    roomId,
    senderId: input.botId,
    by: 'bot',
  });
  return { messageId: String(message.id), duplicate };
}

/** POST /v1/bots/{botId}/messages in one call. */
export async function sendBotMessage(
  charla: Charla,
  botId: string,
  userId: string,
  content: BotMessageContent,
): Promise<{ messageId: string }> {
  const prepared = await prepareBotMessage(charla, botId, content);
  const { messageId } = await deliverPrepared(charla, { botId, userId, message: prepared });
  return { messageId };
}
