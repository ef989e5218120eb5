/**
 * Checks of every argument against the interface's limits, before anything is
 * sent. Each check returns the bad fields by path (the same paths the service
 * names in `validationError`), empty when all is well. Plain code: the schema
 * library stays on the server.
 */
import {
  CAMPAIGN_FILTER_STATUSES,
  WIDGET_COLOR_SCHEMES,
  WIDGET_POSITIONS,
  WIDGET_TYPES,
} from '../../types/enums.ts';
import {
  ONE_LINE_NAME_PATTERN,
  charCount,
  CAMPAIGN_LIST_LIMIT_MAX,
  CAMPAIGN_LIST_PAGE_MAX,
  CAMPAIGN_RECIPIENTS_MAX,
  CONTACTS_MAX,
  E164_PATTERN,
  HEX_COLOUR_PATTERN,
  HTTPS_ADDRESS_PATTERN,
  MEDIA_URL_MAX,
  MEDIA_URL_PATTERN,
  NOT_BLANK_PATTERN,
  MESSAGE_TEXT_MAX,
  OPTION_DESCRIPTION_MAX,
  OPTION_TITLE_MAX,
  OPTIONS_MAX,
  OPTIONS_MIN,
  ORIGIN_LIST_MAX,
  ORIGIN_MAX,
  ORIGIN_PATTERN,
  RESOURCE_URL_MAX,
  ROOM_POST_MESSAGES_MAX,
  SHORT_TEXT_MAX,
  SIGNED_URL_TTL_MAX,
  SIGNED_URL_TTL_MIN,
  UUID_PATTERN,
} from '../../types/limits.ts';
import { originHostProblem } from '../../types/origins.ts';
import {
  DATE_MESSAGES,
  DATE_OR_DATE_TIME_PATTERN,
  parseDate,
  ZONED_DATE_TIME_PATTERN,
} from '../../types/dates.ts';
import { parseAddress } from '../../types/urls.ts';
// The very check the service's schema (`format: 'idn-email'`) runs: both take the same addresses.
import { IsIdnEmail } from 'typebox/format';

export type Problems = Record<string, string>;

