/**
 * WidgetCore: one widget's session, live connection, outbox and state, with
 * no DOM. The facade (instance.ts) and the actions (actions.ts) sit on it;
 * Node tests and benches drive it directly.
 *
 * A message's way: sendMessage puts a CREATED copy in the room's store and
 * the outbox, emits it with an acknowledgement (pipelined: many in flight),
 * and the acknowledgement's stored copy replaces it. After any (re)connect:
 * gap fill (`messages:sync` from the sequence each room is complete up to), then the
 * outbox flush. The service dedupes by UUID, so resending is always safe.
 */
import { isOwn } from '../util/own.ts';
import type {
  ApiResponse,
  ConnectionState,
  Language,
  Member,
  Message,
  OutgoingMessage,
  Room,
  SessionResult,
  StatusChange,
} from '../../types/index.ts';
import { MESSAGE_CONTENT_KEYS, sameFields } from '../../types/canonical-json.ts';
import { GET_MESSAGES_LIMIT_DEFAULT, MAX_TIMER_MS } from '../../types/limits.ts';
import { ROUTES, routePath } from '../../types/routes.ts';
import type { MembershipChange, SyncResult } from '../../types/socket.ts';
import { domEventFor, type WidgetEventMap, type WidgetEventName } from '../events/index.ts';
import {
  applyStatus,
  completeUpTo,
  createStores,
  indexOfMessage,
  lastSeq,
  messageKey,
  patchUi,
  upsertMessages,
  upsertRooms,
  withLastMessages,
  withMember,
  withoutMember,
  type StoreSet,
} from '../stores/index.ts';
import { CharlaError, clientError, invalidArgument, toCharlaError } from '../transport/errors.ts';
import { Outbox, type OutboxEntry, type OutboxStorage, type OutboxStorageKind } from '../transport/outbox.ts';
import { RestClient } from '../transport/rest.ts';
import {
  ACK_TIMEOUT_MS,
  advisedWaitMs,
  createSocket,
  request,
  retryAfterMs,
  type LiveSocket,
} from '../transport/socket.ts';
import { Emitter } from '../util/emitter.ts';
import { pickLanguage } from '../i18n/pick.ts';
import { translate } from '../i18n/index.ts';
import { isExpiredSignedUrl, isSafeUrl, isServiceMedia, normalizeBaseUrl } from '../util/url.ts';
import {
  isMembershipChange,
  isStatusChange,
  isUsableRoom,
  usableMessages,
  usableRoom,
} from '../util/incoming.ts';
import { storedUserId } from '../util/user-id.ts';
import { uuid } from '../util/uuid.ts';
import type { LastError } from './context.ts';
import { own, requireGetMessages, requireId, requireSendable, toOutgoingMessage } from '../util/validate.ts';

/** Options of createWidget(). */
export interface WidgetOptions {
  /** The widget's API key (`data.ApiKey.key` of widget creation). Required. */
  apiKey: string;
  /** Address of the Charla service. Default: the page's origin. */
  baseUrl?: string;
  /** The page's user id. Default: a UUID made once and kept per API key. */
  userId?: string;
  /** The user's display name. */
  userNames?: string;
  /**
   * Identity verification: hex HMAC-SHA256 of userId under the API key's
   * identitySecret, made by the site's backend. Required by widgets with
   * credentials.identityVerification; ignored by the others.
   */
  userHash?: string;
  /**
   * Language of the widget's texts: es or en (a tag such as en-GB counts as en).
   * Default: the page's `<html lang>` when it is English or Spanish, else es.
   */
  language?: Language | (string & {});
  /**
   * Element (or shadow root) the widget is appended to. Default (or undefined) document.body;
   * null: headless (no element).
   */
  container?: Element | ShadowRoot | null | undefined;
  /** Open the chat panel as soon as the widget has connected. Default false. */
  autoShow?: boolean;
  /** Storage namespace of the outbox. Default `<apiKey>:<userId>`. */
  namespace?: string;
  /** Outbox storage: a kind to force, or a storage of your own. Default: IndexedDB, else localStorage, else memory. */
  outboxStorage?: OutboxStorageKind | OutboxStorage;
  /** fetch to use (SSR, tests). Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** REST timeout in ms. Default 15000. */
  requestTimeoutMs?: number;
  /** Socket acknowledgement timeout in ms. Default 10000. */
  ackTimeoutMs?: number;
  /** socket.io transports. Default websocket, then polling (the service offers no WebTransport). */
  transports?: ('websocket' | 'polling')[];
  /** Reconnection delay bounds in ms. */
  reconnectionDelay?: number;
  reconnectionDelayMax?: number;
}

interface Waiter {
  resolve: (message: Message) => void;
  reject: (error: CharlaError) => void;
}

/** Attempts an UNKNOWN_ERROR acknowledgement gets before the message is FAILED. */
const UNKNOWN_ERROR_ATTEMPTS = 5;
/**
 * Times the service may end the connection while a message is in flight
 * (from the second time on, with that message alone in flight) before the
 * message is FAILED: one the service closes the socket on would otherwise
 * hold every later message back for ever.
 */
const DROPS_BEFORE_FAILED = 3;
const RETRY_DELAY_MS = 1_000;
/** Longest wait between tries of a first connection that could not reach the service. */
const CONNECT_RETRY_MAX_MS = 30_000;

/** The wait after `failures` failures in a row: 1 s, doubling, at most CONNECT_RETRY_MAX_MS. */
function backoffMs(failures: number): number {
  return Math.min(RETRY_DELAY_MS * 2 ** Math.min(failures, 5), CONNECT_RETRY_MAX_MS);
}
const SEEN_FLUSH_MS = 250;
/** Ids of news kept for the message list to ask about (it asks as soon as a message shows). */
const NEWS_KEPT = 1_000;
const READ_REPORT_MS = 250;
/** Stands in for the room of a message sent before the session named one (a UUID's length, for the size check). */
const PENDING_ROOM = '00000000-0000-0000-0000-000000000000';

/** The service is there but cannot serve for now: SERVICE_UNAVAILABLE, SERVICE_STOPPING. */
const serviceBusy = (e: CharlaError): boolean =>
  e.key === 'SERVICE_UNAVAILABLE' || e.key === 'SERVICE_STOPPING';

/**
 * The service not reached, or not serving for now: no network, a timeout, a limit, a gateway's
 * 502-504 (a process restarting behind the balancer), the service's 503s. A first connection that
 * failed so is tried again whatever waits in the outbox (a plain 500 only while something waits).
 */
const notReached = (e: CharlaError): boolean =>
  e.key === 'NETWORK_ERROR' ||
  e.key === 'TIMEOUT' ||
  e.key === 'RATE_LIMITED' ||
  serviceBusy(e) ||
  (e.httpStatus >= 502 && e.httpStatus <= 504);

const rethrow = (error: unknown): never => {
  throw toCharlaError(error);
};

/**
 * The options that shape the connection, checked at once: an empty transports list would leave
 * connect() waiting for ever, an unknown transport would fail on the page at every try, and a
 * timeout of no time would fail every call.
 */
function checkConnectionOptions(o: WidgetOptions): void {
  const t = o.transports;
  if (
    t !== undefined &&
    !(Array.isArray(t) && t.length > 0 && t.every((x) => x === 'websocket' || x === 'polling'))
  )
    throw invalidArgument('transports must list websocket and/or polling', 'transports');
  for (const field of [
    'requestTimeoutMs',
    'ackTimeoutMs',
    'reconnectionDelay',
    'reconnectionDelayMax',
  ] as const) {
    const n = o[field];
    if (n !== undefined && !(typeof n === 'number' && n > 0 && n <= MAX_TIMER_MS))
      throw invalidArgument(
        `${field} must be a number of milliseconds above 0 and at most 2147483647 (about 24.8 days)`,
        field,
      );
  }
  const storage = o.outboxStorage;
  if (
    storage !== undefined &&
    !['indexeddb', 'localstorage', 'memory'].includes(storage as string) &&
    !(
      typeof storage === 'object' &&
      storage !== null &&
      [storage.load, storage.put, storage.remove].every((f) => typeof f === 'function')
    )
  )
    throw invalidArgument(
      'outboxStorage must be indexeddb, localstorage, memory or a storage',
      'outboxStorage',
    );
  if (o.namespace !== undefined && !(typeof o.namespace === 'string' && o.namespace.length > 0))
    throw invalidArgument('namespace must be a non-empty string', 'namespace');
  if (o.fetch !== undefined && typeof o.fetch !== 'function')
    throw invalidArgument('fetch must be a function', 'fetch');
}

/**
 * What a retry must repeat of the message it retries, as the widget can tell: its room and
 * content. Not the media address, which the widget may hold re-signed (the service checks it).
 */
