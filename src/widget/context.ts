/**
 * The boundary between the widget core (stores, actions, transport) and the
 * Lit components. `<charla-widget>` receives one WidgetContext per instance
 * (property `context`) and hands it down to its children; components read the
 * stores through ContextStoresController (src/controllers/) and call the actions, and never import the
 * transport.
 */
import type { ReadableAtom } from 'nanostores';
import type {
  ConnectionState,
  Contact,
  ErrorBody,
  Language,
  Message,
  MessageOption,
  OutgoingMessage,
  QuickReply,
  Room,
  UploadResult,
  WidgetPublicConfig,
} from '../../types/index.ts';

export type WidgetView = 'home' | 'chat' | 'room-contacts';

export interface UiState {
  open: boolean;
  /** close(true) disables the launcher; enable()/open() enable it again. */
  launcherDisabled: boolean;
  view: WidgetView;
  inputsDisabled: boolean;
}

/** Per-room history paging state. */
export interface HistoryState {
  loading: boolean;
  /** False once the first message of the room is held. */
  hasMore: boolean;
  error?: ErrorBody | undefined;
}

/** An upload in progress (the composer shows its progress bar). */
export interface UploadState {
  id: string;
  name: string;
  /** The share sent, 0 to 1; 0 while it is not known (nothing sent yet, or all sent and being stored). */
  progress: number;
}

/** The rooms a widget's user can open from it: every one, or these. */
export type ReachableRooms = 'all' | ReadonlySet<string>;

export interface WidgetStores {
  $connection: ReadableAtom<ConnectionState>;
  $ui: ReadableAtom<UiState>;
  /** The widget's configuration (properties, theme, credentials) once the session is open. */
  $config: ReadableAtom<WidgetPublicConfig | null>;
  /** The user of this widget. */
  $user: ReadableAtom<{ id: string; names: string | null } | null>;
  $language: ReadableAtom<Language>;
  $rooms: ReadableAtom<Room[]>;
  $currentRoomId: ReadableAtom<string | null>;
  /** The current room's messages, ordered by sequence (pending ones last), one entry per id. */
  $currentMessages: ReadableAtom<Message[]>;
  $currentHistory: ReadableAtom<HistoryState>;
  $contacts: ReadableAtom<Contact[]>;
  $contactsLoading: ReadableAtom<boolean>;
  $roomContacts: ReadableAtom<Contact[]>;
  $roomContactsLoading: ReadableAtom<boolean>;
  /** Unread count per room id. */
  $unreadByRoom: ReadableAtom<Record<string, number>>;
  $unreadTotal: ReadableAtom<number>;
  /** The rooms the user can open from this widget (see createStores): 'all', or their ids. */
  $reachableRooms: ReadableAtom<ReachableRooms>;
  /** What the launcher's badge counts: the unread messages of the rooms the user can open here. */
  $launcherUnread: ReadableAtom<number>;
  $uploads: ReadableAtom<UploadState[]>;
  /** The last error worth showing the user (cleared by dismissError). */
  $lastError: ReadableAtom<LastError | null>;
  /**
   * The service is there but cannot store for now (SERVICE_UNAVAILABLE, SERVICE_STOPPING): what is
   * sent waits in the outbox until a send or a sync goes through again.
   */
  $serviceBusy: ReadableAtom<boolean>;
}

/** What $lastError holds: the CharlaError's message, code, key and whether a retry may help. */
export interface LastError {
  message: string;
  code?: string;
  key?: string;
  transient?: boolean;
  /** When the service said to come back (epoch ms, from a 429's `data.retryAfterMs`), when it named a wait. */
  retryAt?: number;
}

export interface WidgetActions {
  /**
   * The service's base address (its origin, and its path when it is served under one): a visitor's
   * media from anywhere else waits for a click (see message.ts).
   */
  readonly baseUrl?: string;
  open(): void;
  close(disable?: boolean): void;
  showHomeMenu(): void;
  hideHomeMenu(): void;
  showRoomContacts(): void;
  selectRoom(roomId: string): void;
  /** Sends any of the eight types; id, roomId and status are filled in when missing. */
  sendMessage(message: Partial<OutgoingMessage> & { type: OutgoingMessage['type'] }): Promise<Message>;
  sendText(text: string): Promise<Message>;
  /** The user chose an option: a POSTBACK with the option's payload. */
  chooseOption(message: Message, option: MessageOption): Promise<Message>;
  chooseQuickReply(message: Message, reply: QuickReply): Promise<Message>;
  /** Answer to a contact_info_request: goes back to the bot as a POSTBACK. */
  submitContactInfo(message: Message, info: { name: string; phone: string; email: string }): Promise<Message>;
  /** Upload then send as IMAGE, DOCUMENT, AUDIO or VIDEO; progress in $uploads. */
  sendFile(
    file: Blob & { name?: string },
    type: 'IMAGE' | 'DOCUMENT' | 'AUDIO' | 'VIDEO',
    caption?: string,
  ): Promise<Message>;
  /**
   * Stops an upload of $uploads and sends nothing, even when the file has already reached the
   * service: its sendFile rejects with DESTROYED. Optional, so a context written before it still fits.
   */
  cancelUpload?(id: string): void;
  sendLocation(lat: number, lng: number): Promise<Message>;
  retry(messageId: string): Promise<Message>;
  /** Loads the page of history before the oldest message held. */
  loadOlder(): Promise<void>;
  /** The user has seen these messages (they become DELIVERED_USER for the sender). */
  markSeen(roomId: string, ids: string[]): void;
  /**
   * True for a message the service sent as news (live, or missed while away and
   * announced as `message`), false for history (a room's latest page, older pages).
   */
  isNews(message: Message): boolean;
  openRoomWithUser(contact: Contact): Promise<Room>;
  /** Adds a room contact to `roomId` (the room its view was opened for), else to the current room. */
  addMember(contact: Contact, roomId?: string): Promise<void>;
  /** Returns a fresh signed address for an expired one of the service's (or the same when it cannot). */
  refreshMediaUrl(url: string): Promise<string>;
  dismissError(): void;
  /** Tries to connect again after the widget could not start (the error stays in $lastError). */
  reconnect(): void;
  setLanguage(language: Language): void;
}

export interface WidgetContext {
  stores: WidgetStores;
  actions: WidgetActions;
}

/** Upload result (re-exported for components that show file cards). */
export type { UploadResult };
