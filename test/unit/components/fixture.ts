/**
 * A test-only WidgetContext built from nanostores atoms, with actions that
 * record their calls. It stands in for the widget core at the component
 * boundary (src/widget/context.ts).
 */
import { atom } from 'nanostores';
import type { Contact, Message, Room, WidgetPublicConfig } from '../../../types/index.ts';
import type {
  HistoryState,
  LastError,
  ReachableRooms,
  UiState,
  UploadState,
  WidgetActions,
  WidgetContext,
} from '../../../src/widget/context.ts';

// happy-dom has no Element.assignedSlot; @lit-labs/virtualizer walks ancestors through it.
if (typeof Element !== 'undefined' && !('assignedSlot' in Element.prototype)) {
  Object.defineProperty(Element.prototype, 'assignedSlot', { get: () => null, configurable: true });
}

export type Call = { name: keyof WidgetActions; args: unknown[] };

export function makeContext(
  overrides: Partial<{ ui: Partial<UiState>; config: Partial<WidgetPublicConfig> }> = {},
) {
  const calls: Call[] = [];
  const s = {
    $connection: atom<'idle' | 'connecting' | 'connected' | 'reconnecting' | 'offline' | 'error'>(
      'connected',
    ),
    $ui: atom<UiState>({
      open: true,
      launcherDisabled: false,
      view: 'chat',
      inputsDisabled: false,
      ...overrides.ui,
    }),
    $config: atom<WidgetPublicConfig | null>({
      id: 'w1',
      properties: { type: 'normal' },
      theme: {},
      credentials: {},
      config: {},
      ...overrides.config,
    }),
    $user: atom<{ id: string; names: string | null } | null>({ id: 'me', names: 'Me' }),
    $language: atom<'es' | 'en'>('es'),
    $rooms: atom<Room[]>([]),
    $currentRoomId: atom<string | null>('r1'),
    $currentMessages: atom<Message[]>([]),
    $currentHistory: atom<HistoryState>({ loading: false, hasMore: false }),
    $contacts: atom<Contact[]>([]),
    $contactsLoading: atom(false),
    $roomContacts: atom<Contact[]>([]),
    $roomContactsLoading: atom(false),
    $unreadByRoom: atom<Record<string, number>>({}),
    $unreadTotal: atom(0),
    $reachableRooms: atom<ReachableRooms>('all'),
    $launcherUnread: atom(0),
    $uploads: atom<UploadState[]>([]),
    $lastError: atom<LastError | null>(null),
    $serviceBusy: atom(false),
  };
  const record =
    (name: keyof WidgetActions, result: unknown = undefined) =>
    (...args: unknown[]) => {
      calls.push({ name, args });
      return result;
    };
  const ok =
    (name: keyof WidgetActions, value: unknown = {}) =>
    (...args: unknown[]) => {
      calls.push({ name, args });
      return Promise.resolve(value);
    };
  const ui = (patch: Partial<UiState>) => s.$ui.set({ ...s.$ui.get(), ...patch });
  const actions: WidgetActions = {
    open: (...args: unknown[]) => {
      calls.push({ name: 'open', args });
      ui({ open: true, launcherDisabled: false });
    },
    close: (...args: unknown[]) => {
      calls.push({ name: 'close', args });
      ui({ open: false, launcherDisabled: args[0] === true });
    },
    showHomeMenu: () => {
      calls.push({ name: 'showHomeMenu', args: [] });
      ui({ view: 'home' });
    },
    hideHomeMenu: () => {
      calls.push({ name: 'hideHomeMenu', args: [] });
      ui({ view: 'chat' });
    },
    showRoomContacts: () => {
      calls.push({ name: 'showRoomContacts', args: [] });
      ui({ view: 'room-contacts' });
    },
    // Like the core's: the room becomes current and the chat shows.
    selectRoom: (roomId: string) => {
      calls.push({ name: 'selectRoom', args: [roomId] });
      s.$currentRoomId.set(roomId);
      ui({ view: 'chat' });
    },
    sendMessage: ok('sendMessage') as WidgetActions['sendMessage'],
    sendText: ok('sendText') as WidgetActions['sendText'],
    chooseOption: ok('chooseOption') as WidgetActions['chooseOption'],
    chooseQuickReply: ok('chooseQuickReply') as WidgetActions['chooseQuickReply'],
    submitContactInfo: ok('submitContactInfo') as WidgetActions['submitContactInfo'],
    sendFile: ok('sendFile') as WidgetActions['sendFile'],
    sendLocation: ok('sendLocation') as WidgetActions['sendLocation'],
    retry: ok('retry') as WidgetActions['retry'],
    reconnect: record('reconnect') as WidgetActions['reconnect'],
    loadOlder: ok('loadOlder', undefined) as WidgetActions['loadOlder'],
    markSeen: record('markSeen') as WidgetActions['markSeen'],
    // What arrives after a list shows is news unless a test says it came as history (the core's word).
    isNews: () => true,
    openRoomWithUser: ok('openRoomWithUser') as WidgetActions['openRoomWithUser'],
    addMember: ok('addMember', undefined) as WidgetActions['addMember'],
    refreshMediaUrl: ((url: string) => {
      calls.push({ name: 'refreshMediaUrl', args: [url] });
      return Promise.resolve(url.replace('expired', 'fresh'));
    }) as WidgetActions['refreshMediaUrl'],
    dismissError: () => {
      calls.push({ name: 'dismissError', args: [] });
      s.$lastError.set(null);
    },
    setLanguage: (language) => {
      calls.push({ name: 'setLanguage', args: [language] });
      s.$language.set(language);
    },
  };
  const context: WidgetContext = { stores: s, actions };
  const callsOf = (name: keyof WidgetActions) => calls.filter((c) => c.name === name);
  return { context, stores: s, calls, callsOf };
}