const SAME = ['roomId', ...MESSAGE_CONTENT_KEYS.filter((key) => key !== 'mediaUrl')];

/** True when a sendMessage argument names its room. */
const hasRoomId = (input: unknown): boolean =>
  typeof input === 'object' && input !== null && (input as { roomId?: unknown }).roomId != null;

export class WidgetCore {
  readonly options: Readonly<WidgetOptions>;
  readonly apiKey: string;
  readonly baseUrl: string;
  readonly userId: string;
  readonly namespace: string;
  readonly stores: StoreSet;
  readonly rest: RestClient;
  readonly outbox: Outbox;
  readonly events = new Emitter<WidgetEventMap>();
  /** Element DOM events are dispatched on (set by the facade). */
  element: EventTarget | null = null;

  #session: SessionResult | null = null;

  #startViewChosen = false;
  #sessionPromise: Promise<SessionResult> | null = null;
  #renewing: Promise<boolean> | null = null;
  #socket: LiveSocket | null = null;
  #connectPromise: Promise<void> | null = null;
  #firstSync: { resolve: () => void; reject: (e: CharlaError) => void } | null = null;
  /** True once the gap fill after the current connection is done (sends may go out). */
  #synced = false;
  /** Counts connections; a sync answer for an older connection is ignored. */
  #epoch = 0;
  /** Per room, the sequence up to which a sync (or a live room load) covered it. */
  readonly #baseline = new Map<string, number>();
  /** Rooms whose addedToRoom (me) was emitted, so the room:updated that follows a join is not a second one. */
  readonly #joined = new Set<string>();
  /** Room of every held message, by id (a held message is never moved to another room). */
  readonly #messageRooms = new Map<string, string>();
  readonly #inFlight = new Set<string>();
  readonly #attempts = new Map<string, number>();
  /**
   * Per outbox id, how often the service ended the connection while it was
   * in flight. While any is here, the outbox goes one message at a time, so
   * a message the service closes the socket on shows itself and is FAILED.
   */
  readonly #drops = new Map<string, number>();
  /**
   * The service refused an event as RATE_LIMITED: nothing is sent on the
   * socket before this time (each event sent sooner would be refused and
   * push the wait on), and until the outbox is empty it goes one message at
   * a time, oldest first, so a refused message is never overtaken.
   */
  #heldUntil = 0;
  #paced = false;
  /**
   * Holds in a row for SERVICE_UNAVAILABLE or SERVICE_STOPPING (the service's storage out of
   * reach, or the server stopping): each waits twice as long as the one before, up to
   * CONNECT_RETRY_MAX_MS; a message stored starts again from the service's advice.
   */
  #unavailableHolds = 0;
  #resumeTimer: ReturnType<typeof setTimeout> | null = null;
  readonly #waiters = new Map<string, Waiter[]>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #refreshes = new Map<string, Promise<string>>();
  readonly #seen = new Map<string, Set<string>>();
  /** Messages that came as news, newest last (isNews). */
  readonly #news = new Set<string>();
  #seenTimer: ReturnType<typeof setTimeout> | null = null;
  /** Per room, the moment after a read report; `again`: the room was read again meanwhile (see #markRead). */
  readonly #readTimers = new Map<string, { timer: ReturnType<typeof setTimeout>; again: boolean }>();
  #destroyed = false;
  #wantConnected = false;
  #nudging = false;
  #authRenewals = 0;
  /** Failed connections in a row (the next try waits longer). */
  #connectRetries = 0;
  /** Catch-ups in a row this connection left unanswered (TIMEOUT): the next waits longer. */
  #syncRetries = 0;
  /** The next try of a first connection that failed: one at a time (connect() clears it). */
  #connectRetry: ReturnType<typeof setTimeout> | null = null;
  /**
   * The connection being made is the widget's own try after a failure: the page keeps what it
   * shows (no `connecting` in between, so the panel's Retry stays under a keyboard user's focus)
   * until the session is open, and the same error is not said again.
   */
  #quietTry = false;
  /** autoShow opens the panel after the first sync only. */
  #autoShown = false;
  /** True once a sync listed the user's rooms: a room that a later one brings is news (addedToRoom). */
  #roomsListed = false;
  /** The room shown at the last change of the panel, its view or the current room (see #shownRoom). */
  #shown: string | null = null;
  /** The error a failed connection or sync showed: cleared when connected again. */
  #connectError: LastError | null = null;
  /** The banner of the last message the service refused: it goes once a later message is stored. */
  #sendError: LastError | null = null;
  readonly #unlisten: (() => void)[] = [];

  constructor(given: WidgetOptions) {
    // The page's own options only: what it added to Object.prototype is no option.
    const options = own(given);
    if (typeof options !== 'object' || options === null)
      throw invalidArgument('createWidget needs an options object', 'options');
    if (typeof options.apiKey !== 'string' || options.apiKey.trim().length === 0) {
      throw invalidArgument('apiKey is required', 'apiKey');
    }
    const origin = typeof location !== 'undefined' ? location.origin : undefined;
    const baseUrl = normalizeBaseUrl(options.baseUrl ?? origin);
    if (!baseUrl)
      throw invalidArgument('baseUrl must be an https address (http only on localhost)', 'baseUrl');
    if (options.userId !== undefined) requireId(options.userId, 'userId');
    if (options.userHash !== undefined && typeof options.userHash !== 'string') {
      throw invalidArgument('userHash must be a string', 'userHash');
    }
    if (options.userNames !== undefined && typeof options.userNames !== 'string') {
      throw invalidArgument('userNames must be a string', 'userNames');
    }
    checkConnectionOptions(options);
    this.options = options;
    this.apiKey = options.apiKey;
    this.baseUrl = baseUrl;
    this.userId = options.userId ?? storedUserId(options.apiKey);
    this.namespace = options.namespace ?? `${options.apiKey}:${this.userId}`;
    this.stores = createStores(pickLanguage(options.language));
    this.stores.w.$user.set({ id: this.userId, names: options.userNames ?? null });
    const restOptions: ConstructorParameters<typeof RestClient>[0] = {
      baseUrl,
      getToken: () => this.#session?.token ?? null,
      renewSession: () => this.renewSession(),
    };
    if (options.requestTimeoutMs !== undefined) restOptions.timeoutMs = options.requestTimeoutMs;
    if (options.fetch !== undefined) restOptions.fetch = options.fetch;
    this.rest = new RestClient(restOptions);
    this.outbox = new Outbox(this.namespace, options.outboxStorage);
    // A room comes into view however it does (open(), hideHomeMenu(), a room chosen, Back, the
    // current room replaced): it is read then, and only then.
    const follow = () => this.shownChanged();
    this.#unlisten.push(this.stores.w.$ui.listen(follow), this.stores.w.$currentRoomId.listen(follow));
    if (typeof document !== 'undefined') {
      document.addEventListener('visibilitychange', follow);
      this.#unlisten.push(() => document.removeEventListener('visibilitychange', follow));
    }
    // Messages left by an earlier page show as pending in their rooms at once.
    void this.outbox.ready().then(() => {
      if (this.#destroyed) return;
      this.#takeIn(this.outbox.list());
      if (this.#synced) this.flush();
    });
  }

  /** Outbox entries this widget did not write (an earlier page's, another tab's): shown pending, checked. */
  #takeIn(entries: readonly OutboxEntry[]): void {
    if (entries.length === 0) return;
    this.upsert(
      entries.map((e) => this.#localCopy(e.message, e.createdAt)),
      false,
    );
    // An older version may have stored what can never go (too large, not JSON): FAILED, not resent for ever.
    for (const { message } of entries) {
      try {
        requireSendable(message);
      } catch (error) {
        this.#fail(String(message.id), toCharlaError(error));
      }
    }
  }

  /* ------------------------------------------------------------------ */
  /* Events                                                              */
  /* ------------------------------------------------------------------ */

  emit<K extends WidgetEventName>(name: K, detail: WidgetEventMap[K]): void {
    this.events.emit(name, detail);
    this.element?.dispatchEvent(domEventFor(name, detail));
  }

  #reportError(error: unknown, operation: string, said?: string): CharlaError {
    const e = toCharlaError(error);
    // What the visitor reads: the error's text for people, in the widget's language.
    const forPeople = said ?? e.body.error.clientMessages?.[this.stores.w.$language.get()];
    const wait = advisedWaitMs(e);
    const shown: LastError = {
      message: forPeople || e.message,
      code: e.code,
      key: e.key,
      transient: e.transient,
      ...(wait && wait <= MAX_TIMER_MS ? { retryAt: Date.now() + wait } : {}),
    };
    this.stores.w.$lastError.set(shown);
    // A failed connection's error goes once the widget is connected again (#setConnection).
    if (operation === 'connect' || operation === 'sync') this.#connectError = shown;
    // A refused message's goes once a later message is stored (#settle).
    if (operation === 'sendMessage') this.#sendError = shown;
    this.emit('error', { error: e, operation });
    return e;
  }

  /** `state`, or `offline` while the browser says it has no network. */
  #lost(state: 'connecting' | 'reconnecting'): void {
    this.#setConnection(globalThis.navigator?.onLine === false ? 'offline' : state);
  }

