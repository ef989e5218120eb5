/**
 * Every limit of the interface as a named constant. No imports: the browser
 * bundle reads these directly.
 */

/** List campaigns: page size when none is given. */
export const CAMPAIGN_LIST_LIMIT_DEFAULT = 10;
/** List campaigns: largest page size accepted. */
export const CAMPAIGN_LIST_LIMIT_MAX = 50;
/** List campaigns: page when none is given. */
export const CAMPAIGN_LIST_PAGE_DEFAULT = 1;
/** List campaigns: largest page accepted (our choice: the offset stays far inside a safe integer). */
export const CAMPAIGN_LIST_PAGE_MAX = 1_000_000_000;

/** Text with options: fewest options per message. */
export const OPTIONS_MIN = 1;
/** Text with options: most options per message. */
export const OPTIONS_MAX = 10;
/** Text with options: longest option title, in characters. */
export const OPTION_TITLE_MAX = 24;
/** Text with options: longest option description, in characters. */
export const OPTION_DESCRIPTION_MAX = 72;
/** Text with options: button text when none is given. */
export const DEFAULT_BUTTON_TEXT = 'Opciones';

/** Video message: accepted content types. */
export const VIDEO_MEDIA_TYPES = ['video/mp4', 'video/3gp', 'video/3gpp'] as const;
/** Video message: largest file, in bytes (16 MB). */
export const VIDEO_MAX_BYTES = 16 * 1024 * 1024;

/** Assets refresh: shortest lifetime of a signed address, in seconds. */
export const SIGNED_URL_TTL_MIN = 900;
/** Assets refresh: longest lifetime of a signed address, in seconds. */
export const SIGNED_URL_TTL_MAX = 3600;

/** Widget getMessages: page size when none is given. */
export const GET_MESSAGES_LIMIT_DEFAULT = 20;
/** Widget getMessages: largest page size the service returns (our choice). */
export const GET_MESSAGES_LIMIT_MAX = 100;

/** Longest media address (https), in characters. */
export const MEDIA_URL_MAX = 2048;
/**
 * A message's text, an option's title, a button's text or a name holds something visible: a
 * character that is neither white space nor invisible: a Default_Ignorable_Code_Point of Unicode
 * (soft hyphen, zero-width space and joiners, word joiner, bidirectional marks and controls,
 * Hangul fillers, variation selectors, tag characters, musical formatting controls...), a control
 * character (C0, DEL, C1: `\p{Cc}`) or the blank Braille pattern, so none shows as an empty bubble
 * or an unlabelled button. A Unicode pattern: compile it with the `u` flag (as JSON Schema
 * patterns are, and TypeBox does).
 */
export const NOT_BLANK_PATTERN = '[^\\s\\p{Cc}\\p{Default_Ignorable_Code_Point}\\u2800]';
/**
 * Explicit directional formatting characters: embeddings and overrides (U+202A–U+202E), isolates
 * (U+2066–U+2069) and marks (U+200E, U+200F, U+061C). In a name or a file name they serve only to
 * disguise it ("invoice\u202Efdp.exe" shows as "invoiceexe.pdf"); message text keeps them.
 */
export const DIRECTION_CONTROL_PATTERN = '[\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]';
/**
 * A name shown on one line (a bot's, which signs its messages): something visible in it, and no
 * control character or line break (C0, DEL, C1, U+2028/2029).
 */
export const ONE_LINE_NAME_PATTERN = `^(?=[\\s\\S]*${NOT_BLANK_PATTERN})[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$`;
/** A media address starts with http:// or https:// (any case), nothing before it (http only where loopback media is allowed). */
export const MEDIA_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://';
/**
 * A character no address may hold: a space or a control character (C0, DEL, C1), any other
 * Unicode space or line separator, or an invisible formatting character (zero-width, direction
 * controls, the byte-order mark). The URL parser drops tabs and line breaks silently, so the
 * address checked would not be the one stored; a direction control makes what it shows differ
 * from what it is (`\u202Egnp.exe`).
 */
export const URL_FORBIDDEN_CHAR_PATTERN =
  '[\\u0000-\\u0020\\u007f-\\u00a0\\u00ad\\u061c\\u1680\\u180e\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u3000\\ufeff]';
/** The reason the service and charla/api give for one (sendMessage says it in its own words). */
export const URL_FORBIDDEN_CHAR_REASON = 'must not contain spaces or control characters';

/**
 * Largest socket event the service handles, in bytes of its JSON (64 KB; binary counts by its
 * bytes): a larger one is refused 413 PAYLOAD_TOO_LARGE in its acknowledgement (dropped without
 * one), and the connection stays open.
 */
export const MAX_EVENT_BYTES = 64 * 1024;
/**
 * Largest frame the socket's engine reads, in bytes (4 × MAX_EVENT_BYTES, a handshake's token
 * included): only a frame past this ends the connection, unanswered.
 */
export const MAX_SOCKET_FRAME_BYTES = 4 * MAX_EVENT_BYTES;