const E164 = new RegExp(E164_PATTERN);
const UUID = new RegExp(UUID_PATTERN);
const ZONED_DATE_TIME = new RegExp(ZONED_DATE_TIME_PATTERN);
const DATE_OR_DATE_TIME = new RegExp(DATE_OR_DATE_TIME_PATTERN);
const ORIGIN = new RegExp(ORIGIN_PATTERN);
const HEX_COLOUR = new RegExp(HEX_COLOUR_PATTERN);
const HTTPS_ADDRESS = new RegExp(HTTPS_ADDRESS_PATTERN);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Options of the checks. */
export interface ValidateOptions {
  /**
   * Accept `http://localhost` and `http://127.0.0.1` media addresses (a local
   * service in development or tests). Default false: the interface asks for HTTPS.
   */
  allowLoopbackHttp?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A required non-empty string of at most `max` characters. */
function requireString(p: Problems, path: string, value: unknown, max = 200): void {
  if (typeof value !== 'string' || value.length === 0) p[path] = 'is required (a non-empty string)';
  else if (charCount(value) > max) p[path] = `must be at most ${max} characters`;
}

/**
 * A required string of at most `max` characters that shows something: not white space or
 * invisible characters only (the service's NOT_BLANK_PATTERN). Texts, labels and names.
 */
function requireVisible(p: Problems, path: string, value: unknown, max: number): void {
  requireString(p, path, value, max);
  if (!p[path] && !NOT_BLANK.test(value as string))
    p[path] = 'must not be blank (white space or invisible characters only)';
}

/** A message's text: required, within max, and not blank. */
function requireMessageText(p: Problems, path: string, value: unknown): void {
  requireVisible(p, path, value, MESSAGE_TEXT_MAX);
}

function optionalString(p: Problems, path: string, value: unknown, max = SHORT_TEXT_MAX): void {
  if (value === undefined) return;
  if (typeof value !== 'string') p[path] = 'must be a string';
  else if (charCount(value) > max) p[path] = `must be at most ${max} characters`;
}

const MEDIA_URL = new RegExp(MEDIA_URL_PATTERN);
const NOT_BLANK = new RegExp(NOT_BLANK_PATTERN, 'u');
const ONE_LINE = new RegExp(ONE_LINE_NAME_PATTERN, 'u');

/**
 * True for a media address the service may take: an absolute https address
 * (or http on the local machine when allowed) from its first character, at
 * most 2,048 characters, without credentials or a trailing dot on its host.
 * The service also refuses hosts that are not public (`https://10.0.0.1`):
 * that answer comes back from it (a video's as 422 INVALID_MEDIA_URL, a room
 * post's as a 400), naming the field.
 */
export function isHttpsUrl(value: unknown, options: ValidateOptions = {}): value is string {
  return typeof value === 'string' && videoAddressProblem(value, options) === null;
}

/**
 * What is wrong with a video's `mediaUrl` given as a string, or null: the
 * reasons the service gives in its 422 INVALID_MEDIA_URL (E1201) for an
 * address it will not fetch, as far as they can be told without resolving
 * the host (a private or documentation host is the service's to refuse).
 * Null exactly when {@link isHttpsUrl} holds.
 */
export function videoAddressProblem(value: string, options: ValidateOptions = {}): string | null {
  if (!MEDIA_URL.test(value)) return 'must be an absolute https:// address';
  if (charCount(value) > MEDIA_URL_MAX) return `must be at most ${MEDIA_URL_MAX} characters`;
  const url = parseAddress(value);
  if (typeof url === 'string') return url;
  if (url.hostname.endsWith('.')) return 'must name its host without a trailing dot';
  const https = url.protocol === 'https:';
  const loopback = LOOPBACK.has(url.hostname);
  if (https ? url.hostname : url.protocol === 'http:' && options.allowLoopbackHttp === true && loopback)
    return null;
  if (loopback) return 'must be a public https address';
  return https ? 'must be an absolute https address' : 'must be an https address';
}

/**
 * The field of a bot message's problems that the service answers with 422
 * INVALID_MEDIA_URL rather than 400 VALIDATION_ERROR, if any: a video's
 * `mediaUrl` that is a string (a missing or non-string one is a 400). `prefix`
 * is where the message sits (`/message` in a campaign).
 */
export function mediaUrlField(message: unknown, problems: Problems, prefix = ''): string | undefined {
  const field = `${prefix}/mediaUrl`;
  return isObject(message) &&
    message['type'] === 'video' &&
    typeof message['mediaUrl'] === 'string' &&
    field in problems
    ? field
    : undefined;
}

/**
 * True for an assets-refresh resourceUrl the service takes: `https://` in any
 * case from its first character, at most 4096 characters, no space, control or
 * invisible formatting character, a valid address, and no user name or
 * password in it.
 */
export function isResourceUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !HTTPS_ADDRESS.test(value) || charCount(value) > RESOURCE_URL_MAX)
    return false;
  return typeof parseAddress(value) !== 'string';
}

function httpsUrl(p: Problems, path: string, value: unknown, options: ValidateOptions): void {
  if (value === undefined || value === '') p[path] = 'is required (an https address)';
  else if (!isHttpsUrl(value, options)) p[path] = 'must be an absolute https address';
}

/** True for a UUID in its canonical text form. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** True for a phone number in E.164 (`+` and 7 to 15 digits). */
export function isE164(value: unknown): value is string {
  return typeof value === 'string' && E164.test(value);
}

/** True when the text is a date or date-time the service accepts: a real one, read as it reads it. */
function isDate(value: unknown): boolean {
  return typeof value === 'string' && parseDate(value) !== null;
}

/** True for a real date-time that names its time zone (`Z` or an offset), as scheduledAt must. */
function isZonedDateTime(value: unknown): boolean {
  return typeof value === 'string' && ZONED_DATE_TIME.test(value) && parseDate(value) !== null;
}