  #setConnection(state: ConnectionState): void {
    const previous = this.stores.w.$connection.get();
    if (previous === state) return;
    this.stores.w.$connection.set(state);
    if (state === 'connected') {
      // "Sin conexión con el servicio" must not stay up under "En línea".
      if (this.#connectError && this.stores.w.$lastError.get() === this.#connectError)
        this.stores.w.$lastError.set(null);
      this.#connectError = null;
    }
    this.emit('connection', { state, previous });
  }

  /* ------------------------------------------------------------------ */
  /* Session                                                             */
  /* ------------------------------------------------------------------ */

  /** The open session, opening it when there is none. */
  ensureSession(): Promise<SessionResult> {
    if (this.#destroyed) return Promise.reject(clientError('DESTROYED'));
    if (this.#session) return Promise.resolve(this.#session);
    this.#sessionPromise ??= this.#openSession().finally(() => {
      this.#sessionPromise = null;
    });
    return this.#sessionPromise;
  }

  async #openSession(): Promise<SessionResult> {
    const body: Record<string, string> = { apiKey: this.apiKey, userId: this.userId };
    const user = this.stores.w.$user.get();
    if (user?.names) body['userNames'] = user.names;
    if (this.options.userHash) body['userHash'] = this.options.userHash;
    body['language'] = this.stores.w.$language.get();
    const result = await this.rest.post<SessionResult>(ROUTES.widgetSession, body, { auth: false });
    if (this.#destroyed) throw clientError('DESTROYED');
    if (!result || typeof result.token !== 'string')
      throw clientError('NETWORK_ERROR', 'malformed session result');
    this.#session = result;
    const w = this.stores.w;
    w.$user.set({ id: result.user.id, names: result.user.names });
    w.$config.set(result.widget);
    w.$botRoomId.set(result.botRoomId || null);
    if (w.$currentRoomId.get() === null && result.botRoomId) w.$currentRoomId.set(result.botRoomId);
    // A `normal` widget is a conversation with its bot: it starts there. A
    // `group` widget starts on its home menu (rooms and contacts). Only the
    // first session decides, so a host's later showHomeMenu() stands.
    if (!this.#startViewChosen) {
      this.#startViewChosen = true;
      const ui = w.$ui.get();
      if (result.widget.properties['type'] !== 'group' && ui.view === 'home' && result.botRoomId) {
        w.$ui.set({ ...ui, view: 'chat' });
      }
    }
    return result;
  }