/** Social-media channels: largest image, in bytes (8 MB). */
export const CHANNEL_IMAGE_MAX_BYTES = 8 * 1024 * 1024;
/** Social-media channels: largest video, audio or PDF, in bytes (25 MB). */
export const CHANNEL_MEDIA_MAX_BYTES = 25 * 1024 * 1024;
/** Social-media channels: longest postback button text, in characters. */
export const CHANNEL_POSTBACK_BUTTON_MAX = 20;

/** Widget uploads: largest image (same as the channel limit). */
export const UPLOAD_IMAGE_MAX_BYTES = CHANNEL_IMAGE_MAX_BYTES;
/** Widget uploads: largest audio, video or document. */
export const UPLOAD_MEDIA_MAX_BYTES = CHANNEL_MEDIA_MAX_BYTES;
/** Widget uploads: accepted content types, by message type. */
export const UPLOAD_MEDIA_TYPES = {
  IMAGE: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
  AUDIO: ['audio/webm', 'audio/ogg', 'audio/mpeg', 'audio/mp4', 'audio/wav', 'audio/aac'],
  VIDEO: ['video/mp4', 'video/3gpp', 'video/webm'],
  DOCUMENT: [
    'application/pdf',
    'text/plain',
    'text/csv',
    'application/msword',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.ms-excel',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/zip',
  ],
} as const;

/**
 * A text's length in characters as every limit here counts them: code points,
 * so an emoji is one (as the service's schemas count), not two UTF-16 units.
 */
export const charCount = (text: string): number => (text.length < 2 ? text.length : [...text].length);

/** Longest text of a widget or bot message, in characters (our choice; the interface shows none). */
export const MESSAGE_TEXT_MAX = 4096;
/** Longest caption, name, title or header, in characters (our choice). */
export const SHORT_TEXT_MAX = 1024;
/** Most messages in one room post (our choice). */
export const ROOM_POST_MESSAGES_MAX = 100;
/** Most recipients of one campaign (our choice). */
export const CAMPAIGN_RECIPIENTS_MAX = 100_000;
/** Most contacts in one bot contacts message (our choice). */
export const CONTACTS_MAX = 20;
/** Most members added in one addMembers call (our choice). */
export const ADD_MEMBERS_MAX = 100;
/**
 * Most members of one room (our choice): every member added, and every message, costs the
 * service once per member (a room grown to 2,000 by one client held every other request for 5 s
 * at each addMembers call).
 */
export const ROOM_MEMBERS_MAX = 200;

/** Lifetime of a widget session token, in seconds (our choice). */
export const SESSION_TTL_SECONDS = 24 * 60 * 60;
/** Lifetime of signed media addresses the service hands to widgets, in seconds. */
export const MEDIA_URL_TTL_DEFAULT = SIGNED_URL_TTL_MAX;

/**
 * E.164: a plus sign and 7 to 15 digits, the first not zero. E.164 sets the 15-digit maximum;
 * the shortest numbers in use are 7 digits with their country code (Niue +683, Tokelau +690).
 */
export const E164_PATTERN = '^\\+[1-9][0-9]{6,14}$';
/** A UUID of any version, in its canonical text form. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/**
 * The shapes both sides check (the service in its schemas and routes, the API
 * client before sending), as patterns in strings: no RegExp state is shared.
 */
/** Assets refresh: a resourceUrl starts with https:// (any case), nothing before it. */
export const HTTPS_ADDRESS_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]://';
/** Longest assets-refresh resourceUrl, in characters (code points). */
export const RESOURCE_URL_MAX = 4096;
/**
 * Widget credentials: an origin pattern (`https://shop.example.com`, `https://*.example.com`,
 * `http://localhost:3000`, `https://bücher.example`, stored as `https://xn--bcher-kva.example`).
 * The host's labels, port range and wildcard are checked by types/origins.ts.
 */
// Non-ASCII as "not 0000-007F", not a range up to FFFF: the same answer with and without the
// `u` flag (with it, an emoji is one code point past FFFF; without, two surrogates).
// The scheme in any case and one trailing slash are taken as pasted from an address bar
// (`HTTPS://shop.example.com/`); the stored origin is the browser's spelling all the same.
export const ORIGIN_PATTERN =
  '^[Hh][Tt][Tt][Pp][Ss]?://(\\*\\.)?(?:[A-Za-z0-9.-]|[^\\u0000-\\u007F])+(:[0-9]{1,5})?/?$';
/** Longest origin pattern, in characters. */
export const ORIGIN_MAX = 300;
/** Most origins in a whiteList or blackList. */
export const ORIGIN_LIST_MAX = 200;
/** A DNS label of an origin's host: 1 to 63 letters, digits or hyphens, no hyphen at either end. */
export const DNS_LABEL_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$';
/** Longest host of an origin, in characters (one trailing dot aside). */
export const DNS_HOST_MAX = 253;
/** An origin's port: 1 to 65535. */
export const PORT_MIN = 1;
export const PORT_MAX = 65535;
/** A theme colour the widget paints: #rgb or #rrggbb, or '' for the default (surrounding spaces aside). */
export const HEX_COLOUR_PATTERN = '^(?:#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}))?$';

/** The longest timer a browser or Node sets (2^31 - 1 ms, about 24.8 days): past it, one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