export function checkId(p: Problems, path: string, value: unknown): void {
  requireString(p, path, value, 200);
}

/**
 * What is wrong with a scheduledAt, in the service's words: a date-time that names no time zone,
 * or one that names it but is not a real instant (Feb 30, 24:00).
 */
function zonedDateTimeProblem(value: unknown): string {
  return typeof value === 'string' && ZONED_DATE_TIME.test(value)
    ? DATE_MESSAGES.realZoned
    : DATE_MESSAGES.zonedShape;
}

/** GET /v1/campaigns query. */
export function checkListQuery(query: unknown): Problems {
  const p: Problems = {};
  if (!isObject(query)) return { '/': 'query must be an object' };
  checkId(p, 'querystring:/botId', query['botId']);
  for (const name of ['startAt', 'endAt'] as const) {
    if (!isDate(query[name]))
      p[`querystring:/${name}`] =
        query[name] === undefined
          ? 'is required (a date, YYYY-MM-DD, or an ISO 8601 date-time)'
          : typeof query[name] === 'string' && DATE_OR_DATE_TIME.test(query[name])
            ? DATE_MESSAGES.realDate
            : DATE_MESSAGES.dateShape;
  }
  const page = query['page'];
  if (
    page !== undefined &&
    !(Number.isInteger(page) && (page as number) >= 1 && (page as number) <= CAMPAIGN_LIST_PAGE_MAX)
  ) {
    p['querystring:/page'] = `must be an integer from 1 to ${CAMPAIGN_LIST_PAGE_MAX}`;
  }
  const limit = query['limit'];
  if (
    limit !== undefined &&
    !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= CAMPAIGN_LIST_LIMIT_MAX)
  ) {
    p['querystring:/limit'] = `must be an integer from 1 to ${CAMPAIGN_LIST_LIMIT_MAX}`;
  }
  // Given, it must say something: an empty filter would match no campaign.
  optionalString(p, 'querystring:/elementName', query['elementName']);
  if (query['elementName'] === '') p['querystring:/elementName'] = 'must not be empty';
  const status = query['status'];
  if (status !== undefined && !(CAMPAIGN_FILTER_STATUSES as readonly unknown[]).includes(status)) {
    p['querystring:/status'] = `must be one of ${CAMPAIGN_FILTER_STATUSES.join(', ')}`;
  }
  return p;
}

