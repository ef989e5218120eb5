/**
 * createClient(): the typed client of Charla's server-side HTTP operations,
 * for a business's backend (Node 20+) or a browser page. One method per
 * operation, arguments checked against the interface's limits before sending,
 * every failure a {@link CharlaApiError} carrying the interface's error body.
 */
import { routePath, ROUTES } from '../../types/routes.ts';
import { MAX_TIMER_MS } from '../../types/limits.ts';
import type {
  AssetsRefreshBody,
  BotContact,
  BotMessage,
  BotMessageResult,
  BotMessageStatus,
  ButtonOption,
  Buttons,
  CampaignCreateBody,
  CampaignUpdateBody,
  RoomPostBody,
  RoomPostResult,
  SignedUrlResult,
  WidgetCreateResult,
} from '../../types/index.ts';
import type { CampaignListQuery, CampaignListResponse, CampaignResult, WidgetCreateBody } from './types.ts';
import { base64Utf8 } from './base64.ts';
import {
  clientError,
  errorFromResponse,
  invalidArguments,
  invalidMediaUrl,
  type RequestInfo,
} from './errors.ts';
import {
  checkAssetsRefresh,
  checkBotMessage,
  checkCampaignCreate,
  checkCampaignUpdate,
  checkId,
  checkListQuery,
  checkRoomPost,
  checkWidgetCreate,
  mediaUrlField,
  type Problems,
  type ValidateOptions,
} from './validate.ts';

interface CommonOptions extends ValidateOptions {
  /** Where the service answers, e.g. `https://charla.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /**
   * Milliseconds before a call fails with TIMEOUT (default 30 000; 0 or Infinity waits for ever).
   * createClient refuses a negative number, NaN, anything not a number, and more than 2147483647.
   */
  timeoutMs?: number;
  /** Extra headers sent with every call. */
  headers?: Record<string, string>;
}

/** Credentials: a client id and secret (`Basic base64(id:secret)`), or a company token (`Basic <token>`). */
export type ClientOptions = CommonOptions &
  (
    | { clientId: string; clientSecret: string; companyToken?: never }
    | { companyToken: string; clientId?: never; clientSecret?: never }
  );

/** Arguments of {@link CharlaClient.sendVoiceCall}. */
export interface VoiceCallArgs {
  text: string;
  /** The call button's label (`parameters.display_text`). */
  displayText: string;
  header?: string;
}

/** The OpenAPI document of the service. */
export type OpenApiDocument = Record<string, unknown> & { openapi?: string; paths?: Record<string, unknown> };