  /** Opens a new session after the old one was refused; true when it worked. */
  renewSession(): Promise<boolean> {
    if (this.#destroyed) return Promise.resolve(false);
    this.#renewing ??= (async () => {
      try {
        this.#session = null;
        await this.ensureSession();
        return true;
      } catch {
        return false;
      } finally {
        this.#renewing = null;
      }
    })();
    return this.#renewing;
  }

  /** The session result, when one is open. */
  get currentSession(): SessionResult | null {
    return this.#session;
  }

  /* ------------------------------------------------------------------ */
  /* Connection                                                          */
  /* ------------------------------------------------------------------ */

  /**
   * Opens the session and the live connection. Resolves once the first
   * connection has synced; rejects when the service refuses the session.
   */
  connect(): Promise<void> {
    if (this.#destroyed) return Promise.reject(clientError('DESTROYED'));
    this.#wantConnected = true;
    if (this.#connectPromise) {
      const socket = this.#socket;
      if (socket && !socket.active && !socket.connected && !this.#firstSync) {
        // Again after disconnect(): resolves once this new connection has synced.
        this.#setConnection('connecting');
        this.#connectPromise = new Promise<void>((resolve, reject) => {
          this.#firstSync = { resolve, reject };
        });
        this.#connectPromise.catch(() => undefined);
        socket.connect();
      }
      return this.#connectPromise;
    }
    // Each failure is reported where it happens: the session here (#doConnect), the handshake in
    // #handleConnectError, so the promise's own rejection is not a second error event.
    this.#clearConnectRetry();
    this.#connectPromise = this.#doConnect().catch((error: unknown) => {
      this.#connectPromise = null;
      const e = toCharlaError(error);
      this.#connectFailed(e);
      throw e;
    });
    return this.#connectPromise;
  }

  /**
   * The connection could not be made. What waits in the outbox must not
   * wait for ever: when the service refused (a wrong key, an origin or user
   * it does not take) it can never go, so it is FAILED with that error (and
   * retry() stays possible); when the service could not be reached or could
   * not serve for now, the widget tries again, later and later, messages
   * waiting or not: a visitor on a slow or flaky link (a session request
   * past requestTimeoutMs on a train) gets connected once the link allows,
   * without a reload or a click.
   */
  #connectFailed(error: CharlaError): void {
    if (this.#destroyed || error.key === 'DESTROYED') return;
    if (!error.transient && error.key !== 'UNKNOWN_ERROR') {
      for (const { message } of this.outbox.list()) this.#fail(String(message.id), error);
      return;
    }
    const always = notReached(error);
    if (!always && this.outbox.size === 0) return;
    this.#clearConnectRetry();
    this.#connectRetry = this.#later(() => {
      this.#connectRetry = null;
      if (!this.#wantConnected || this.#connectPromise || !(always || this.outbox.size > 0)) return;
      // Without a network the page's `online` event tries (reconnectNow).
      if (globalThis.navigator?.onLine === false) return;
      this.#quietTry = true;
      this.connect().catch(() => undefined);
    }, this.#nextConnectDelay(error));
  }

  #clearConnectRetry(): void {
    if (!this.#connectRetry) return;
    clearTimeout(this.#connectRetry);
    this.#timers.delete(this.#connectRetry);
    this.#connectRetry = null;
  }

  /**
   * How long until the next try of a connection that failed: 1 s, doubling with each failure in
   * a row up to CONNECT_RETRY_MAX_MS, and never sooner than a busy or limiting service advised.
   */
  #nextConnectDelay(error: CharlaError): number {
    const backoff = backoffMs(this.#connectRetries++);
    return serviceBusy(error) || error.key === 'RATE_LIMITED'
      ? Math.max(backoff, retryAfterMs(error, RETRY_DELAY_MS))
      : backoff;
  }

  async #doConnect(): Promise<void> {
    const quiet = this.#quietTry;
    this.#quietTry = false;
    if (!quiet) this.#setConnection('connecting');
    try {
      await this.ensureSession();
    } catch (error) {
      // destroy() aborted it: nothing was refused, nothing to say (a StrictMode mount, an unmount).
      if (this.#destroyed) throw clientError('DESTROYED');
      const failed = toCharlaError(error);
      // Not reached with the browser saying it has no network: offline, as for a connection lost.
      const offline = failed.transient && globalThis.navigator?.onLine === false;
      this.#setConnection(offline ? 'offline' : 'error');
      // The widget's own try failed as the one before: nothing new to say (nor to announce).
      if (quiet && this.#connectError?.key === failed.key) throw failed;
      const e = this.#reportError(failed, 'connect');
      // Refused (a key, origin or userHash the service does not take): the page's developer may have
      // no `error` listener, and the browser's console shows only the status. A network failure is
      // retried and says nothing here.
      if (!e.transient) console.warn(`Charla cannot start: ${e.message}`);
      throw e;
    }
    if (quiet) this.#setConnection('connecting');
    const done = new Promise<void>((resolve, reject) => {
      this.#firstSync = { resolve, reject };
    });
    this.#openSocket();
    await done;
  }

  /** Closes the live connection (the outbox keeps what is unsent). connect() opens it again. */
  disconnect(): void {
    this.#wantConnected = false;
    this.#socket?.disconnect();
    // Not connected and not trying: `idle`, as before connect(). `offline` is the browser's no-network.
    this.#setConnection('idle');
  }

  /**
   * The network is back (the page's `online` event): try at once instead of
   * waiting out socket.io's backoff.
   */
  reconnectNow(): void {
    const socket = this.#socket;
    if (!this.#wantConnected || this.#destroyed) return;
    if (!socket) {
      // The first connection never came up (no network then): try now.
      if (!this.#connectPromise) this.connect().catch(() => undefined);
      return;
    }
    if (socket.connected) {
      // The link outlived the outage.
      if (this.#synced) this.#setConnection('connected');
      return;
    }
    this.#nudging = true;
    socket.disconnect();
    this.#nudging = false;
    this.#lost(this.#firstSync ? 'connecting' : 'reconnecting');
    socket.connect();
  }

  /**
   * The page goes into the back/forward cache (`pagehide`, persisted): the browser would close the
   * live connection itself and say so in the console as an error; it is closed here first, and
   * opened again, caught up as after any outage, when the page comes back (`pageshow`, persisted:
   * reconnectNow).
   */
  pageHidden(): void {
    const socket = this.#socket;
    if (!socket?.active || this.#destroyed) return;
    this.#nudging = true;
    socket.disconnect();
    this.#nudging = false;
  }

  /** The browser lost the network (the page's `offline` event): say so instead of "reconnecting". */
  networkLost(): void {
    if (!this.#wantConnected || this.#destroyed) return;
    // Or the first connection that never came up (it failed, and is tried again when back online).
    if (this.#socket || this.stores.w.$connection.get() === 'error') this.#setConnection('offline');
  }

  /** The socket, for tests that force a disconnect. */
  get liveSocket(): LiveSocket | null {
    return this.#socket;
  }

  #openSocket(): void {
    const socketOptions: Parameters<typeof createSocket>[0] = {
      baseUrl: this.baseUrl,
      getToken: () => this.#session?.token ?? null,
    };
    if (this.options.transports) socketOptions.transports = this.options.transports;
    if (this.options.reconnectionDelay !== undefined)
      socketOptions.reconnectionDelay = this.options.reconnectionDelay;
    if (this.options.reconnectionDelayMax !== undefined)
      socketOptions.reconnectionDelayMax = this.options.reconnectionDelayMax;
    const socket = createSocket(socketOptions);
    // A first connection tried again after its handshake was refused: the refused socket goes
    // (after it is no longer this.#socket, which its handlers check).
    const previous = this.#socket;
    this.#socket = socket;
    previous?.disconnect();

    socket.on('connect', () => this.#handleConnect(socket));
    socket.on('disconnect', (reason) => this.#handleDisconnect(socket, reason));
    socket.on('connect_error', (error) => void this.#handleConnectError(socket, error));
    socket.on('message:new', (message) => this.handleIncoming([message]));
    // A payload whose fields are not of their kind (a misbehaving service's) is dropped, not thrown on.
    socket.on('message:status', (change) => isStatusChange(change) && this.#handleStatus(change));
    socket.on(
      'member:joined',
      (change) => isMembershipChange(change) && this.#handleMembership(change, true),
    );
    socket.on('member:left', (change) => isMembershipChange(change) && this.#handleMembership(change, false));
    socket.on('room:updated', (room) => isUsableRoom(room) && this.#handleRoomUpdated(room));
    socket.on('session:expired', () => void this.#handleSessionExpired(socket));
    socket.connect();
  }

  #handleConnect(socket: LiveSocket): void {
    if (socket !== this.#socket) return;
    this.#authRenewals = 0;
    // A new connection's catch-up starts at the shortest wait again.
    this.#syncRetries = 0;
    const epoch = ++this.#epoch;
    // Snapshot before any new message of this connection is handled: the gap
    // fill asks for everything after what was held when the link came back.
    void this.#syncThenFlush(socket, epoch, this.#syncPoints());
  }

  /**
   * Per room, the sequence the widget is complete up to: what the last sync covered, and the held
   * messages that follow it without a hole (completeUpTo).
   */
  #syncPoints(): Record<string, number> {
    const after: Record<string, number> = {};
    for (const [roomId, seq] of this.#baseline) after[roomId] = seq;
    for (const [roomId, list] of Object.entries(this.stores.w.$messagesByRoom.get())) {
      const seq = completeUpTo(list, this.#baseline.get(roomId));
      if (seq !== undefined && seq > (after[roomId] ?? -1)) after[roomId] = seq;
    }
    return after;
  }

  /** Records that the widget is complete up to a room's `lastSeq` (only while live, so later messages arrive). */
  #noteBaseline(room: Room, onlyIfNew = false): void {
    if (!this.#synced || typeof room.lastSeq !== 'number') return;
    const held = this.#baseline.get(room.id);
    if (onlyIfNew && held !== undefined) return;
    if (held === undefined || room.lastSeq > held) this.#baseline.set(room.id, room.lastSeq);
  }

  async #syncThenFlush(socket: LiveSocket, epoch: number, after: Record<string, number>): Promise<void> {
    this.#synced = false;
    const again = () => {
      if (epoch === this.#epoch && socket === this.#socket && socket.connected)
        void this.#syncThenFlush(socket, epoch, after);
    };
    if (this.#heldLeft() > 0) {
      this.#later(again, this.#heldLeft());
      return;
    }
    try {
      await this.outbox.ready();
      // What another tab or a destroyed widget of this user left unsent goes with this connection,
      // in the order it was written (not at the next page load, after what is written later).
      // Taken in whatever this connection becomes: the outbox knows them from now on.
      const left = await this.outbox.reload();
      if (this.#destroyed) return;
      this.#takeIn(left);
      if (epoch !== this.#epoch) return;
      let point = after;
      let last: SyncResult | null = null;
      for (let page = 0; page < 100; page++) {
        const result = await request(socket, 'messages:sync', { after: point }, this.#ackTimeout);
        if (epoch !== this.#epoch || this.#destroyed) return;
        const usable = this.#applySync(result, point);
        last = result;
        // A room gives at most a capped page per sync: when what is held still
        // ends below the room's lastSeq, ask again from there.
        const counts = new Map<string, number>();
        for (const m of usable) counts.set(m.roomId, (counts.get(m.roomId) ?? 0) + 1);
        const held = this.stores.w.$messagesByRoom.get();
        const behind = (result.rooms ?? []).filter((r) => {
          if (!(r.id in point) || !counts.has(r.id) || typeof r.lastSeq !== 'number') return false;
          return (lastSeq(held[r.id] ?? []) ?? -1) < r.lastSeq;
        });
        if (behind.length === 0) break;
        point = this.#syncPoints();
      }
      // The sync covered every room up to its lastSeq (older history loads on demand).
      for (const r of last?.rooms ?? []) {
        if (typeof r.lastSeq === 'number' && r.lastSeq > (this.#baseline.get(r.id) ?? -1))
          this.#baseline.set(r.id, r.lastSeq);
      }
      this.#synced = true;
      this.#connectRetries = 0;
      this.#syncRetries = 0;
      this.#serviceBack();
      this.#setConnection('connected');
      this.flush();
      const first = this.#firstSync;
      this.#firstSync = null;
      first?.resolve();
      if (
        this.options.autoShow &&
        !this.#autoShown &&
        patchUi(this.stores.w.$ui, { open: true, launcherDisabled: false })
      ) {
        this.emit('open', {});
      }
      this.#autoShown = true;
      // The service's counts replaced the held ones: the room on screen is read again.
      const shown = this.#shownRoom();
      if (shown !== null) this.#markRead(shown);
    } catch (error) {
      const e = toCharlaError(error);
      if (!e.transient && e.key !== 'NOT_CONNECTED') this.#reportError(e, 'sync');
      // Try again while this connection stands (same snapshot); a new connection syncs anyway.
      // A service that cannot store for now is asked again less and less often, as a send is.
      const holds = e.key === 'RATE_LIMITED' || serviceBusy(e);
      if (e.key === 'RATE_LIMITED') this.#holdOff(e);
      else if (holds) this.#holdBusy(e);
      // Unanswered on this connection (a service slower than ackTimeoutMs): 1 s doubling to 30 s,
      // so a loaded service is not asked for the whole sync again every second. (A connection
      // that dropped rejects its pending answers as TIMEOUT too: its next one syncs anyway.)
      const unanswered =
        e.key === 'TIMEOUT' && epoch === this.#epoch && socket === this.#socket && socket.connected;
      const wait = holds ? 0 : unanswered ? backoffMs(this.#syncRetries++) : RETRY_DELAY_MS;
      this.#later(again, Math.max(this.#heldLeft(), wait) || RETRY_DELAY_MS);
    }
  }

  /**
   * Applies a sync page; returns its messages as kept (usable ones only). Unread
   * counts come from the service's rooms (they already count what was missed).
   * Messages after a sync point are news (announced as `message`); a room's
   * latest page without one is history.
   */
  #applySync(result: SyncResult, after: Record<string, number>): Message[] {
    const w = this.stores.w;
    if (Array.isArray(result.rooms)) {
      result.rooms = result.rooms.filter(isUsableRoom);
      const held = new Map(w.$rooms.get().map((r) => [r.id, r] as const));
      // A room the user was taken out of while away goes as if they had been told live.
      const now = new Set(result.rooms.map((r) => r.id));
      for (const r of held.values()) {
        const member = !now.has(r.id) && r.membersInfo?.find((m) => m.referenceId === this.userId);
        if (member) this.#handleMembership({ roomId: r.id, member }, false);
      }
      w.$rooms.set(
        upsertRooms(
          [],
          result.rooms.map((r) => usableRoom({ ...(held.get(r.id) ?? {}), ...r } as Room)),
        ),
      );
      // The service's counts, plus the messages from after it counted that this page holds or
      // this sync brings (one come live while the sync was answered was lost from the count).
      const byRoom = w.$messagesByRoom.get();
      const brought = new Map<string, Message[]>();
      // Read as handleIncoming reads them: what is not a message (null, a number) is passed over.
      for (const m of Array.isArray(result.messages) ? result.messages : []) {
        if (typeof m !== 'object' || m === null || typeof m.roomId !== 'string') continue;
        const list = brought.get(m.roomId);
        if (list) list.push(m);
        else brought.set(m.roomId, [m]);
      }
      const shown = this.#shownRoom();
      const unread: Record<string, number> = {};
      for (const r of result.rooms) {
        const since = r.lastSeq;
        const later = new Set<string>();
        if (typeof since === 'number' && shown !== r.id)
          for (const m of [...(byRoom[r.id] ?? []), ...(brought.get(r.id) ?? [])])
            if (typeof m.seq === 'number' && m.seq > since && !isOwn(m, this.userId))
              later.add(messageKey(m));
        unread[r.id] = r.unread + later.size;
      }
      w.$unreadByRoom.set(unread);
      // A room the user was added to while away, as if told live; not on the first sync (a
      // page's first load, or a reload), where every room is new to this page and none is news.
      if (this.#roomsListed) for (const r of result.rooms) if (!held.has(r.id)) this.#addedMe(r);
      this.#roomsListed = true;
    }
    return this.handleIncoming(result.messages ?? [], {
      announce: (m) => m.roomId in after,
      countUnread: false,
    });
  }

  #handleDisconnect(socket: LiveSocket, reason: string): void {
    if (socket !== this.#socket) return;
    this.#synced = false;
    // What the chat says now is the connection's loss; the next connection finds how the service is.
    this.stores.w.$serviceBusy.set(false);
    // The other end (or the path to it) ended the connection with messages in flight: one of them may be why.
    if (reason === 'transport close' || reason === 'transport error' || reason === 'io server disconnect') {
      for (const id of this.#inFlight) {
        const drops = (this.#drops.get(id) ?? 0) + 1;
        this.#drops.set(id, drops);
        if (drops >= DROPS_BEFORE_FAILED) this.#fail(id, clientError('CONNECTION_DROPPED'));
      }
    }
    this.#inFlight.clear();
    // Whatever was buffered for this connection goes again through the outbox flush.
    socket.sendBuffer = [];
    if (this.#destroyed) return;
    if (reason === 'io client disconnect') {
      this.#setConnection(this.#nudging ? 'reconnecting' : 'idle');
      return;
    }
    this.#lost('reconnecting');
    // The service closed the connection: socket.io will not retry by itself.
    if (reason === 'io server disconnect' && this.#wantConnected) {
      this.#later(() => {
        if (socket === this.#socket && !socket.connected) socket.connect();
      }, RETRY_DELAY_MS);
    }
  }

  async #handleConnectError(socket: LiveSocket, error: Error & { data?: unknown }): Promise<void> {
    if (socket !== this.#socket || this.#destroyed) return;
    if (socket.active) {
      // A transport failure: socket.io retries by itself.
      this.#lost(this.#firstSync ? 'connecting' : 'reconnecting');
      return;
    }
    // The service refused the handshake (middleware error).
    const body = error.data;
    const e =
      body && typeof body === 'object' && 'error' in body
        ? new CharlaError(body as CharlaError['body'], 0)
        : toCharlaError(error);
    // A refused token gets a new session, a few times in a row at most (a revoked key would loop).
    if (e.key === 'UNAUTHORIZED' && this.#authRenewals < 3 && (await this.renewSession())) {
      this.#authRenewals++;
      if (socket === this.#socket) socket.connect();
      return;
    }
    this.#setConnection('error');
    this.#reportError(e, 'connect');
    const first = this.#firstSync;
    this.#firstSync = null;
    first?.reject(e);
    // The service could not check the session for now (its database out of reach, the process
    // stopping), or its user has too many live connections open (RATE_LIMITED, other tabs):
    // socket.io does not try again after a refused handshake, so the widget does,
    // later and later (it stayed in `error` for good, its messages waiting).
    // A first connection's refusal is tried again by connect()'s own failure (#connectFailed).
    if ((serviceBusy(e) || e.key === 'RATE_LIMITED') && !first) {
      const delay = this.#nextConnectDelay(e);
      this.#later(() => {
        if (socket !== this.#socket || this.#destroyed || !this.#wantConnected || socket.active) return;
        this.#lost('reconnecting');
        socket.connect();
      }, delay);
    }
  }

  async #handleSessionExpired(socket: LiveSocket): Promise<void> {
    if (socket !== this.#socket) return;
    if (await this.renewSession()) {
      socket.disconnect();
      socket.connect();
    } else {
      this.#setConnection('error');
    }
  }

  get #ackTimeout(): number {
    return this.options.ackTimeoutMs ?? ACK_TIMEOUT_MS;
  }

  /* ------------------------------------------------------------------ */
  /* Incoming                                                            */
  /* ------------------------------------------------------------------ */

  /**
   * Messages from the service (live or gap fill): upsert, settle pending sends, tell the host.
   * Returns the messages as kept (a malformed one as its placeholder).
   */
  handleIncoming(
    received: readonly Message[],
    how: { announce?: (m: Message) => boolean; countUnread?: boolean } = {},
  ): Message[] {
    // What the network sent, made safe to keep and show (a malformed message is a placeholder).
    const messages = usableMessages(received);
    if (messages.length === 0) return messages;
    const announce = how.announce ?? (() => true);
    const countUnread = how.countUnread ?? true;
    const added = this.upsert(messages, true);
    const rooms = withLastMessages(this.stores.w.$rooms.get(), messages);
    if (rooms) this.stores.w.$rooms.set(rooms);
    for (const m of messages) {
      const id = messageKey(m);
      if (m.seq !== undefined && this.outbox.has(id)) this.#settle(id, m);
    }
    const me = this.userId;
    const shown = this.#shownRoom();
    const unread = { ...this.stores.w.$unreadByRoom.get() };
    let unreadChanged = false;
    for (const m of added) {
      if (announce(m)) {
        this.#news.add(messageKey(m));
        if (this.#news.size > NEWS_KEPT) this.#news.delete(this.#news.values().next().value!);
        this.emit('message', { roomId: m.roomId, message: m });
      }
      if (!countUnread || isOwn(m, me)) continue;
      if (shown === m.roomId) continue;
      unread[m.roomId] = (unread[m.roomId] ?? 0) + 1;
      unreadChanged = true;
    }
    if (unreadChanged) this.stores.w.$unreadByRoom.set(unread);
    if (shown !== null && added.some((m) => m.roomId === shown && !isOwn(m, me))) this.#markRead(shown);
    return messages;
  }

  /** The message came as news (announced as `message`), not as history: what the message list reads aloud. */
  isNews(message: Message): boolean {
    return this.#news.has(messageKey(message));
  }

  /** Upserts messages into their rooms; returns the ones not held before. */
  upsert(messages: readonly Message[], fromService: boolean): Message[] {
    const byRoom = new Map<string, Message[]>();
    for (const m of messages) {
      if (!m || typeof m.roomId !== 'string') continue;
      let list = byRoom.get(m.roomId);
      if (!list) byRoom.set(m.roomId, (list = []));
      list.push(m);
    }
    const all = this.stores.w.$messagesByRoom.get();
    let next: Record<string, Message[]> | null = null;
    const added: Message[] = [];
    const has = (id: string) => this.#messageRooms.has(id);
    for (const [roomId, list] of byRoom) {
      const result = upsertMessages(all[roomId] ?? [], list, has);
      if (result.changed) {
        next ??= { ...all };
        next[roomId] = result.list;
      }
      for (const m of result.added) this.#messageRooms.set(messageKey(m), roomId);
      if (fromService) added.push(...result.added);
    }
    if (next) this.stores.w.$messagesByRoom.set(next);
    return added;
  }

  /** Adds or updates a room; a room learned while live is complete up to its lastSeq. */
  upsertRoom(room: Room, onlyIfNew = false): void {
    if (!isUsableRoom(room)) return;
    this.#noteBaseline(room, onlyIfNew);
    // A room from the network (fetched, updated, opened): its last message made usable.
    this.stores.w.$rooms.set(upsertRooms(this.stores.w.$rooms.get(), [usableRoom(room)]));
  }

  #handleStatus(change: StatusChange): void {
    const all = this.stores.w.$messagesByRoom.get();
    const list = all[change.roomId];
    if (!list) return;
    const next = applyStatus(list, change.id, change.status, change.error);
    if (next) this.stores.w.$messagesByRoom.set({ ...all, [change.roomId]: next });
  }

  /** A room made with this user in it (a direct room someone opened) is news: addedToRoom, once. */
  #handleRoomUpdated(room: Room): void {
    const known = this.stores.w.$rooms.get().some((r) => r.id === room.id);
    this.upsertRoom(room, true);
    // The service's count (read in another tab, say), unless this one shows the room.
    const w = this.stores.w;
    const unread = w.$unreadByRoom.get();
    if (room.unread !== unread[room.id] && this.#shownRoom() !== room.id)
      w.$unreadByRoom.set({ ...unread, [room.id]: room.unread });
    if (!known) this.#addedMe(room);
  }

  /** A room new to this page with the user in it: addedToRoom (me), once per room. */
  #addedMe(room: Room): void {
    const member = room.membersInfo?.find((m) => m.referenceId === this.userId);
    if (!member || this.#joined.has(room.id)) return;
    this.#joined.add(room.id);
    this.emit('addedToRoom', { type: 'me', roomId: room.id, member });
  }

  #handleMembership(change: MembershipChange, joined: boolean): void {
    const { roomId, member } = change;
    const me = member.referenceId === this.userId;
    const w = this.stores.w;
    const room = w.$rooms.get().find((r) => r.id === roomId);
    if (joined) {
      if (room) w.$rooms.set(upsertRooms(w.$rooms.get(), [withMember(room, member)]));
      else if (me) void this.fetchRoom(roomId).catch(() => undefined);
      if (me) this.#joined.add(roomId);
      this.emit('addedToRoom', { type: me ? 'me' : 'other', roomId, member });
    } else {
      if (me) {
        this.#joined.delete(roomId);
        w.$rooms.set(w.$rooms.get().filter((r) => r.id !== roomId));
        if (w.$currentRoomId.get() === roomId) {
          w.$currentRoomId.set(this.#session?.botRoomId ?? null);
          // Its "add to the conversation" list was for that room: back to the chat, which says why,
          // and the list goes (offered in the bot room, a choice would let that person read it).
          if (w.$ui.get().view === 'room-contacts') patchUi(w.$ui, { view: 'chat' });
          w.$roomContacts.set([]);
          // The chat changes under the visitor's eyes (and cursor): it says why (an alert, not an error event).
          w.$lastError.set({
            message: translate(w.$language.get(), 'removedFromCurrent'),
            key: 'NOT_A_MEMBER',
          });
        }
      } else if (room) {
        w.$rooms.set(upsertRooms(w.$rooms.get(), [withoutMember(room, member)]));
      }
      this.emit('removedFromRoom', { type: me ? 'me' : 'other', roomId, member });
    }
  }

  /* ------------------------------------------------------------------ */
  /* Sending                                                             */
  /* ------------------------------------------------------------------ */

  /** The local, pending copy of an outgoing message. */
  #localCopy(out: OutgoingMessage, createdAt = Date.now()): Message {
    const user = this.stores.w.$user.get();
    const copy = {
      ...out,
      senderId: user?.id ?? this.userId,
      by: 'user',
      status: 'CREATED',
      createdAt: new Date(createdAt).toISOString(),
      timestamp: createdAt,
    } as Message;
    // Signed with the user's own name, as the service signs it (a senderNames given is ignored).
    // Not with `{ senderNames, ...rest } = out`: V8 gives a rest object slow (dictionary)
    // properties, which every copy kept (the outbox bench sent half as many messages a second);
    // delete does too, so only for a senderNames given, which the facade's type does not have.
    if (user?.names) copy.senderNames = user.names;
    else if (copy.senderNames !== undefined) delete copy.senderNames;
    return copy;
  }

  /**
   * Sends a message: checked at once (a bad one rejects and sends nothing),
   * shown as CREATED, kept in the outbox and delivered exactly once. Resolves
   * with the stored message; rejects when the service refuses it (FAILED).
   */
  sendMessage(input: unknown): Promise<Message> {
    if (this.#destroyed) return Promise.reject(clientError('DESTROYED'));
    try {
      input = own(input);
      if (this.#defaultRoom() === null && !this.#session && !hasRoomId(input)) {
        // No room yet to default to: the session names it (the bot room). The
        // message is checked and copied now, as any other, with a stand-in room.
        const out = this.#prepare(input, PENDING_ROOM);
        return this.ensureSession().then(
          () => {
            const roomId = this.#defaultRoom();
            if (roomId === null)
              throw invalidArgument('roomId is required: this widget has no current room', 'roomId');
            return this.#enqueue({ ...out, roomId });
          },
          (error: unknown) => {
            // Destroyed before the session named its room: it was never queued (no room to queue it for).
            if (this.#destroyed)
              throw clientError(
                'DESTROYED',
                'The widget instance was destroyed before its session named the room of this message (it had no roomId): the message was not sent.',
              );
            return rethrow(error);
          },
        );
      }
      return this.#enqueue(this.#prepare(input));
    } catch (error) {
      return Promise.reject(toCharlaError(error));
    }
  }

  /** The room a message without roomId goes to: the current one, else the bot room. */
  #defaultRoom(): string | null {
    return this.stores.w.$currentRoomId.get() ?? this.#session?.botRoomId ?? null;
  }

  /** The outgoing message, checked (throws VALIDATION_ERROR, sending nothing). */
  #prepare(input: unknown, roomId = this.#defaultRoom()): OutgoingMessage {
    return toOutgoingMessage(input, { id: uuid(), roomId });
  }

  #enqueue(out: OutgoingMessage): Promise<Message> {
    const id = String(out.id);
    const held = this.findMessage(id);
    // An id this widget holds for another message is refused here, as the service refuses it (400 at /id).
    if (held && held.status !== 'FAILED' && !sameFields(held, out, SAME))
      return Promise.reject(
        invalidArgument(
          `id ${id} is already the id of another message: a retry must repeat the message it retries`,
          'id',
        ),
      );
    if (held && held.status !== 'CREATED' && held.status !== 'FAILED') return Promise.resolve(held);
    const promise = this.#waitFor(id);
    this.upsert([this.#localCopy(out)], false);
    const entry = this.outbox.add(out);
    this.#attempts.delete(id);
    this.#trySend(entry);
    if (!this.#connectPromise && !this.#destroyed) void this.connect().catch(() => undefined);
    return promise;
  }

  /** Sends a FAILED message again (same id: the service still stores it once). */
  retry(messageId: string): Promise<Message> {
    const held = this.findMessage(messageId);
    if (!held) return Promise.reject(invalidArgument(`no message ${messageId} in this widget`, 'messageId'));
    if (held.status !== 'FAILED') {
      if (held.status === 'CREATED') return this.#waitFor(messageId);
      return Promise.resolve(held);
    }
    const {
      senderId: _s,
      by: _b,
      status: _st,
      createdAt: _c,
      timestamp: _t,
      seq: _q,
      error: _e,
      ...rest
    } = held as Message & {
      error?: unknown;
    };
    if (this.#destroyed) return Promise.reject(clientError('DESTROYED'));
    let out: OutgoingMessage;
    try {
      // Checked first: one that can never go stays FAILED.
      out = this.#prepare(rest);
    } catch (error) {
      return Promise.reject(toCharlaError(error));
    }
    // Reset to CREATED (FAILED and CREATED share a rank, so the store allows it).
    this.upsert([{ ...held, status: 'CREATED' } as Message], false);
    return this.#enqueue(out);
  }

  #waitFor(id: string): Promise<Message> {
    return new Promise<Message>((resolve, reject) => {
      const list = this.#waiters.get(id) ?? [];
      list.push({ resolve, reject });
      this.#waiters.set(id, list);
    });
  }

  /** A held message by id. */
  findMessage(id: string): Message | undefined {
    const roomId = this.#messageRooms.get(id);
    if (roomId === undefined) return undefined;
    const list = this.stores.w.$messagesByRoom.get()[roomId] ?? [];
    return list[indexOfMessage(list, id)];
  }

  /**
   * Emits every outbox entry not yet in flight, in order (only the first
   * after a drop, see #drops, or after RATE_LIMITED, see #heldUntil).
   */
  flush(): void {
    if (this.#heldLeft() > 0) return;
    const list = this.outbox.list();
    for (const entry of this.#drops.size || this.#paced ? list.slice(0, 1) : list) this.#trySend(entry);
  }

  /** Milliseconds the service asked the widget to wait before sending anything (0: none). */
  #heldLeft(): number {
    return Math.max(0, this.#heldUntil - Date.now());
  }

  /**
   * The service refused an event as RATE_LIMITED (or could not store it for now): wait what it
   * advised, at least `atLeastMs`, then go on one message at a time.
   */
  #holdOff(error: CharlaError, atLeastMs = 0): void {
    const until = Date.now() + Math.max(retryAfterMs(error, RETRY_DELAY_MS), atLeastMs);
    this.#paced = this.outbox.size > 0;
    if (until <= this.#heldUntil) return;
    this.#heldUntil = until;
    this.#scheduleResume();
  }

  /**
   * SERVICE_UNAVAILABLE or SERVICE_STOPPING: everything waits, longer each hold in a row (1 s
   * doubling to 30 s, or the Retry-After if longer), and the chat says so until a send or a sync
   * goes through.
   */
  #holdBusy(e: CharlaError): void {
    if (this.#heldLeft() === 0) this.#unavailableHolds++;
    this.#holdOff(e, backoffMs(this.#unavailableHolds - 1));
    this.stores.w.$serviceBusy.set(true);
  }

  /** A send or a sync went through: the service stores again. */
  #serviceBack(): void {
    this.#unavailableHolds = 0;
    this.stores.w.$serviceBusy.set(false);
  }

  /** One timer for the end of the wait (a later refusal moves it). */
  #scheduleResume(): void {
    if (this.#resumeTimer) {
      clearTimeout(this.#resumeTimer);
      this.#timers.delete(this.#resumeTimer);
    }
    this.#resumeTimer = this.#later(() => {
      this.#resumeTimer = null;
      if (this.#heldLeft() > 0) this.#scheduleResume();
      else if (this.#synced) this.flush();
    }, this.#heldLeft());
  }

  #trySend(entry: OutboxEntry): void {
    const socket = this.#socket;
    const id = String(entry.message.id);
    if (!socket || !socket.connected || !this.#synced || this.#inFlight.has(id) || this.#destroyed) return;
    // Held by the rate limit: the resume timer flushes, oldest first.
    if (this.#heldLeft() > 0) return;
    // After a drop or a RATE_LIMITED: one at a time, oldest first (order kept), until the suspects went through.
    if ((this.#drops.size || this.#paced) && (this.#inFlight.size || this.outbox.list()[0] !== entry)) return;
    this.#inFlight.add(id);
    const epoch = this.#epoch;
    request(socket, 'message:send', entry.message, this.#ackTimeout).then(
      (stored) => {
        if (epoch === this.#epoch) this.#inFlight.delete(id);
        this.#serviceBack();
        this.handleIncoming([stored]);
        this.#settle(id, stored);
      },
      (error: unknown) => {
        // An answer that belongs to an earlier connection: that connection's flush already sent it again.
        if (epoch !== this.#epoch) return;
        this.#inFlight.delete(id);
        if (!this.outbox.has(id) || this.#destroyed) return;
        const e = toCharlaError(error);
        if (e.key === 'RATE_LIMITED') {
          // Not the message's fault: CREATED, no attempt counted; it and every later one go after the wait.
          this.#holdOff(e);
          return;
        }
        if (serviceBusy(e)) {
          // The service could not store it now (its database out of reach, or the server stopping):
          // not the message's fault, and it may in fact be stored (the answer lost), so it stays
          // CREATED in the outbox, no attempt counted, and goes again with the same id (stored
          // once). It and every later one wait, longer each hold in a row; one hold for the
          // answers of one pipeline.
          this.#holdBusy(e);
          return;
        }
        // Any other answer of the service's own: it serves again (what it said is the message's).
        if (e.key !== 'TIMEOUT' && e.key !== 'NOT_CONNECTED' && e.key !== 'NETWORK_ERROR')
          this.#serviceBack();
        const attempt = (this.#attempts.get(id) ?? 0) + 1;
        this.#attempts.set(id, attempt);
        const transient =
          e.key === 'TIMEOUT' ||
          e.key === 'NOT_CONNECTED' ||
          e.key === 'NETWORK_ERROR' ||
          (e.key === 'UNKNOWN_ERROR' && attempt < UNKNOWN_ERROR_ATTEMPTS);
        if (transient) {
          // Never FAILED for a drop: it stays in the outbox and goes again.
          this.#later(
            () => {
              const again = this.outbox.get(id);
              if (again) this.#trySend(again);
            },
            RETRY_DELAY_MS * Math.min(attempt, 5),
          );
          return;
        }
        this.#fail(id, e);
      },
    );
  }

  /** The service stored the message: out of the outbox, promise resolved. */
  #settle(id: string, stored: Message): void {
    this.#attempts.delete(id);
    void this.outbox.remove(id);
    this.#cleared(id);
    const waiting = this.#waiters.get(id);
    this.#waiters.delete(id);
    const held = this.findMessage(id) ?? stored;
    for (const w of waiting ?? []) w.resolve(held);
    // Messages go again: the banner of one refused before leaves the chat (its bubble stays FAILED,
    // with its retry and reason).
    if (this.#sendError && this.stores.w.$lastError.get() === this.#sendError)
      this.stores.w.$lastError.set(null);
    this.#sendError = null;
  }

  /**
   * A message left the outbox: after a drop or a RATE_LIMITED, the next one
   * goes (all of them once no suspect is left, or the outbox is empty).
   */
  #cleared(id: string): void {
    if (!this.#drops.size && !this.#paced) return;
    this.#drops.delete(id);
    this.#inFlight.delete(id);
    if (this.outbox.size === 0) this.#paced = false;
    if (this.#synced) this.flush();
  }

  /** The service refused the message: FAILED with its reason; retry() sends it again. */
  #fail(id: string, error: CharlaError): void {
    this.#attempts.delete(id);
    void this.outbox.remove(id);
    this.#cleared(id);
    const held = this.findMessage(id);
    if (held) {
      const all = this.stores.w.$messagesByRoom.get();
      const list = all[held.roomId] ?? [];
      const next = applyStatus(list, id, 'FAILED', {
        code: error.code,
        key: error.key,
        description: error.message || error.body.error.description,
      });
      if (next) this.stores.w.$messagesByRoom.set({ ...all, [held.roomId]: next });
    }
    const waiting = this.#waiters.get(id);
    this.#waiters.delete(id);
    for (const w of waiting ?? []) w.reject(error);
    // Removed from the room while it waited (typed offline, say): the chat now shows another room, so
    // "No perteneces a esta conversación" would be about the wrong one. It names the message instead.
    const chars = [...(held?.type === 'TEXT' ? held.text : '')];
    const said =
      error.key === 'NOT_A_MEMBER' && chars.length
        ? translate(this.stores.w.$language.get(), 'sendNotMember', {
            text: chars.length > 60 ? `${chars.slice(0, 59).join('')}…` : chars.join(''),
          })
        : undefined;
    this.#reportError(error, 'sendMessage', said);
  }

  /* ------------------------------------------------------------------ */
  /* Read state                                                          */
  /* ------------------------------------------------------------------ */

  /**
   * Something that decides whether a room shows changed (the panel, the room, the page's or the
   * element's visibility): a room that has come into view is read then, and only then.
   */
  shownChanged(): void {
    if (this.#destroyed) return;
    const shown = this.#shownRoom();
    if (shown === this.#shown) return;
    this.#shown = shown;
    if (shown !== null) this.#markRead(shown);
  }

  /**
   * The room the user is looking at: the current room while the panel is open on the chat view;
   * null on the home menu or the room contacts (the current room is only remembered there), or
   * with the panel closed. Only this room is read; the announcer reads out the others' news.
   */
  #shownRoom(): string | null {
    const ui = this.stores.w.$ui.get();
    if (!ui.open || ui.view !== 'chat') return null;
    // A hidden page (another tab, the phone's home screen) shows nothing: what arrives is unread.
    if (globalThis.document?.visibilityState === 'hidden') return null;
    // Nor does a widget whose element is out of the page or hidden with it (a container set to
    // display:none by a route kept alive, a tab pane): read there, no one would have seen it.
    const el = this.element as (HTMLElement & { checkVisibility?: () => boolean }) | null;
    if (el?.isConnected === false || el?.checkVisibility?.() === false) return null;
    return this.stores.w.$currentRoomId.get();
  }

  /** The user is looking at the room (see #shownRoom): its unread count goes to zero. */
  #markRead(roomId: string): void {
    const unread = this.stores.w.$unreadByRoom.get();
    if ((unread[roomId] ?? 0) > 0) this.stores.w.$unreadByRoom.set({ ...unread, [roomId]: 0 });
    // Reported at once: the user may look away a moment later, and a report sent after that would
    // clear at the service what arrived since. Then one more at most per moment, however many
    // messages arrive while the room shows.
    const moment = this.#readTimers.get(roomId);
    if (moment) moment.again = true;
    else this.#reportRead(roomId);
  }

  #reportRead(roomId: string): void {
    const wait = this.#heldLeft();
    const moment = {
      again: false,
      timer: setTimeout(
        () => {
          this.#readTimers.delete(roomId);
          // Read again meanwhile: reported, unless the user has looked away since and something
          // arrived (room:read clears the whole count at the service).
          const since = this.stores.w.$unreadByRoom.get()[roomId] ?? 0;
          if (moment.again && (this.#shownRoom() === roomId || since === 0)) this.#reportRead(roomId);
        },
        Math.max(READ_REPORT_MS, wait),
      ),
    };
    this.#readTimers.set(roomId, moment);
    const socket = this.#socket;
    if (!socket?.connected || this.#destroyed) return;
    // Held by the rate limit: reported at the end of the wait.
    if (wait > 0) {
      moment.again = true;
      return;
    }
    // Up to the last message held: what the service stores meanwhile stays unread there.
    const seq = lastSeq(this.stores.w.$messagesByRoom.get()[roomId] ?? []);
    request(socket, 'room:read', { roomId, seq }, this.#ackTimeout).catch((error: unknown) => {
      const e = toCharlaError(error);
      // Refused by the rate limit: reported again after the wait.
      if (e.key !== 'RATE_LIMITED' || this.#destroyed) return;
      this.#holdOff(e);
      const now = this.#readTimers.get(roomId);
      if (now) now.again = true;
      else this.#reportRead(roomId);
    });
  }

  /** Batches "seen" reports (DELIVERED_USER for the senders). */
  markSeen(roomId: string, ids: string[]): void {
    const others = ids.filter((id) => {
      const m = this.findMessage(id);
      return m !== undefined && !isOwn(m, this.userId) && m.status !== 'DELIVERED_USER';
    });
    if (others.length === 0) return;
    this.#queueSeen(roomId, others);
    if (this.#seenTimer) return;
    this.#reportSeen(SEEN_FLUSH_MS);
  }

  #queueSeen(roomId: string, ids: Iterable<string>): void {
    let set = this.#seen.get(roomId);
    if (!set) this.#seen.set(roomId, (set = new Set()));
    for (const id of ids) set.add(id);
  }

  #reportSeen(ms: number): void {
    this.#seenTimer = setTimeout(() => {
      this.#seenTimer = null;
      const socket = this.#socket;
      if (!socket?.connected || this.#destroyed) return;
      if (this.#heldLeft() > 0) return this.#reportSeen(this.#heldLeft());
      for (const [room, idSet] of this.#seen) {
        const ids = [...idSet];
        request(socket, 'messages:seen', { roomId: room, ids }, this.#ackTimeout).catch((error: unknown) => {
          const e = toCharlaError(error);
          // Refused by the rate limit: the same ids go again after the wait.
          if (e.key !== 'RATE_LIMITED' || this.#destroyed) return;
          this.#holdOff(e);
          this.#queueSeen(room, ids);
          if (!this.#seenTimer) this.#reportSeen(this.#heldLeft());
        });
      }
      this.#seen.clear();
    }, ms);
  }

  /* ------------------------------------------------------------------ */
  /* REST operations                                                     */
  /* ------------------------------------------------------------------ */

  async #call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#destroyed) throw clientError('DESTROYED');
    await this.ensureSession();
    return fn();
  }

  async fetchRoom(roomId: string): Promise<Room> {
    const res = await this.#call(() =>
      this.rest.get<Room | { room: Room }>(routePath(ROUTES.widgetRoom, { roomId })),
    );
    const room = unwrap<Room>(res, 'room');
    this.upsertRoom(room, true);
    return room;
  }

  async fetchMembers(roomId: string): Promise<Member[]> {
    const res = await this.#call(() =>
      this.rest.get<{ members: Member[] } | Member[]>(routePath(ROUTES.widgetRoomMembers, { roomId })),
    );
    return Array.isArray(res) ? res : (res.members ?? []);
  }

  postApi<T = ApiResponse>(path: string, body: unknown): Promise<T> {
    return this.#call(() => this.rest.post<T>(path, body));
  }

  /** History: the latest page, or the page before message `id`; kept in the room's store. */
  async getMessages(options: unknown): Promise<Message[]> {
    const { roomId, limit, id } = requireGetMessages(options, GET_MESSAGES_LIMIT_DEFAULT);
    const res = await this.#call(() =>
      this.rest.get<{ messages: Message[] } | Message[]>(routePath(ROUTES.widgetRoomMessages, { roomId }), {
        query: { limit, id },
      }),
    );
    const messages = usableMessages(Array.isArray(res) ? res : res.messages);
    this.upsert(messages, false);
    for (const m of messages)
      if (this.outbox.has(messageKey(m)) && m.seq !== undefined) this.#settle(messageKey(m), m);
    return messages;
  }

  /** A fresh signed address for an expired one of the service's; the same address when none can be had. */
  refreshMediaUrl(url: string): Promise<string> {
    // Another site's address (a visitor's own IMAGE may name any): the service cannot sign it, so it is not asked.
    if (!isServiceMedia(url, this.baseUrl)) return Promise.resolve(url);
    let pending = this.#refreshes.get(url);
    if (!pending) {
      pending = this.#call(() =>
        this.rest.post<{ signedUrl?: unknown }>(ROUTES.widgetAssetsRefresh, { resourceUrl: url }),
      ).then(
        (res) => {
          const fresh = res && isSafeUrl(res.signedUrl) ? res.signedUrl : url;
          if (fresh !== url) this.#swapMediaUrl(url, fresh);
          return fresh;
        },
        () => url,
      );
      this.#refreshes.set(url, pending);
      void pending.then(() => this.#later(() => this.#refreshes.delete(url), 5_000));
    }
    return pending;
  }

  /** Refreshes every expired signed media address held for a room. */
  refreshExpiredMedia(roomId: string): void {
    const list = this.stores.w.$messagesByRoom.get()[roomId] ?? [];
    for (const m of list) {
      const url = (m as { mediaUrl?: unknown }).mediaUrl;
      if (typeof url === 'string' && isExpiredSignedUrl(url)) void this.refreshMediaUrl(url);
    }
  }

  #swapMediaUrl(oldUrl: string, fresh: string): void {
    const all = this.stores.w.$messagesByRoom.get();
    let next: Record<string, Message[]> | null = null;
    for (const [roomId, list] of Object.entries(all)) {
      if (!list.some((m) => (m as { mediaUrl?: unknown }).mediaUrl === oldUrl)) continue;
      next ??= { ...all };
      next[roomId] = list.map((m) =>
        (m as { mediaUrl?: unknown }).mediaUrl === oldUrl ? ({ ...m, mediaUrl: fresh } as Message) : m,
      );
    }
    if (next) this.stores.w.$messagesByRoom.set(next);
  }

  /* ------------------------------------------------------------------ */
  /* Lifecycle                                                           */
  /* ------------------------------------------------------------------ */

  /** Runs `fn` after `ms` unless destroyed first; the timer, to cancel (null once destroyed). */
  #later(fn: () => void, ms: number): ReturnType<typeof setTimeout> | null {
    if (this.#destroyed) return null;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      if (!this.#destroyed) fn();
    }, ms);
    this.#timers.add(t);
    return t;
  }

  get isDestroyed(): boolean {
    return this.#destroyed;
  }

  /**
   * Closes the socket, stops timers and requests, and lets go of the outbox's storage once its
   * writes are done. The outbox stays in storage for the next page.
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const stop of this.#unlisten.splice(0)) stop();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    if (this.#seenTimer) clearTimeout(this.#seenTimer);
    for (const { timer } of this.#readTimers.values()) clearTimeout(timer);
    this.#readTimers.clear();
    this.#socket?.removeAllListeners();
    this.#socket?.disconnect();
    this.#socket = null;
    this.rest.abortAll();
    void this.outbox.close();
    const error = clientError('DESTROYED');
    // A send still queued is not lost: the outbox stays in storage, as across a reload.
    const queued = clientError(
      'DESTROYED',
      'The widget instance was destroyed; the message stays queued and is sent when a widget for this user connects again (unless the page deletes the outbox storage).',
    );
    for (const [id, list] of this.#waiters)
      for (const w of list) w.reject(this.outbox.has(id) ? queued : error);
    this.#waiters.clear();
    this.#firstSync?.reject(error);
    this.#firstSync = null;
    // Told as after disconnect(): the page's `connection` listeners hear `idle` once, last.
    this.#setConnection('idle');
    this.events.clear();
    this.element = null;
  }
}

/** Accepts a bare object or one wrapped in `{ [key]: object }`. */
function unwrap<T>(res: unknown, key: string): T {
  if (
    res &&
    typeof res === 'object' &&
    key in res &&
    typeof (res as Record<string, unknown>)[key] === 'object'
  ) {
    return (res as Record<string, T>)[key] as T;
  }
  return res as T;
}