/** One bot message, with (`withRecipient`) or without (a campaign's content) its userId. */
export function checkBotMessage(
  message: unknown,
  options: ValidateOptions & { withRecipient?: boolean } = {},
  prefix = '',
): Problems {
  const p: Problems = {};
  if (!isObject(message)) return { [prefix || '/']: 'must be an object' };
  const at = (field: string) => `${prefix}/${field}`;
  if (options.withRecipient !== false) {
    checkId(p, at('userId'), message['userId']);
    if (message['id'] !== undefined && !isUuid(message['id'])) p[at('id')] = 'must be a UUID';
  } else {
    if ('userId' in message) p[at('userId')] = 'is not allowed: recipients name the users';
    // Each recipient's copy has an id of its own: the campaign's `id` is the retry's key.
    if ('id' in message) p[at('id')] = 'is not allowed: give the campaign its id';
  }
  if (message['botId'] !== undefined) checkId(p, at('botId'), message['botId']);
  const text = message['text'];
  switch (message['type']) {
    case 'text': {
      requireMessageText(p, at('text'), text);
      if (message['buttons'] !== undefined) Object.assign(p, checkButtons(message['buttons'], at('buttons')));
      break;
    }
    case 'contacts': {
      const contacts = message['contacts'];
      if (!Array.isArray(contacts) || contacts.length === 0)
        p[at('contacts')] = `is required (1 to ${CONTACTS_MAX} contacts)`;
      else if (contacts.length > CONTACTS_MAX)
        p[at('contacts')] = `must hold at most ${CONTACTS_MAX} contacts`;
      else contacts.forEach((c, i) => Object.assign(p, checkContact(c, at(`contacts/${i}`))));
      break;
    }
    case 'voice_call': {
      optionalString(p, at('header'), message['header']);
      // A heading: none (empty), or one line of visible text (the service's GivenName).
      const header = message['header'];
      if (!p[at('header')] && typeof header === 'string' && header !== '' && !ONE_LINE.test(header))
        p[at('header')] =
          'must be empty or one line of visible text (not blank, no control characters or line breaks)';
      requireMessageText(p, at('text'), text);
      const parameters = message['parameters'];
      if (!isObject(parameters)) p[at('parameters')] = 'is required (an object with display_text)';
      else requireVisible(p, at('parameters/display_text'), parameters['display_text'], SHORT_TEXT_MAX);
      break;
    }
    case 'video': {
      // A string that is no address the service may fetch is its 422 INVALID_MEDIA_URL (see mediaUrlField).
      const mediaUrl = message['mediaUrl'];
      if (typeof mediaUrl !== 'string') p[at('mediaUrl')] = 'is required (an https address)';
      else {
        const problem = videoAddressProblem(mediaUrl, options);
        if (problem) p[at('mediaUrl')] = problem;
      }
      // The caption: a caption's limit (1 to 1,024 characters), not a text's, and not blank.
      if (text !== undefined) requireVisible(p, at('text'), text, SHORT_TEXT_MAX);
      break;
    }
    case 'contact_info_request': {
      requireMessageText(p, at('text'), text);
      break;
    }
    default:
      p[at('type')] = 'must be one of text, contacts, voice_call, video, contact_info_request';
  }
  return p;
}

/** The `buttons` object of a text-with-options message. */
export function checkButtons(buttons: unknown, path = '/buttons'): Problems {
  const p: Problems = {};
  if (!isObject(buttons)) return { [path]: 'must be an object with options' };
  optionalString(p, `${path}/title`, buttons['title']);
  const buttonText = buttons['buttonText'];
  if (buttonText !== undefined) {
    if (!isObject(buttonText) || buttonText['type'] !== 'text')
      p[`${path}/buttonText`] = "must be { type: 'text', text }";
    else requireVisible(p, `${path}/buttonText/text`, buttonText['text'], OPTION_TITLE_MAX);
  }
  const options = buttons['options'];
  if (!Array.isArray(options) || options.length < OPTIONS_MIN || options.length > OPTIONS_MAX) {
    p[`${path}/options`] = `must hold ${OPTIONS_MIN} to ${OPTIONS_MAX} options`;
    return p;
  }
  options.forEach((o, i) => {
    const at = `${path}/options/${i}`;
    if (!isObject(o)) {
      p[at] = 'must be an object with a title';
      return;
    }
    requireVisible(p, `${at}/title`, o['title'], OPTION_TITLE_MAX);
    optionalString(p, `${at}/description`, o['description'], OPTION_DESCRIPTION_MAX);
    optionalString(p, `${at}/payload`, o['payload']);
  });
  return p;
}

/** One contact of a contacts message: every field optional, phones in E.164. */
export function checkContact(contact: unknown, path: string): Problems {
  const p: Problems = {};
  if (!isObject(contact)) return { [path]: 'must be an object' };
  const name = contact['name'];
  if (name !== undefined) {
    if (!isObject(name)) p[`${path}/name`] = 'must be an object';
    else
      for (const k of ['formatted_name', 'first_name', 'last_name'])
        optionalString(p, `${path}/name/${k}`, name[k]);
  }
  const list = (field: string, each: (item: Record<string, unknown>, at: string) => void) => {
    const v = contact[field];
    if (v === undefined) return;
    if (!Array.isArray(v) || v.length > 20) {
      p[`${path}/${field}`] = 'must be a list of at most 20 entries';
      return;
    }
    v.forEach((item, i) => {
      const at = `${path}/${field}/${i}`;
      if (!isObject(item)) p[at] = 'must be an object';
      else each(item, at);
    });
  };
  list('phones', (ph, at) => {
    if (ph['phone'] !== undefined && !isE164(ph['phone']))
      p[`${at}/phone`] = 'must be in E.164 format (+ and 7 to 15 digits)';
    optionalString(p, `${at}/type`, ph['type']);
    optionalString(p, `${at}/wa_id`, ph['wa_id']);
  });
  list('emails', (em, at) => {
    const email = em['email'];
    if (email !== undefined && (typeof email !== 'string' || email.length > 320 || !IsIdnEmail(email)))
      p[`${at}/email`] = 'must be an email address';
    optionalString(p, `${at}/type`, em['type']);
  });
  list('addresses', (ad, at) => {
    for (const k of ['street', 'city', 'state', 'zip', 'country', 'country_code', 'type'])
      optionalString(p, `${at}/${k}`, ad[k]);
  });
  return p;
}

