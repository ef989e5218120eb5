/**
 * The one path a bot message takes, from the API and from campaigns alike:
 * check it (bot, calling setting, video file), turn the variant into the
 * widget message it shows as, and deliver it into the bot's room with the user.
 */
import { randomUUID } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import {
  charCount,
  DEFAULT_BUTTON_TEXT,
  MEDIA_URL_MAX,
  MEDIA_URL_PATTERN,
  NOT_BLANK_PATTERN,
  VIDEO_MAX_BYTES,
  VIDEO_MEDIA_TYPES,
  type BotContact,
  type BotMessageContent,
  type Message,
  type MessageOption,
} from '../types/index.ts';
import { parseAddress } from '../types/urls.ts';
import type { Charla, NewMessageInput } from './context.ts';
import { ApiError, validationFailed } from './http/errors.ts';
import { withoutDirectionControls } from './names.ts';
import { MESSAGE_CONTENT_KEYS, sameFields } from '../types/canonical-json.ts';
import { toMessage, type MessageRow } from './live/store.ts';
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

/**
 * The bot of this company, or 404: another company's bot in the same storage
 * is answered as if it did not exist.
 */
export async function requireBot(db: Queryable, botId: string, companyId: string): Promise<BotRow> {
  const { rows } = await db.query<BotRow>('SELECT * FROM bots WHERE id = $1 AND company_id = $2', [
    botId,
    companyId,
  ]);
  const bot = rows[0];
  if (!bot) throw new ApiError('NOT_FOUND', { message: `Bot ${botId} does not exist.`, data: { botId } });
  return bot;
}

const NOT_BLANK = new RegExp(NOT_BLANK_PATTERN, 'u');
/** Only what says something: a value of white space or invisible characters is no value. */
const said = (value: string | undefined): value is string => !!value && NOT_BLANK.test(value);

/**
 * A human line for a contacts message (what a client without cards shows, and a room's preview
 * of it), the names without direction controls.
 */
function contactsSummary(contacts: BotContact[]): string {
  const names = contacts.map((c) => {
    const n = c.name;
    const full = said(n?.formatted_name)
      ? n.formatted_name
      : [n?.first_name, n?.last_name].filter(said).join(' ');
    const place = c.addresses?.[0];
    const where = [place?.street, place?.city].filter(said).join(', ');
    return [full, c.phones?.[0]?.phone, c.emails?.[0]?.email, where].find(said) ?? 'Contacto';
  });
  return names.map((name) => withoutDirectionControls(name)).join(', ');
}

/**
 * The widget message a bot message variant shows as, signed with the bot's name as the bot's
 * flow messages are: the widget says who wrote it ("Vídeo de Ventas: clip.mp4") and hosts'
 * message events carry it. The bot messages route and campaigns send this.
 */
export function fromBot(content: BotMessageContent, botName: string | null | undefined): PreparedMessage {
  const message = toWidgetMessage(content);
  return botName ? { ...message, senderNames: botName } : message;
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

/** NAT64's well-known prefix (RFC 6052): the IPv4 address is the last 32 bits. */
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** Where IANA allocates global unicast IPv6 (RFC 4291); everything outside it is special. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * True only for a globally routable unicast address: what ipaddr.js calls
 * `unicast` (so not private, loopback, link-local, CGNAT, multicast,
 * broadcast, documentation, benchmarking, reserved, nor the anycast AS112 and
 * AMT blocks), and for IPv6 also inside 2000::/3. IPv6 forms that carry an
 * IPv4 address:
 * - IPv4-mapped `::ffff:a.b.c.d` (any spelling) is judged as the IPv4 address
 *   it reaches on a dual-stack socket;
 * - NAT64 `64:ff9b::/96` is judged as its embedded IPv4 address (DNS64 gives
 *   these for IPv4-only hosts on IPv6-only networks);
 * - refused outright, whatever they embed: IPv4-compatible `::a.b.c.d`
 *   (deprecated, RFC 4291), local-use NAT64 `64:ff9b:1::/48` (a site's own
 *   translator), 6to4 `2002::/16` (deprecated, RFC 7526) and Teredo
 *   `2001::/32` (a client tunnel): none hosts files, and each can lead to an
 *   IPv4 address the check would not see.
 */
function isPublicAddress(ip: string): boolean {
  if (isIP(ip) === 0) return false;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(ip);
  } catch {
    return false;
  }
  if (address instanceof ipaddr.IPv6) {
    if (address.isIPv4MappedAddress()) address = address.toIPv4Address();
    else if (address.match(NAT64)) address = new ipaddr.IPv4(address.toByteArray().slice(12));
    else return address.match(GLOBAL_UNICAST_V6) && address.range() === 'unicast';
  }
  return address.range() === 'unicast';
}

