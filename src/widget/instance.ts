/**
 * WidgetInstance: the `widgetInstance` of the interface, one method per
 * operation of its table, plus connect(), destroy(), events and read-only
 * stores for the host page.
 */
import type {
  AddMembersItem,
  ApiResponse,
  Contact,
  Member,
  Message,
  OutgoingMessage,
  Room,
} from '../../types/index.ts';
import type { WritableAtom } from 'nanostores';
import { ROUTES, routePath } from '../../types/routes.ts';
import type { WidgetEventMap, WidgetEventName } from '../events/index.ts';
import { mergeContacts, patchUi, uniqueContacts, type HostStores } from '../stores/index.ts';
import {
  attempt,
  CharlaError,
  clientError,
  errorBody,
  invalidArgument,
  toCharlaError,
} from '../transport/errors.ts';
import {
  requireContact,
  sentContact,
  requireContacts,
  requireId,
  requireMembers,
  optionalStringMap,
} from '../util/validate.ts';
import { createActions, type CoreActions } from './actions.ts';
import type { UiState, WidgetContext } from './context.ts';
import { WidgetCore, type WidgetOptions } from './core.ts';

/** setFlow's answer: the ApiResponse plus the bot room the flow runs in and the flow started. */
export type FlowStarted = ApiResponse & { roomId: string; flowId: string };

type Sendable<T> = T extends { type: 'LOCATION' }
  ? Omit<T, 'id' | 'roomId' | 'lat' | 'lng'> & {
      id?: string;
      roomId?: string;
      lat: string | number;
      lng: string | number;
    }
  : T extends unknown
    ? Omit<T, 'id' | 'roomId'> & { id?: string; roomId?: string }
    : never;
/**
 * A message as sendMessage takes it: one of the eight types with its fields;
 * `id` (a UUID) and `roomId` (the current room) are filled in when absent.
 */
export type SendableMessage = Sendable<OutgoingMessage>;

/**
 * A void method's bad argument as the `error` event carries it: the message
 * names the method first ("setContacts: contacts must be an array of
 * contacts"), the field stays as it was.
 */
function invalidCall(operation: string, error: unknown): CharlaError {
  const e = toCharlaError(error);
  if (e.key !== 'VALIDATION_ERROR') return e;
  const message = `${operation}: ${e.message}`;
  return new CharlaError(
    errorBody('VALIDATION_ERROR', { message, validationError: e.body.validationError }),
    e.httpStatus,
  );
}

/** A promise method's work: whatever it throws or rejects with reaches the page as a CharlaError. */
const settled = <T>(fn: () => Promise<T>): Promise<T> =>
  attempt(fn).catch((e: unknown) => {
    throw toCharlaError(e);
  });

const EVENT_NAMES: readonly WidgetEventName[] = [
  'open',
  'close',
  'message',
  'addedToRoom',
  'removedFromRoom',
  'connection',
  'error',
];

/** The event name, when on()/off() were given a known one and a function. */
function requireListener<K extends WidgetEventName>(name: K, handler: unknown): K {
  if (!EVENT_NAMES.includes(name))
    throw invalidArgument(`unknown event ${String(name)}; use one of ${EVENT_NAMES.join(', ')}`, 'name');
  if (typeof handler !== 'function') throw invalidArgument('handler must be a function', 'handler');
  return name;
}

export class WidgetInstance {
  /** @internal The core: session, connection, outbox and stores. */
  readonly core: WidgetCore;
  /** @internal What `<charla-widget>` receives. */
  readonly context: WidgetContext;
  /** Read-only stores for the host: connection state, open state, current room, rooms, unread counts. */
  readonly stores: HostStores;
  /** The `<charla-widget>` element, or null when headless. */
  element: HTMLElement | null = null;
  readonly #actions: CoreActions;
  readonly #cleanups: (() => void)[] = [];
  /** The room of the latest setCurrentRoom (one being checked with the service may be overtaken). */
  #roomAsked: string | null = null;