/** POST /v1/campaigns body. */
export function checkCampaignCreate(body: unknown, options: ValidateOptions = {}): Problems {
  const p: Problems = {};
  if (!isObject(body)) return { '/': 'body must be an object' };
  if (body['id'] !== undefined && !isUuid(body['id'])) p['/id'] = 'must be a UUID';
  requireVisible(p, '/name', body['name'], SHORT_TEXT_MAX);
  requireVisible(p, '/elementName', body['elementName'], SHORT_TEXT_MAX);
  checkId(p, '/botId', body['botId']);
  const recipients = body['recipients'];
  if (!Array.isArray(recipients) || recipients.length === 0)
    p['/recipients'] = 'is required (at least one user id)';
  else if (recipients.length > CAMPAIGN_RECIPIENTS_MAX)
    p['/recipients'] = `must hold at most ${CAMPAIGN_RECIPIENTS_MAX} user ids`;
  else recipients.forEach((r, i) => checkId(p, `/recipients/${i}`, r));
  const message = body['message'];
  // As in a direct send, a botId in the message must be the campaign's bot.
  if (isObject(message) && message['botId'] !== undefined && message['botId'] !== body['botId'])
    p['/message/botId'] = 'must match the botId of the campaign';
  Object.assign(p, checkBotMessage(message, { ...options, withRecipient: false }, '/message'));
  if (body['scheduledAt'] !== undefined && !isZonedDateTime(body['scheduledAt'])) {
    p['/scheduledAt'] = zonedDateTimeProblem(body['scheduledAt']);
  }
  return p;
}

/** PUT /v1/campaigns/{id} body: name, scheduledAt, or both. */
export function checkCampaignUpdate(body: unknown): Problems {
  const p: Problems = {};
  if (!isObject(body)) return { '/': 'body must be an object' };
  if (body['name'] === undefined && body['scheduledAt'] === undefined)
    return { '/': 'give name, scheduledAt, or both' };
  if (body['name'] !== undefined) requireVisible(p, '/name', body['name'], SHORT_TEXT_MAX);
  if (body['scheduledAt'] !== undefined && !isZonedDateTime(body['scheduledAt'])) {
    p['/scheduledAt'] = zonedDateTimeProblem(body['scheduledAt']);
  }
  return p;
}

/**
 * What is wrong with an origin pattern of a whiteList or blackList, or null
 * when a browser can send it: the contract's shape, then (as the service,
 * types/origins.ts) a host of DNS labels (1 to 63 characters, no hyphen at
 * either end, one trailing dot allowed, 253 characters at most, an
 * internationalised name counted in its punycode form), a port from 1 to
 * 65535, and no wildcard over a whole top-level domain.
 */
export function originProblem(value: unknown): string | null {
  if (typeof value !== 'string' || charCount(value) > ORIGIN_MAX || !ORIGIN.test(value))
    return 'must be an origin such as https://shop.example.com or https://*.example.com';
  return originHostProblem(value);
}