/** 127.0.0.0/8 and ::1 (also IPv4-mapped): what a loopback host may resolve to. */
function isLoopbackAddress(ip: string): boolean {
  if (isIP(ip) === 0) return false;
  try {
    return ipaddr.process(ip).range() === 'loopback';
  } catch {
    return false;
  }
}

/** Names for private networks and this machine, never public hosts. */
const PRIVATE_SUFFIX =
  /\.(?:localhost|local|localdomain|internal|intranet|lan|home|corp|private|home\.arpa)$/;

/**
 * True for a host that is an IP literal other than a globally routable unicast
 * address (see isPublicAddress), a name of one label, or a name under a
 * private-network suffix (PRIVATE_SUFFIX).
 */
function isPrivateAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (isIP(h) !== 0) return !isPublicAddress(h);
  const name = h.toLowerCase();
  // A name of one label (`https://intranet/`) is looked up in the local network's search domains,
  // and these suffixes are for private networks only (.internal is ICANN's, .home.arpa RFC 8375's).
  return !name.includes('.') || PRIVATE_SUFFIX.test(name);
}

/**
 * Whether the service may fetch (and a widget may show) this media address:
 * https to a public host, or http/https on loopback when the configuration
 * allows it (tests, the demo). Null when allowed, else the reason.
 */
export function mediaUrlProblem(raw: string, allowLoopback: boolean): string | null {
  // A tab or line break, which the URL parser drops silently, would make the address stored
  // differ from the one checked (and a widget refuses it): parseAddress refuses those first.
  const url = parseAddress(raw);
  if (typeof url === 'string') return url;
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

const MEDIA_URL = new RegExp(MEDIA_URL_PATTERN);

/**
 * What is wrong with a video's address as given, or null: the contract's
 * shape (http(s):// from its first character, at most MEDIA_URL_MAX
 * characters), then mediaUrlProblem.
 */
function videoAddressProblem(raw: string, allowLoopback: boolean): string | null {
  if (!MEDIA_URL.test(raw)) return 'must be an absolute https:// address';
  if (charCount(raw) > MEDIA_URL_MAX) return `must be at most ${MEDIA_URL_MAX} characters`;
  return mediaUrlProblem(raw, allowLoopback);
}

/** How long the video check waits for the file's host, in ms. */
export const MEDIA_CHECK_TIMEOUT_MS = 4000;
const MAX_REDIRECTS = 3;
/** HEAD answers after which the check asks again with GET (see checkVideo). */
const HEAD_REFUSED = new Set([403, 405, 501]);

/** Resolves a host name to all its addresses; dns.lookup unless a test gives its own. */
export type MediaLookup = (hostname: string) => Promise<ReadonlyArray<{ address: string }>>;

const systemLookup: MediaLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * The socket's own name resolution for one hop: the name is resolved once,
 * every answer must be public (or, for a loopback host the configuration
 * allows, loopback), and the socket connects only to those checked answers.
 * No second resolution can point it elsewhere (DNS rebinding). Why a
 * resolution was refused is left in `refusal` for the caller's error.
 */
function checkedLookup(
  resolve: MediaLookup,
  loopbackHost: boolean,
  refusal: { message?: string },
): LookupFunction {
  return (hostname, options, callback) => {
    const fail = (message: string) => {
      refusal.message = message;
      callback(new Error(message), '');
    };
    // A lookup that throws at once fails like one that rejects.
    Promise.resolve(hostname)
      .then(resolve)
      .then(
        (answers) => {
          const addresses = answers.map((a) => ({ address: a.address, family: isIP(a.address) }));
          if (addresses.length === 0) return fail('The media host does not resolve.');
          const allowed = loopbackHost ? isLoopbackAddress : isPublicAddress;
          if (addresses.some((a) => !allowed(a.address))) {
            return fail('The media host resolves to a private address.');
          }
          const usable =
            options.family === 4 || options.family === 6
              ? addresses.filter((a) => a.family === options.family)
              : addresses;
          const first = usable[0];
          if (!first) return fail('The media host does not resolve.');
          if (options.all) callback(null, usable);
          else callback(null, first.address, first.family);
        },
        () => fail('The media host does not resolve.'),
      );
  };
}

/**
 * One HEAD request (or, with `method` GET, a request for the first byte),
 * connecting through `lookup`. Resolves with the status and headers as soon
 * as they arrive; the connection is closed then (no body is read, nothing is
 * kept alive), and `signal` cuts it at any point before.
 */
function head(
  url: URL,
  lookup: LookupFunction,
  signal: AbortSignal,
  method: 'HEAD' | 'GET' = 'HEAD',
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method,
      headers: {
        accept: '*/*',
        'user-agent': 'Charla media check',
        ...(method === 'GET' ? { range: 'bytes=0-0' } : {}),
      },
      agent: false,
      lookup,
      signal,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.on('error', () => {}); // cut short below on purpose
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.resume();
      req.destroy();
    });
    req.end();
  });
}

