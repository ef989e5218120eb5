/**
 * The per-instance state of one widget, as nanostores. Every widget instance
 * makes its own set: two widgets on one page share nothing.
 */
import { atom, computed, type ReadableAtom, type WritableAtom } from 'nanostores';
import type {
  ConnectionState,
  Contact,
  Language,
  Message,
  Room,
  WidgetPublicConfig,
} from '../../types/index.ts';
import type {
  HistoryState,
  LastError,
  ReachableRooms,
  UiState,
  UploadState,
  WidgetStores,
} from '../widget/context.ts';

export * from './messages.ts';
export * from './rooms.ts';
export * from './contacts.ts';

const NO_MESSAGES: Message[] = [];
const DEFAULT_HISTORY: HistoryState = { loading: false, hasMore: true };

export interface WritableWidgetStores {
  $connection: WritableAtom<ConnectionState>;
  $ui: WritableAtom<UiState>;
  $config: WritableAtom<WidgetPublicConfig | null>;
  $user: WritableAtom<{ id: string; names: string | null } | null>;
  $language: WritableAtom<Language>;
  $rooms: WritableAtom<Room[]>;
  $currentRoomId: WritableAtom<string | null>;
  /** Messages by room id, each list ordered by sequence. */
  $messagesByRoom: WritableAtom<Record<string, Message[]>>;
  $historyByRoom: WritableAtom<Record<string, HistoryState>>;
  $contacts: WritableAtom<Contact[]>;
  $contactsLoading: WritableAtom<boolean>;
  $roomContacts: WritableAtom<Contact[]>;
  $roomContactsLoading: WritableAtom<boolean>;
  $unreadByRoom: WritableAtom<Record<string, number>>;
  $uploads: WritableAtom<UploadState[]>;
  $lastError: WritableAtom<LastError | null>;
  $serviceBusy: WritableAtom<boolean>;
  /** The user's conversation with the widget's bot (the session's botRoomId). */
  $botRoomId: WritableAtom<string | null>;
  /** The host showed the home menu (showHomeMenu): every room of the user can be opened from it. */
  $homeShown: WritableAtom<boolean>;
}

/** Read-only stores a host page may subscribe to. */
export interface HostStores {
  $connection: ReadableAtom<ConnectionState>;
  /** True while the chat panel is open. */
  $open: ReadableAtom<boolean>;
  $currentRoomId: ReadableAtom<string | null>;
  $rooms: ReadableAtom<Room[]>;
  $unreadByRoom: ReadableAtom<Record<string, number>>;
  $unreadTotal: ReadableAtom<number>;
}

export interface StoreSet {
  w: WritableWidgetStores;
  /** The read-only view handed to components (WidgetContext.stores). */
  read: WidgetStores;
  host: HostStores;
}

export function initialUi(): UiState {
  return { open: false, launcherDisabled: false, view: 'home', inputsDisabled: false };
}

export function createStores(language: Language = 'es'): StoreSet {
  const w: WritableWidgetStores = {
    $connection: atom<ConnectionState>('idle'),
    $ui: atom<UiState>(initialUi()),
    $config: atom<WidgetPublicConfig | null>(null),
    $user: atom<{ id: string; names: string | null } | null>(null),
    $language: atom<Language>(language),
    $rooms: atom<Room[]>([]),
    $currentRoomId: atom<string | null>(null),
    $messagesByRoom: atom<Record<string, Message[]>>({}),
    $historyByRoom: atom<Record<string, HistoryState>>({}),
    $contacts: atom<Contact[]>([]),
    $contactsLoading: atom(false),
    $roomContacts: atom<Contact[]>([]),
    $roomContactsLoading: atom(false),
    $unreadByRoom: atom<Record<string, number>>({}),
    $uploads: atom<UploadState[]>([]),
    $lastError: atom<LastError | null>(null),
    $serviceBusy: atom(false),
    $botRoomId: atom<string | null>(null),
    $homeShown: atom(false),
  };
  const $currentMessages = computed([w.$messagesByRoom, w.$currentRoomId], (byRoom, id) =>
    id === null ? NO_MESSAGES : (byRoom[id] ?? NO_MESSAGES),
  );
  const $currentHistory = computed([w.$historyByRoom, w.$currentRoomId], (byRoom, id) =>
    id === null ? DEFAULT_HISTORY : (byRoom[id] ?? DEFAULT_HISTORY),
  );
  const $unreadTotal = computed(w.$unreadByRoom, (byRoom) =>
    Object.values(byRoom).reduce((sum, n) => sum + (n > 0 ? n : 0), 0),
  );
  // A `normal` widget is its conversation with the bot: the rooms its user can open from it are
  // that one and the current room (a host's setCurrentRoom), every room once the host showed its
  // home menu. A `group` widget starts on the home menu. Rooms it cannot open count in the host's
  // $unreadTotal, not on its launcher.
  const $reachableRooms = computed(
    [w.$config, w.$botRoomId, w.$currentRoomId, w.$homeShown],
    (config, bot, current, home): ReachableRooms =>
      home || bot === null || config?.properties['type'] === 'group'
        ? 'all'
        : new Set(current === null ? [bot] : [bot, current]),
  );
  const $launcherUnread = computed([w.$unreadByRoom, $reachableRooms], (byRoom, rooms) =>
    Object.entries(byRoom).reduce(
      (sum, [id, n]) => sum + (n > 0 && (rooms === 'all' || rooms.has(id)) ? n : 0),
      0,
    ),
  );
  const $open = computed(w.$ui, (ui) => ui.open);

  // Components read every writable store but the per-room maps (they see the current room's
  // through computed stores), typed read-only (nanostores' readonlyType is the identity too).
  const {
    $messagesByRoom: _messages,
    $historyByRoom: _history,
    $botRoomId: _bot,
    $homeShown: _home,
    ...readable
  } = w;
  const read: WidgetStores = {
    ...readable,
    $currentMessages,
    $currentHistory,
    $unreadTotal,
    $reachableRooms,
    $launcherUnread,
  };
  const host: HostStores = {
    $connection: readOnly(read.$connection),
    $open: readOnly($open),
    $currentRoomId: readOnly(read.$currentRoomId),
    $rooms: readOnly(read.$rooms),
    $unreadByRoom: readOnly(read.$unreadByRoom),
    $unreadTotal: readOnly($unreadTotal),
  };
  return { w, read, host };
}

/**
 * A host's view of a store: the store itself (values, get, listen, subscribe) without set, so a
 * host cannot write what the widget shows and its other subscribers read (computed stores have a
 * set too). The store's methods close over the store, so they work from the view.
 */
function readOnly<T>(store: ReadableAtom<T>): ReadableAtom<T> {
  return Object.create(store, { set: {} }) as ReadableAtom<T>;
}

/** Patches the UI state; returns false when nothing changed. */
export function patchUi(store: WritableAtom<UiState>, patch: Partial<UiState>): boolean {
  const current = store.get();
  let changed = false;
  for (const k of Object.keys(patch) as (keyof UiState)[]) {
    if (current[k] !== patch[k]) changed = true;
  }
  if (changed) store.set({ ...current, ...patch });
  return changed;
}