/** True for a theme colour the widget paints: #rgb or #rrggbb, or '' for its default (spaces around aside). */
export function isHexColour(value: unknown): value is string {
  return typeof value === 'string' && HEX_COLOUR.test(value.trim());
}

/** The theme values the widget reads beyond the typed ones: colours, colorScheme, darkMode. */
function checkThemeValues(p: Problems, theme: Record<string, unknown>): void {
  const colours: Array<[string, unknown]> = [
    ['/widget/theme/primaryColor', theme['primaryColor']],
    ['/widget/theme/color', theme['color']],
  ];
  const colors = theme['colors'];
  if (isObject(colors)) colours.push(['/widget/theme/colors/primary', colors['primary']]);
  else if (colors !== undefined)
    p['/widget/theme/colors'] = 'must be an object such as { "primary": "#4f46e5" }';
  for (const [at, value] of colours)
    if (value !== undefined && !isHexColour(value)) p[at] = 'must be a hex colour: #rgb or #rrggbb';
  const scheme = theme['colorScheme'];
  if (scheme !== undefined && !(WIDGET_COLOR_SCHEMES as readonly unknown[]).includes(scheme))
    p['/widget/theme/colorScheme'] = `must be one of ${WIDGET_COLOR_SCHEMES.join(', ')}`;
  if (theme['darkMode'] !== undefined && typeof theme['darkMode'] !== 'boolean')
    p['/widget/theme/darkMode'] = 'must be a boolean';
}

const BOT_FIELDS = ['id', 'name', 'callingEnabled'];

/** POST /v1/widget/create body. */
export function checkWidgetCreate(body: unknown): Problems {
  const p: Problems = {};
  if (!isObject(body)) return { '/': 'body must be an object' };
  const bot = body['bot'];
  if (!isObject(bot)) p['/bot'] = 'is required ({ id } to reuse a bot, {} to create one)';
  else {
    if (bot['id'] !== undefined) checkId(p, '/bot/id', bot['id']);
    if (bot['name'] !== undefined) requireString(p, '/bot/name', bot['name'], 200);
    if (bot['callingEnabled'] !== undefined && typeof bot['callingEnabled'] !== 'boolean')
      p['/bot/callingEnabled'] = 'must be a boolean';
    // An existing bot is reused as it is: a new bot's settings beside its id would be ignored.
    if (typeof bot['id'] === 'string')
      for (const field of ['name', 'callingEnabled'])
        if (bot[field] !== undefined && !(`/bot/${field}` in p))
          p[`/bot/${field}`] = 'is not allowed with /bot/id: an existing bot is reused as it is';
    const unknown = Object.keys(bot).filter((k) => !BOT_FIELDS.includes(k));
    if (unknown.length) p['/bot'] = `does not take ${unknown.join(', ')}`;
  }
  const widget = body['widget'];
  if (!isObject(widget)) {
    p['/widget'] = 'is required (the widget configuration)';
    return p;
  }
  const properties = widget['properties'];
  if (properties !== undefined) {
    if (!isObject(properties)) p['/widget/properties'] = 'must be an object';
    else {
      optionalString(p, '/widget/properties/name', properties['name']);
      if (
        properties['type'] !== undefined &&
        !(WIDGET_TYPES as readonly unknown[]).includes(properties['type'])
      ) {
        p['/widget/properties/type'] = `must be one of ${WIDGET_TYPES.join(', ')}`;
      }
    }
  }
  const theme = widget['theme'];
  if (theme !== undefined) {
    if (!isObject(theme)) p['/widget/theme'] = 'must be an object';
    else {
      if (
        theme['position'] !== undefined &&
        !(WIDGET_POSITIONS as readonly unknown[]).includes(theme['position'])
      ) {
        p['/widget/theme/position'] = `must be one of ${WIDGET_POSITIONS.join(', ')}`;
      }
      if (theme['status'] !== undefined && typeof theme['status'] !== 'boolean')
        p['/widget/theme/status'] = 'must be a boolean';
      checkThemeValues(p, theme);
      const font = theme['font'];
      if (font !== undefined) {
        if (!isObject(font)) p['/widget/theme/font'] = 'must be an object';
        else {
          if (font['googlefont'] !== undefined && typeof font['googlefont'] !== 'boolean')
            p['/widget/theme/font/googlefont'] = 'must be a boolean';
          const fname = font['name'];
          if (
            fname !== undefined &&
            (typeof fname !== 'string' || fname.length > 100 || !/^[A-Za-z0-9 _-]*$/.test(fname))
          ) {
            p['/widget/theme/font/name'] = 'must be a font name (letters, digits, spaces, _ and -)';
          }
        }
      }
    }
  }
  const credentials = widget['credentials'];
  if (credentials !== undefined) {
    if (!isObject(credentials)) p['/widget/credentials'] = 'must be an object';
    else {
      for (const list of ['blackList', 'whiteList']) {
        const v = credentials[list];
        if (v === undefined) continue;
        if (!Array.isArray(v) || v.length > ORIGIN_LIST_MAX)
          p[`/widget/credentials/${list}`] = `must be a list of at most ${ORIGIN_LIST_MAX} origins`;
        else
          v.forEach((o, i) => {
            const problem = originProblem(o);
            if (problem) p[`/widget/credentials/${list}/${i}`] = problem;
          });
      }
      const iv = credentials['identityVerification'];
      if (iv !== undefined && typeof iv !== 'boolean')
        p['/widget/credentials/identityVerification'] = 'must be a boolean';
    }
  }
  return p;
}