/**
 * Checks a video address with HEAD requests (redirects followed by hand, each
 * hop held to the same rule; a host refusing HEAD with 403, 405 or 501 is
 * asked again for the first byte with GET): an address that is not a public
 * https one (the interface's "address invalid"), unreachable, not 2xx or an
 * HTML page -> INVALID_MEDIA_URL; not video/mp4 or video/3gp(p) ->
 * UNSUPPORTED_MEDIA_TYPE; over 16 MB -> MEDIA_TOO_LARGE. A file whose size the
 * host does not say passes. Host names are resolved once per hop, by `lookup`,
 * and the request goes only to the addresses that passed (a public name may
 * not lead to a private address). `field` names the address in the error
 * (`/message/mediaUrl` in a campaign).
 */
export async function checkVideo(
  raw: string,
  allowLoopback: boolean,
  timeoutMs = MEDIA_CHECK_TIMEOUT_MS,
  { lookup = systemLookup, field = '/mediaUrl' }: { lookup?: MediaLookup; field?: string } = {},
): Promise<void> {
  const invalid = videoAddressProblem(raw, allowLoopback);
  if (invalid) {
    throw new ApiError('INVALID_MEDIA_URL', {
      message: `The video address (${field}) ${invalid}.`,
      validationError: { [field]: invalid },
    });
  }
  let current = raw;
  const signal = AbortSignal.timeout(timeoutMs);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    // The given address passed videoAddressProblem, whose last step is this check.
    const problem = hop > 0 ? mediaUrlProblem(current, allowLoopback) : null;
    if (problem) {
      throw new ApiError('INVALID_MEDIA_URL', {
        message: `The media address redirects to an address that ${problem}.`,
      });
    }
    const url = new URL(current);
    const refusal: { message?: string } = {};
    let res: { status: number; headers: IncomingHttpHeaders };
    try {
      const viaLookup = checkedLookup(lookup, LOOPBACK_HOSTS.has(url.hostname), refusal);
      res = await head(url, viaLookup, signal);
      // Hosts without HEAD (405, 501), and object stores whose pre-signed addresses are signed
      // for GET only (HEAD is 403): the same facts from a request for the first byte.
      if (HEAD_REFUSED.has(res.status)) res = await head(url, viaLookup, signal, 'GET');
    } catch {
      const message =
        refusal.message ??
        (signal.aborted
          ? `The media address did not answer within ${timeoutMs} ms.`
          : 'The media address is unreachable.');
      throw new ApiError('INVALID_MEDIA_URL', { message });
    }
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.location;
      if (!location)
        throw new ApiError('INVALID_MEDIA_URL', { message: 'The media address redirects nowhere.' });
      try {
        current = new URL(location, current).toString();
      } catch {
        throw new ApiError('INVALID_MEDIA_URL', {
          message: 'The media address redirects to no valid address.',
        });
      }
      continue;
    }
    if (res.status < 200 || res.status >= 300) {
      throw new ApiError('INVALID_MEDIA_URL', { message: `The media address answered ${res.status}.` });
    }
    const type = (res.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type === 'text/html' || type === 'application/xhtml+xml') {
      throw new ApiError('INVALID_MEDIA_URL', { message: 'The media address is a page, not a file.' });
    }
    if (!(VIDEO_MEDIA_TYPES as readonly string[]).includes(type)) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
        message: `Video must be ${VIDEO_MEDIA_TYPES.join(' or ')}; the file is ${type || 'of no stated type'}.`,
      });
    }
    // A ranged answer (206) states the file's size after the slash of Content-Range.
    const length =
      res.status === 206
        ? /^bytes\s+[^/]*\/(\d+)\s*$/i.exec(res.headers['content-range'] ?? '')?.[1]
        : res.headers['content-length'];
    if (length !== undefined && /^\d+$/.test(length.trim()) && Number(length) > VIDEO_MAX_BYTES) {
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
 * `at` is where the message sits in the request body (`/message` in a campaign).
 */
export async function prepareBotMessage(
  charla: Charla,
  botId: string,
  content: BotMessageContent,
  at = '',
): Promise<PreparedMessage> {
  const bot = await requireBot(charla.db, botId, charla.config.companyId);
  if (content.type === 'voice_call' && !bot.calling_enabled) {
    throw new ApiError('CALLING_NOT_ENABLED', {
      message: `Calling is not enabled for bot ${botId}.`,
      data: { botId },
    });
  }
  if (content.type === 'video')
    await checkVideo(content.mediaUrl, charla.config.allowLoopbackMedia, MEDIA_CHECK_TIMEOUT_MS, {
      field: `${at}/mediaUrl`,
    });
  return fromBot(content, bot.name);
}

/**
 * Delivers a prepared message to one user in the bot's room. With a fixed id
 * (campaigns) a second call stores nothing new.
 */
export async function deliverPrepared(
  charla: Charla,
  input: { botId: string; userId: string; message: PreparedMessage; id?: string },
): Promise<{ messageId: string; duplicate: boolean; stored: Message; roomId: string }> {
  const { roomId } = await charla.messaging.ensureBotRoom({ botId: input.botId, userId: input.userId });
  const { message, duplicate } = await charla.messaging.deliver({
    ...input.message,
    id: input.id ?? randomUUID(),
    roomId,
    senderId: input.botId,
    by: 'bot',
  });
  return { messageId: String(message.id), duplicate, stored: message, roomId };
}

/** What a retry of a bot message must repeat: its bot, and the message its content made. */
const SAME_BOT_MESSAGE_KEYS = ['senderId', 'by', ...MESSAGE_CONTENT_KEYS, 'options', 'interactive'];

/**
 * POST /v1/bots/{botId}/messages in one call. With the caller's own id, the same request again
 * stores nothing and answers that id; the id of another message (another content, user, bot or
 * room, or a message that is not a bot's) is 400 at /id.
 */
export async function sendBotMessage(
  charla: Charla,
  botId: string,
  userId: string,
  content: BotMessageContent,
  id?: string,
): Promise<{ messageId: string }> {
  const key = id?.toLowerCase();
  const refuse = () =>
    validationFailed({ '/id': 'already names another message (a retry must repeat its request)' });
  const same = (stored: Message, shown: PreparedMessage, roomIs: (roomId: string) => boolean) =>
    roomIs(stored.roomId) &&
    sameFields(stored, { ...shown, senderId: botId, by: 'bot' }, SAME_BOT_MESSAGE_KEYS);
  if (key !== undefined) {
    // A retry is answered before anything is checked or written: its video host down since, or the
    // bot's calling turned off, does not make a stored message a refusal; a refused one makes no room.
    const { rows } = await charla.db.query<MessageRow & { room_key: string | null }>(
      `SELECT m.id, m.room_id, m.seq, m.status, m.body, r.room_key
         FROM messages m LEFT JOIN rooms r ON r.id = m.room_id WHERE m.id = $1`,
      [key],
    );
    const row = rows[0];
    if (row) {
      const inItsRoom = () => row.room_key === `bot:${botId}:${userId}`;
      if (!same(toMessage(row), toWidgetMessage(content), inItsRoom)) throw refuse();
      return { messageId: key };
    }
  }
  const prepared = await prepareBotMessage(charla, botId, content);
  const { messageId, duplicate, stored, roomId } = await deliverPrepared(charla, {
    botId,
    userId,
    message: prepared,
    ...(key === undefined ? {} : { id: key }),
  });
  // Stored a moment ago by the same id's other request (a retry racing its first try; the room is
  // the bot's with this user, made by then).
  if (duplicate && !same(stored, prepared, (storedIn) => storedIn === roomId)) throw refuse();
  return { messageId };
}