export interface CharlaClient {
  /** GET /v1/campaigns: a page of campaigns of a bot created between startAt and endAt. */
  listCampaigns(query: CampaignListQuery): Promise<CampaignListResponse>;
  /** POST /v1/campaigns (ours): a campaign sent now, or SCHEDULED when scheduledAt is given. */
  createCampaign(body: CampaignCreateBody): Promise<CampaignResult>;
  /** DELETE /v1/campaigns/{id}: a SCHEDULED campaign becomes CANCELLED and reaches no recipient. */
  cancelCampaign(campaignId: string): Promise<CampaignResult>;
  /** PUT /v1/campaigns/{id}: renames or reschedules a SCHEDULED campaign. */
  updateCampaign(campaignId: string, body: CampaignUpdateBody): Promise<CampaignResult>;
  /** POST /v1/widget/create: a widget on an existing bot (`bot: { id }`) or with a new one (`bot: {}`), and its API key. */
  createWidget(body: WidgetCreateBody): Promise<WidgetCreateResult>;
  /** POST /v1/bots/{botId}/messages: any of the six variants. */
  sendBotMessage(botId: string, message: BotMessage): Promise<BotMessageResult>;
  /** Text variant. */
  sendText(botId: string, userId: string, text: string): Promise<BotMessageResult>;
  /** Text with options (1 to 10; titles up to 24 characters, descriptions up to 72). */
  sendOptions(
    botId: string,
    userId: string,
    text: string,
    buttons: Buttons | ButtonOption[],
  ): Promise<BotMessageResult>;
  /** Contacts variant (phones in E.164). */
  sendContacts(botId: string, userId: string, contacts: BotContact[]): Promise<BotMessageResult>;
  /** Call button (the bot's account must have calling enabled). */
  sendVoiceCall(botId: string, userId: string, args: VoiceCallArgs): Promise<BotMessageResult>;
  /** Video from a public https address, with an optional caption. */
  sendVideo(botId: string, userId: string, mediaUrl: string, caption?: string): Promise<BotMessageResult>;
  /** Asks the user for their contact information. */
  sendContactInfoRequest(botId: string, userId: string, text: string): Promise<BotMessageResult>;
  /** GET /v1/bots/{botId}/messages/{messageId}: the current status of a message the bot sent (its send result's messageId). */
  getBotMessage(botId: string, messageId: string): Promise<BotMessageStatus>;
  /** POST /v1/rooms/{roomId}/message: external messages into an active room (ids are UUIDs). */
  postRoomMessages(roomId: string, body: RoomPostBody): Promise<RoomPostResult>;
  /** POST /v1/external/assets/refresh: a fresh signed address for a resource, valid ttl seconds (900 to 3600). */
  refreshAsset(body: AssetsRefreshBody): Promise<SignedUrlResult>;
  /** GET /v1/openapi.json: the service's OpenAPI document. */
  openapi(): Promise<OpenApiDocument>;
  /** Any call, with the client's credentials and error mapping (for operations added later). */
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function fail(problems: Problems): void {
  if (Object.keys(problems).length > 0) throw invalidArguments(problems);
}

/**
 * Fails with a bot message's problems as the service would answer them: the
 * other fields' 400 VALIDATION_ERROR first (the service checks the body's
 * shape before the video's address, so that error leaves the address out),
 * else a video address that is a string but not one the service may fetch as
 * its 422 INVALID_MEDIA_URL. `at` is where the message sits (`/message` in a campaign).
 */
function failMessage(problems: Problems, message: unknown, at = ''): void {
  const field = mediaUrlField(message, problems, at);
  if (field === undefined) return fail(problems);
  const { [field]: reason, ...others } = problems;
  fail(others);
  throw invalidMediaUrl(field, reason!);
}

function requireId(field: string, value: unknown): void {
  const p: Problems = {};
  checkId(p, field, value);
  fail(p);
}

/** The authorization header value for the given credentials. */
export function authorizationFor(options: ClientOptions): string {
  if (typeof options.companyToken === 'string') return `Basic ${options.companyToken}`;
  return `Basic ${base64Utf8(`${options.clientId}:${options.clientSecret}`)}`;
}

/** Creates a client. Throws a CharlaApiError at once when the options are unusable. */
export function createClient(options: ClientOptions): CharlaClient {
  const problems: Problems = {};
  let base = '';
  try {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      problems['baseUrl'] = 'must be an http(s) address';
    base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    problems['baseUrl'] = 'must be an absolute address such as https://charla.example.com';
  }
  if (typeof options.companyToken === 'string') {
    if (options.companyToken.length === 0) problems['companyToken'] = 'must not be empty';
  } else {
    if (typeof options.clientId !== 'string' || options.clientId.length === 0)
      problems['clientId'] = 'is required (or give companyToken)';
    else if (options.clientId.includes(':')) problems['clientId'] = 'must not contain ":"';
    if (typeof options.clientSecret !== 'string' || options.clientSecret.length === 0)
      problems['clientSecret'] = 'is required';
  }
  const t = options.timeoutMs;
  // setTimeout takes at most 2^31 - 1 ms: past it Node fires at once (every call a TIMEOUT).
  if (t !== undefined && !(typeof t === 'number' && t >= 0 && (t <= MAX_TIMER_MS || t === Infinity)))
    problems['timeoutMs'] =
      'must be a number of milliseconds from 0 (waits for ever) to 2147483647 (about 24.8 days), or Infinity';
  fail(problems);

  const doFetch = options.fetch ?? globalThis.fetch;
  if (typeof doFetch !== 'function')
    throw new Error('No fetch available: pass options.fetch (Node 18+ and browsers have one).');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const authorization = authorizationFor(options);
  const v: ValidateOptions = { allowLoopbackHttp: options.allowLoopbackHttp === true };

  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const info: RequestInfo = { method, path };
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers, authorization };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const controller = typeof AbortController === 'function' ? new AbortController() : undefined;
    let timedOut = false;
    const timer =
      controller && timeoutMs > 0 && timeoutMs !== Infinity
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timeoutMs)
        : undefined;
    let response: Response;
    let text: string;
    try {
      response = await doFetch.call(globalThis, `${base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(controller ? { signal: controller.signal } : {}),
      });
      text = await response.text();
    } catch (error) {
      if (timedOut) throw clientError('TIMEOUT', info, `${method} ${path} took longer than ${timeoutMs} ms`);
      throw clientError(
        'NETWORK_ERROR',
        info,
        `${method} ${path}: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
    let json: unknown = undefined;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        if (response.ok)
          throw clientError(
            'INVALID_RESPONSE',
            info,
            `${method} ${path} answered ${response.status} with a body that is not JSON`,
          );
        json = text;
      }
    }
    if (!response.ok) throw errorFromResponse(json, response.status, info);
    return json as T;
  }

  // Methods are async so that arguments refused before sending reject the promise, as the service's
  // refusals do, instead of throwing where the call is made (a .catch() or allSettled would miss it).
  const sendBotMessage = async (botId: string, message: BotMessage): Promise<BotMessageResult> => {
    requireId('botId', botId);
    failMessage(checkBotMessage(message, v), message);
    return request<BotMessageResult>('POST', routePath(ROUTES.botMessages, { botId }), message);
  };

  return {
    request,

    async listCampaigns(query) {
      fail(checkListQuery(query));
      const params = new URLSearchParams();
      for (const [k, value] of Object.entries(query))
        if (value !== undefined && value !== null) params.set(k, String(value));
      return request('GET', `${ROUTES.listCampaigns}?${params.toString()}`);
    },

    async createCampaign(body) {
      failMessage(checkCampaignCreate(body, v), (body as { message?: unknown } | null)?.message, '/message');
      return request('POST', ROUTES.createCampaign, body);
    },

    async cancelCampaign(campaignId) {
      requireId('campaignId', campaignId);
      return request('DELETE', routePath(ROUTES.campaign, { campaignId }));
    },

    async updateCampaign(campaignId, body) {
      requireId('campaignId', campaignId);
      fail(checkCampaignUpdate(body));
      return request('PUT', routePath(ROUTES.campaign, { campaignId }), body);
    },

    async createWidget(body) {
      fail(checkWidgetCreate(body));
      return request('POST', ROUTES.createWidget, body);
    },

    sendBotMessage,

    async sendText(botId, userId, text) {
      return sendBotMessage(botId, { type: 'text', userId, text });
    },

    async sendOptions(botId, userId, text, buttons) {
      const b: Buttons = Array.isArray(buttons) ? { options: buttons } : buttons;
      return sendBotMessage(botId, { type: 'text', userId, text, buttons: b });
    },

    async sendContacts(botId, userId, contacts) {
      return sendBotMessage(botId, { type: 'contacts', userId, contacts });
    },

    async sendVoiceCall(botId, userId, { text, displayText, header }) {
      return sendBotMessage(botId, {
        type: 'voice_call',
        userId,
        text,
        parameters: { display_text: displayText },
        ...(header === undefined ? {} : { header }),
      });
    },

    async sendVideo(botId, userId, mediaUrl, caption) {
      return sendBotMessage(botId, {
        type: 'video',
        userId,
        mediaUrl,
        ...(caption === undefined ? {} : { text: caption }),
      });
    },

    async sendContactInfoRequest(botId, userId, text) {
      return sendBotMessage(botId, { type: 'contact_info_request', userId, text });
    },

    async getBotMessage(botId, messageId) {
      const p: Problems = {};
      checkId(p, 'botId', botId);
      checkId(p, 'messageId', messageId);
      fail(p);
      return request('GET', routePath(ROUTES.botMessage, { botId, messageId }));
    },

    async postRoomMessages(roomId, body) {
      requireId('roomId', roomId);
      fail(checkRoomPost(body, v));
      return request('POST', routePath(ROUTES.roomMessage, { roomId }), body);
    },

    async refreshAsset(body) {
      fail(checkAssetsRefresh(body));
      return request('POST', ROUTES.assetsRefresh, body);
    },

    async openapi() {
      return request('GET', ROUTES.openapi);
    },
  };
}