const POST_MEDIA_TYPES = ['IMAGE', 'VIDEO', 'DOCUMENT', 'AUDIO', 'FILE'];

/** POST /v1/rooms/{roomId}/message body. */
export function checkRoomPost(body: unknown, options: ValidateOptions = {}): Problems {
  const p: Problems = {};
  if (!isObject(body)) return { '/': 'body must be an object' };
  checkId(p, '/senderId', body['senderId']);
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > ROOM_POST_MESSAGES_MAX) {
    p['/messages'] = `must hold 1 to ${ROOM_POST_MESSAGES_MAX} messages`;
    return p;
  }
  messages.forEach((m, i) => {
    const at = `/messages/${i}`;
    if (!isObject(m)) {
      p[at] = 'must be an object';
      return;
    }
    if (!isUuid(m['id'])) p[`${at}/id`] = 'must be a UUID';
    if (m['type'] === 'TEXT') requireMessageText(p, `${at}/text`, m['text']);
    else if (POST_MEDIA_TYPES.includes(m['type'] as string)) {
      httpsUrl(p, `${at}/mediaUrl`, m['mediaUrl'], options);
      optionalString(p, `${at}/caption`, m['caption']);
      // Its text is its caption when it gives none: a caption's limit then, as the service holds it.
      optionalString(
        p,
        `${at}/text`,
        m['text'],
        m['caption'] === undefined ? SHORT_TEXT_MAX : MESSAGE_TEXT_MAX,
      );
    } else p[`${at}/type`] = `must be TEXT or one of ${POST_MEDIA_TYPES.join(', ')}`;
  });
  return p;
}

/** POST /v1/external/assets/refresh body. */
export function checkAssetsRefresh(body: unknown): Problems {
  const p: Problems = {};
  if (!isObject(body)) return { '/': 'body must be an object' };
  // The service accepts only https here (its schema has no loopback exception), written as
  // such from the first character, and an address that parses; a valid address it cannot
  // sign is its 422, not a refusal here.
  if (!isResourceUrl(body['resourceUrl'])) p['/resourceUrl'] = 'must be a valid https address';
  const ttl = body['ttl'];
  if (!(
    Number.isInteger(ttl) &&
    (ttl as number) >= SIGNED_URL_TTL_MIN &&
    (ttl as number) <= SIGNED_URL_TTL_MAX
  )) {
    p['/ttl'] = `must be an integer from ${SIGNED_URL_TTL_MIN} to ${SIGNED_URL_TTL_MAX} seconds`;
  }
  return p;
}