  constructor(options: WidgetOptions) {
    this.core = new WidgetCore(options);
    this.#actions = createActions(this.core);
    this.context = { stores: this.core.stores.read, actions: this.#actions };
    this.stores = this.core.stores.host;
  }

  /** @internal Registers a teardown step run by destroy(). */
  addCleanup(fn: () => void): void {
    this.#cleanups.push(fn);
  }

  /**
   * Runs a void method. A host page calling it with a bad argument gets no
   * exception (it would be uncaught, and the method returns nothing to reject):
   * nothing changes and the `error` event says why, as for setCurrentRoom's
   * NOT_A_MEMBER. The console says it too: the page's developer may have no
   * `error` listener yet (the loader hands queued on() calls over in order).
   */
  #guard(operation: string, run: () => void): void {
    // After destroy() a void method does nothing, and says nothing (README: the others do nothing).
    if (this.core.isDestroyed) return;
    try {
      run();
    } catch (e) {
      const error = invalidCall(operation, e);
      console.warn(`Charla: ${error.message}`);
      this.core.emit('error', { error, operation });
    }
  }

  /** A loader flag (after destroy(): nothing). */
  #flag(name: '$contactsLoading' | '$roomContactsLoading', on: boolean): void {
    if (!this.core.isDestroyed) this.core.stores.w[name].set(on);
  }

  /** A change of the UI state (after destroy(): nothing). */
  #ui(patch: Partial<UiState>): void {
    if (!this.core.isDestroyed) patchUi(this.core.stores.w.$ui, patch);
  }

  /** Resolves with this instance (the script-tag handle has the same, for code that works with both). */
  get ready(): Promise<this> {
    return Promise.resolve(this);
  }

  /** The user id this widget speaks as. */
  get userId(): string {
    return this.core.userId;
  }

  /** A promise method's work; after destroy() it rejects with DESTROYED before reading its arguments. */
  #settled<T>(fn: () => Promise<T>): Promise<T> {
    return settled(() => (this.core.isDestroyed ? Promise.reject(clientError('DESTROYED')) : fn()));
  }

  /** Opens the session and the live connection; resolves once the first connection has synced. */
  connect(): Promise<void> {
    return this.#settled(() => this.core.connect());
  }

  /** Closes the live connection; unsent messages stay in the outbox until connect(). */
  disconnect(): void {
    this.core.disconnect();
  }

  /** Removes everything this instance added: element, listeners, socket, timers. Unsent messages stay stored for the next page. */
  destroy(): void {
    for (const fn of this.#cleanups.splice(0)) {
      try {
        fn();
      } catch {
        // Teardown goes on whatever one step does.
      }
    }
    this.element?.remove();
    this.element = null;
    this.core.destroy();
  }

  /** Listens to a widget event (open, close, message, addedToRoom, removedFromRoom, connection, error). */
  on<K extends WidgetEventName>(name: K, handler: (detail: WidgetEventMap[K]) => void): this {
    this.#guard('on', () => this.core.events.on(requireListener(name, handler), handler));
    return this;
  }

  /** Stops listening (same name and handler as on()). */
  off<K extends WidgetEventName>(name: K, handler: (detail: WidgetEventMap[K]) => void): this {
    this.#guard('off', () => this.core.events.off(requireListener(name, handler), handler));
    return this;
  }

  /* ---- The interface's table ---- */

  /** Opens the widget and enables the start button if it was disabled. */
  open(): void {
    this.#guard('open', this.#actions.open);
  }

  /** Closes the widget; `disable` true also disables the start button (enable() or open() turn it on again). */
  close(disable?: boolean): void {
    this.#guard('close', () => {
      if (disable !== undefined && typeof disable !== 'boolean')
        throw invalidArgument('disable must be a boolean', 'disable');
      this.#actions.close(disable ?? false);
    });
  }

  /** Enables the start button. */
  enable(): void {
    this.#ui({ launcherDisabled: false });
  }

  /** Starts a flow of the bot for this user, optionally with injected parameters; the flow runs in the bot room. */
  setFlow(flowId: string, storedParams?: Record<string, string>): Promise<FlowStarted> {
    return this.#settled(() => {
      requireId(flowId, 'flowId');
      const params = optionalStringMap(storedParams, 'storedParams');
      return this.core.postApi<FlowStarted>(
        routePath(ROUTES.widgetFlow, { flowId }),
        params ? { storedParams: params } : {},
      );
    });
  }

  /** The room, with its members. */
  getRoom(roomId: string): Promise<Room> {
    return this.#settled(() => this.core.fetchRoom(requireId(roomId, 'roomId')));
  }

  /** The room's members. */
  getMembers(roomId: string): Promise<Member[]> {
    return this.#settled(() => this.core.fetchMembers(requireId(roomId, 'roomId')));
  }

  /**
   * Makes a room the current one (the chat view shows it; messages default
   * to it): a room of the user's, known here or confirmed by the service
   * (as getRoom). Any other stays out: the current room does not change and
   * the `error` event tells why (NOT_A_MEMBER, NOT_FOUND).
   */
  setCurrentRoom(roomId: string): void {
    this.#guard('setCurrentRoom', () => this.#setCurrentRoom(requireId(roomId, 'roomId')));
  }

  #setCurrentRoom(id: string): void {
    const core = this.core;
    if (id === core.currentSession?.botRoomId || core.stores.w.$rooms.get().some((r) => r.id === id)) {
      this.#roomAsked = id;
      this.#actions.selectRoom(id);
      return;
    }
    this.#roomAsked = id;
    void core.fetchRoom(id).then(
      // Unless the host chose another room meanwhile.
      () => this.#roomAsked === id && this.#actions.selectRoom(id),
      (error: unknown) => core.emit('error', { error: toCharlaError(error), operation: 'setCurrentRoom' }),
    );
  }

  /** Adds a user to a room. */
  joinRoom(roomId: string, userId: string): Promise<ApiResponse> {
    return this.#settled(() => {
      requireId(roomId, 'roomId');
      requireId(userId, 'userId');
      return this.core.postApi<ApiResponse>(routePath(ROUTES.widgetRoomJoin, { roomId }), { userId });
    });
  }

  /** Takes a user out of a room. */
  leaveRoom(roomId: string, userId: string): Promise<ApiResponse> {
    return this.#settled(() => {
      requireId(roomId, 'roomId');
      requireId(userId, 'userId');
      return this.core.postApi<ApiResponse>(routePath(ROUTES.widgetRoomLeave, { roomId }), { userId });
    });
  }

  /** Opens a chat with that user (their direct room, made once), and shows it. */
  openRoomWithUser(user: { id: string | number; names?: string }): Promise<Room> {
    return this.#settled(() => this.#actions.openRoomWithUser(requireContact(user, 'user')));
  }

  /** Switches from the home menu to the chat view (no effect when already there). */
  hideHomeMenu(): void {
    this.#guard('hideHomeMenu', this.#actions.hideHomeMenu);
  }

  /** Switches from the chat view to the home menu (no effect when already there). */
  showHomeMenu(): void {
    this.#guard('showHomeMenu', this.#actions.showHomeMenu);
  }

  /** Replaces the contacts used to start chats. */
  setContacts(contacts: Contact[]): void {
    this.#guard('setContacts', () =>
      this.core.stores.w.$contacts.set(uniqueContacts(requireContacts(contacts))),
    );
  }

  /** Adds contacts (a contact with a known id replaces the old one). */
  addContacts(contacts: Contact[]): void {
    this.#guard('addContacts', () =>
      this.#mergeInto(this.core.stores.w.$contacts, requireContacts(contacts)),
    );
  }

  /** Adds one contact. */
  addContact(contact: Contact): void {
    this.#guard('addContact', () => this.#mergeInto(this.core.stores.w.$contacts, [requireContact(contact)]));
  }

  /** Shows a loader on the contact list. */
  startLoading(): void {
    this.#flag('$contactsLoading', true);
  }

  /** Hides the contact list's loader. */
  stopLoading(): void {
    this.#flag('$contactsLoading', false);
  }

  /** Replaces the contacts that can be added to an existing room. */
  setContactsForRoom(contacts: Contact[]): void {
    this.#guard('setContactsForRoom', () =>
      this.core.stores.w.$roomContacts.set(uniqueContacts(requireContacts(contacts))),
    );
  }

  /** Adds room contacts. */
  addRoomContacts(contacts: Contact[]): void {
    this.#guard('addRoomContacts', () =>
      this.#mergeInto(this.core.stores.w.$roomContacts, requireContacts(contacts)),
    );
  }

  /** Adds one room contact. */
  addRoomContact(contact: Contact): void {
    this.#guard('addRoomContact', () =>
      this.#mergeInto(this.core.stores.w.$roomContacts, [requireContact(contact)]),
    );
  }

  /** Adds contacts to a contact list (a contact with a known id replaces the old one). */
  #mergeInto(list: WritableAtom<Contact[]>, contacts: Contact[]): void {
    list.set(mergeContacts(list.get(), contacts));
  }

  /** Shows a loader on the room contact list. */
  startLoadingForRoom(): void {
    this.#flag('$roomContactsLoading', true);
  }

  /** Hides the room contact list's loader. */
  stopLoadingForRoom(): void {
    this.#flag('$roomContactsLoading', false);
  }

  /** Disables the text input, the attach button (document, image, location) and the microphone. */
  disableInputs(): void {
    this.#ui({ inputsDisabled: true });
  }

  /** Enables the inputs again. */
  enableInputs(): void {
    this.#ui({ inputsDisabled: false });
  }

  /** Adds a member (a Contact, or a user id) to a room. Resolves with the service's ApiResponse (or its text answer). */
  addMember(member: Contact | string, roomId: string): Promise<ApiResponse | string> {
    return this.#settled(() => {
      if (typeof member !== 'string' && (typeof member !== 'object' || member === null))
        throw invalidArgument('member must be a Contact ({ id, names? }) or a user id string', 'member');
      const m =
        typeof member === 'string'
          ? requireId(member, 'member')
          : sentContact(requireContact(member, 'member'));
      requireId(roomId, 'roomId');
      return this.core.postApi<ApiResponse | string>(routePath(ROUTES.widgetRoomMembers, { roomId }), {
        member: m,
      });
    });
  }

  /** Adds several members to a room; memberType defaults to Client. */
  addMembers(roomId: string, members: AddMembersItem[]): Promise<ApiResponse | string> {
    return this.#settled(() => {
      requireId(roomId, 'roomId');
      const list = requireMembers(members);
      return this.core.postApi<ApiResponse | string>(routePath(ROUTES.widgetRoomMembersBulk, { roomId }), {
        members: list,
      });
    });
  }

  /**
   * History of a room: the latest `limit` messages (default 20), or the
   * `limit` before message `id`; oldest first.
   */
  getMessages(options: { roomId: string; limit?: number; id?: string | number | null }): Promise<Message[]> {
    return this.#settled(() => this.core.getMessages(options));
  }

  /**
   * Sends a message of any of the eight types (TEXT, IMAGE, AUDIO, VIDEO,
   * DOCUMENT, LOCATION, POSTBACK, EVENT). `id` (a UUID) and `roomId` (the
   * current room) are filled in when absent. Resolves with the stored
   * message; offline, it waits in the outbox and is delivered exactly once.
   */
  sendMessage(message: SendableMessage): Promise<Message> {
    return this.#settled(() => this.core.sendMessage(message));
  }
}