let seq = 0;
const BASE_TIME = Date.UTC(2026, 0, 15, 12, 0, 0);

/** A message of any type; base fields filled in. */
export function msg(fields: Record<string, unknown> & { type?: string } = {}): Message {
  seq += 1;
  const timestamp = (fields['timestamp'] as number | undefined) ?? BASE_TIME + seq * 1000;
  return {
    id: `m${seq}`,
    roomId: 'r1',
    senderId: 'bot1',
    createdAt: new Date(timestamp).toISOString(),
    timestamp,
    by: 'bot',
    status: 'DELIVERED',
    type: 'TEXT',
    text: `Mensaje ${seq}`,
    seq,
    ...fields,
  } as unknown as Message;
}

export function room(fields: Partial<Room> = {}): Room {
  return {
    unread: 0,
    id: 'r1',
    bot: { id: 'bot1', name: 'Asistente', type: 'bot' },
    type: 'bot',
    company: { id: 'c1', name: 'Acme' },
    channel: 'widget',
    deleted: false,
    members: ['me', 'bot1'],
    avatarUrl: null,
    createdAt: new Date(BASE_TIME).toISOString(),
    updatedAt: new Date(BASE_TIME).toISOString(),
    name: 'Asistente Acme',
    membersInfo: [],
    lastMessageAt: null,
    channelProvider: 'charla',
    ...fields,
  } as unknown as Room;
}

/** Waits for a Lit element (and its children) to finish rendering. */
export async function settle(el: Element, rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await (el as unknown as { updateComplete?: Promise<unknown> }).updateComplete;
    await new Promise((r) => setTimeout(r, 0));
  }
}

/** Every element in a tree of shadow roots matching a selector. */
export function deepQueryAll(root: ParentNode, selector: string): Element[] {
  const out: Element[] = [...root.querySelectorAll(selector)];
  for (const el of root.querySelectorAll('*')) {
    if (el.shadowRoot) out.push(...deepQueryAll(el.shadowRoot, selector));
  }
  return out;
}

/** What the service's POST /v1/widget/session answers in the unit tests' stand-ins for it. */
export function sessionJson(
  user: { id: string; names: string | null } = { id: 'u1', names: null },
  theme: Record<string, unknown> = {},
) {
  return {
    token: 'tok-1',
    expiresAt: '2099-01-01T00:00:00Z',
    user,
    widget: { id: 'w1', properties: {}, theme, credentials: {}, config: {} },
    bot: { id: 'b1' },
    botRoomId: 'bot-room',
    company: { id: 'c', name: 'C' },
  };
}

/** A direct room of users u1 and u2, named after its id, as the facade tests' service lists it. */
export function directRoom(id: string): Room {
  return room({
    id,
    bot: null,
    type: 'direct',
    company: { id: 'c', name: 'C' },
    channel: 'web',
    members: ['u1', 'u2'],
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    name: id,
  } as Partial<Room>);
}
