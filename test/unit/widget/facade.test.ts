/**
 * The facade in happy-dom: the element, the DOM events, every method of the
 * interface's table. REST answers come from a stand-in for the network (a
 * fetch given through the options); the socket never connects here (the
 * service tests cover the live side).
 */
import { randomUUID } from 'node:crypto';
import { computed } from 'nanostores';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { errorBody } from '../../../types/errors.ts';
import type { Message, Room } from '../../../types/index.ts';
import { createWidget, widgets } from '../../../src/widget/create-widget.ts';
import type { SendableMessage, WidgetInstance } from '../../../src/widget/instance.ts';
import { CharlaError } from '../../../src/transport/errors.ts';
import { MEDIA_URL_MAX } from '../../../types/limits.ts';
import { ROUTES } from '../../../types/routes.ts';
import type { CharlaMessage } from '../../../src/components/message/message.ts';
import { directRoom, msg, sessionJson, settle } from '../components/fixture.ts';
import { rawMessage } from '../../raw-message.ts';
import { HttpsUrl } from '../../../types/schemas/common.ts';
import {
  CharlaCloseEvent,
  CharlaOpenEvent,
  type CloseDetail,
  type ErrorDetail,
} from '../../../src/events/index.ts';

const BASE = 'http://localhost:9';
const made: WidgetInstance[] = [];
afterEach(() => {
  for (const w of made.splice(0)) w.destroy();
  document.body.replaceChildren();
});

const room = directRoom;

interface Call {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  auth: string | undefined;
}

/** A stand-in for the service's HTTP answers (the network, not our code). */
function service(routes: Record<string, (call: Call) => [number, unknown]> = {}) {
  const calls: Call[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const headers = (init.headers ?? {}) as Record<string, string>;
    const call: Call = {
      method: init.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
      auth: headers['authorization'],
    };
    calls.push(call);
    const key = `${call.method} ${call.path}`;
    if (key === 'POST /v1/widget/session') {
      const b = call.body as { userId: string; userNames?: string };
      return Response.json(sessionJson({ id: b.userId, names: b.userNames ?? null }, { position: 'bl' }));
    }
    const handler = routes[key];
    if (!handler) return Response.json(errorBody('NOT_FOUND'), { status: 404 });
    const [status, body] = handler(call);
    return Response.json(body, { status });
  }) as typeof fetch;
  return { fetchFn, calls, api: () => calls.filter((c) => c.path !== '/v1/widget/session') };
}

function widget(fetchFn: typeof fetch, extra: Record<string, unknown> = {}): WidgetInstance {
  const w = createWidget({
    apiKey: 'key-0123456789abcdef',
    baseUrl: BASE,
    userId: 'u1',
    fetch: fetchFn,
    namespace: `ns-${randomUUID()}`,
    reconnectionDelay: 60_000,
    ...extra,
  });
  made.push(w);
  return w;
}

const ok = { message: ['done'], status: true, statusMessage: 'success' };

/** The `error` events a widget emits from now on. */
function heardErrors(w: WidgetInstance): ErrorDetail[] {
  const heard: ErrorDetail[] = [];
  w.on('error', (d) => heard.push(d));
  return heard;
}

async function rejection(p: Promise<unknown>): Promise<CharlaError> {
  const e = await p.then(
    () => new Error('resolved'),
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CharlaError);
  return e as CharlaError;
}

describe('createWidget', () => {
  it('appends <charla-widget> with its context to document.body and lists the instance', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const el = document.body.querySelector('charla-widget') as HTMLElement & { context?: unknown };
    expect(el).not.toBeNull();
    expect(el.context).toBe(w.context);
    expect(w.element).toBe(el);
    expect(widgets()).toContain(w);
  });

  it('uses the given container, or none when container is null', () => {
    const { fetchFn } = service();
    const box = document.createElement('section');
    document.body.append(box);
    widget(fetchFn, { container: box });
    expect(box.querySelector('charla-widget')).not.toBeNull();
    const headless = widget(fetchFn, { container: null });
    expect(headless.element).toBeNull();
  });

  it('destroy removes the element, the listeners and the instance from the list', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    let opens = 0;
    w.on('open', () => opens++);
    w.destroy();
    expect(document.body.querySelector('charla-widget')).toBeNull();
    expect(widgets()).not.toContain(w);
    w.open();
    expect(opens).toBe(0);
    // Not connected, not trying: idle (offline is the browser's no-network).
    expect(w.stores.$connection.get()).toBe('idle');
  });

  it('refuses a container that is not an element, naming it, and makes nothing', () => {
    const { fetchFn } = service();
    const before = widgets().length;
    for (const container of ['x', 42, {}]) {
      let error: unknown;
      try {
        widget(fetchFn, { container });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CharlaError);
      expect((error as CharlaError).key).toBe('VALIDATION_ERROR');
      expect((error as CharlaError).body.validationError['container']).toMatch(/Element/);
    }
    expect(widgets()).toHaveLength(before);
    expect(document.body.querySelector('charla-widget')).toBeNull();
  });

  it('refuses a missing apiKey or an unsafe baseUrl at once', () => {
    expect(() => createWidget({ apiKey: '' })).toThrow(CharlaError);
    expect(() => createWidget({ apiKey: 'k', baseUrl: 'http://evil.example' })).toThrow(/baseUrl/);
    expect(() => createWidget({ apiKey: 'k', baseUrl: 'javascript:alert(1)' })).toThrow(CharlaError);
  });

  it('refuses connection options that could never connect, naming the field, and makes nothing', () => {
    const before = widgets().length;
    const bad: [string, Record<string, unknown>][] = [
      ['transports', { transports: [] }],
      ['transports', { transports: ['webtransport'] }],
      ['transports', { transports: 'websocket' }],
      ['requestTimeoutMs', { requestTimeoutMs: -1 }],
      ['requestTimeoutMs', { requestTimeoutMs: Number.NaN }],
      ['ackTimeoutMs', { ackTimeoutMs: 0 }],
      ['reconnectionDelay', { reconnectionDelay: '50' }],
      ['reconnectionDelayMax', { reconnectionDelayMax: Infinity }],
      ['outboxStorage', { outboxStorage: 'redis' }],
      ['outboxStorage', { outboxStorage: {} }],
      ['namespace', { namespace: '' }],
      ['fetch', { fetch: 'fetch' }],
    ];
    for (const [field, extra] of bad) {
      let thrown: unknown;
      try {
        createWidget({ apiKey: 'k', baseUrl: BASE, container: null, ...extra });
      } catch (e) {
        thrown = e;
      }
      expect(thrown, JSON.stringify(extra)).toBeInstanceOf(CharlaError);
      expect((thrown as CharlaError).key).toBe('VALIDATION_ERROR');
      expect(Object.keys((thrown as CharlaError).body.validationError), JSON.stringify(extra)).toEqual([
        field,
      ]);
    }
    expect(widgets()).toHaveLength(before);
    // What the types allow, and a language tag (en-GB counts as en).
    const fine = createWidget({
      apiKey: 'k',
      baseUrl: BASE,
      container: null,
      transports: ['polling', 'websocket'],
      requestTimeoutMs: 5_000,
      outboxStorage: 'memory',
      language: 'en-GB',
    });
    made.push(fine);
    expect(fine.core.stores.read.$language.get()).toBe('en');
  });

  it('after destroy(), a void method given anything does nothing and says nothing', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const errors = heardErrors(w);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    onTestFinished(() => warn.mockRestore());
    w.destroy();
    w.setContacts('x' as never);
    w.addContact(null as never);
    w.setCurrentRoom('');
    w.on('nope' as never, null as never);
    expect(warn).not.toHaveBeenCalled();
    expect(errors).toEqual([]);
  });

  it('destroyed while connect() waits for the session: rejects DESTROYED and warns of nothing', async () => {
    // A session request the network holds until it is aborted (an app unmounting at once, StrictMode).
    const hanging = ((_input: RequestInfo | URL, init: RequestInit = {}) =>
      new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      })) as typeof fetch;
    const w = widget(hanging);
    const errors = heardErrors(w);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    onTestFinished(() => warn.mockRestore());
    const pending = w.connect();
    await Promise.resolve();
    w.destroy();
    expect((await rejection(pending)).key).toBe('DESTROYED');
    expect(warn).not.toHaveBeenCalled();
    expect(errors).toEqual([]);
  });

  it('makes and keeps a user id per API key when none is given', () => {
    const { fetchFn } = service();
    const one = createWidget({ apiKey: 'key-same', baseUrl: BASE, fetch: fetchFn, container: null });
    const two = createWidget({ apiKey: 'key-same', baseUrl: BASE, fetch: fetchFn, container: null });
    const other = createWidget({ apiKey: 'key-other', baseUrl: BASE, fetch: fetchFn, container: null });
    made.push(one, two, other);
    expect(one.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(two.userId).toBe(one.userId);
    expect(other.userId).not.toBe(one.userId);
  });

  it('runs two widgets side by side with separate stores', () => {
    const { fetchFn } = service();
    const a = widget(fetchFn);
    const b = widget(fetchFn);
    a.open();
    a.setContacts([{ id: 1 }]);
    expect(b.context.stores.$ui.get().open).toBe(false);
    expect(b.context.stores.$contacts.get()).toEqual([]);
    expect(document.body.querySelectorAll('charla-widget')).toHaveLength(2);
  });
});

describe('events', () => {
  it('calls on() handlers and dispatches bubbling, composed DOM events on the element', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const facade: string[] = [];
    const dom: Event[] = [];
    const onOpen = () => facade.push('open');
    w.on('open', onOpen);
    w.on('close', (d: CloseDetail) => facade.push(`close:${d.disabled}`));
    document.addEventListener('charla-open', (e) => dom.push(e));
    document.addEventListener('charla-close', (e) => dom.push(e));
    w.open();
    w.close(true);
    expect(facade).toEqual(['open', 'close:true']);
    expect(dom[0]).toBeInstanceOf(CharlaOpenEvent);
    expect(dom[1]).toBeInstanceOf(CharlaCloseEvent);
    expect(dom.every((e) => e.bubbles && e.composed)).toBe(true);
    expect((dom[1] as CharlaCloseEvent).detail).toEqual({ disabled: true });
    w.off('open', onOpen);
    w.open();
    expect(facade.filter((x) => x === 'open')).toHaveLength(1);
  });

  it('close(true) on a closed panel still says the launcher is now disabled, once', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const heard: boolean[] = [];
    w.on('close', (d: CloseDetail) => heard.push(d.disabled));
    w.close();
    expect(heard).toEqual([]);
    w.close(true);
    expect(w.context.stores.$ui.get().launcherDisabled).toBe(true);
    expect(heard).toEqual([true]);
    // Already disabled and closed: nothing new to say.
    w.close(true);
    w.close();
    expect(heard).toEqual([true]);
  });

  it('refuses an unknown event name or a handler that is not a function through the error event, and stays chainable', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const errors = heardErrors(w);
    expect(w.on('nope' as 'open', () => {})).toBe(w);
    expect((w.on as (n: string) => unknown)('message')).toBe(w);
    expect(w.off('nope' as 'open', () => {})).toBe(w);
    expect(errors.map((d) => [d.operation, d.error.key, Object.keys(d.error.body.validationError)])).toEqual([
      ['on', 'VALIDATION_ERROR', ['name']],
      ['on', 'VALIDATION_ERROR', ['handler']],
      ['off', 'VALIDATION_ERROR', ['name']],
    ]);
    expect(errors[0]?.error.message).toMatch(/^on: unknown event nope/);
    expect(errors[1]?.error.message).toBe('on: handler must be a function');
  });
});

describe('void methods given a bad argument', () => {
  it('never throw: they change nothing and the error event names the method and the field', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    onTestFinished(() => warn.mockRestore());
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.core.upsertRoom(room('r1'));
    w.setCurrentRoom('r1');
    w.setContacts([{ id: 1, names: 'Ana' }]);
    w.setContactsForRoom([{ id: 'c1' }]);
    const errors = heardErrors(w);
    const dom: Event[] = [];
    document.addEventListener('charla-error', (e) => dom.push(e));
    const any = w as unknown as Record<string, (...a: unknown[]) => unknown>;
    const calls: [string, unknown[], string][] = [
      ['setCurrentRoom', [''], 'roomId'],
      ['setCurrentRoom', [], 'roomId'],
      ['setCurrentRoom', [5], 'roomId'],
      ['close', ['yes'], 'disable'],
      ['setContacts', ['nope'], 'contacts'],
      ['setContacts', [undefined], 'contacts'],
      ['setContacts', [[null]], 'contacts[0]'],
      ['setContacts', [[{ id: undefined }]], 'contacts[0].id'],
      ['addContact', [], 'contact'],
      ['addContact', [null], 'contact'],
      ['addContacts', [null], 'contacts'],
      ['setContactsForRoom', ['x'], 'contacts'],
      ['addRoomContacts', [undefined], 'contacts'],
      ['addRoomContact', [null], 'contact'],
    ];
    for (const [method, args] of calls) expect(() => any[method]?.(...args), method).not.toThrow();
    expect(errors.map((d) => d.operation)).toEqual(calls.map(([method]) => method));
    for (const [i, [method, , field]] of calls.entries()) {
      const e = errors[i]?.error;
      expect(e).toBeInstanceOf(CharlaError);
      expect(e?.key).toBe('VALIDATION_ERROR');
      expect(e?.code).toBe('E0400');
      expect(e?.message.startsWith(`${method}: ${field} must be`), e?.message).toBe(true);
      expect(Object.keys(e?.body.validationError ?? {})).toEqual([field]);
    }
    // The same errors reach the page as charla-error events, and the developer's console, listener or not.
    expect(dom).toHaveLength(calls.length);
    expect(warn.mock.calls).toEqual(errors.map((d) => [`Charla: ${d.error.message}`]));
    // Nothing changed.
    expect(w.stores.$currentRoomId.get()).toBe('r1');
    expect(w.context.stores.$ui.get()).toMatchObject({ open: false, launcherDisabled: false });
    expect(w.context.stores.$contacts.get()).toEqual([{ id: 1, names: 'Ana' }]);
    expect(w.context.stores.$roomContacts.get()).toEqual([{ id: 'c1' }]);
    // And the widget goes on working.
    w.addContact({ id: 2 });
    expect(w.context.stores.$contacts.get()).toHaveLength(2);
  });
});

describe('stores for the host', () => {
  it('cannot be written by the host, and follow the widget', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const names = ['$connection', '$open', '$currentRoomId', '$rooms', '$unreadByRoom', '$unreadTotal'];
    expect(Object.keys(w.stores).sort()).toEqual(names.sort());
    for (const [name, store] of Object.entries(w.stores))
      expect((store as { set?: unknown }).set, `${name}.set`).toBeUndefined();
    // @ts-expect-error: the host's stores have no set
    expect(() => w.stores.$open.set(false)).toThrow(TypeError);

    const open: boolean[] = [];
    const off = w.stores.$open.subscribe((v) => open.push(v));
    const totals: number[] = [];
    w.stores.$unreadTotal.listen((n) => totals.push(n));
    w.open();
    w.close();
    w.core.stores.w.$unreadByRoom.set({ r1: 2, r2: 1 });
    w.core.stores.w.$connection.set('offline');
    expect(open).toEqual([false, true, false]);
    expect(totals).toEqual([3]);
    expect(w.stores.$unreadTotal.get()).toBe(3);
    expect(w.stores.$unreadByRoom.get()).toEqual({ r1: 2, r2: 1 });
    expect(w.stores.$connection.get()).toBe('offline');
    off();
    // Still nanostores: a host's computed store follows them.
    const anyUnread = computed(w.stores.$unreadTotal, (n) => n > 0);
    const seen: boolean[] = [];
    anyUnread.subscribe((v) => seen.push(v));
    w.core.stores.w.$unreadByRoom.set({});
    expect(seen).toEqual([true, false]);
  });
});

describe('widgetInstance UI methods', () => {
  it('open enables the launcher; close(disable) disables it; enable turns it back on', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const ui = () => w.context.stores.$ui.get();
    w.close(true);
    expect(ui()).toMatchObject({ open: false, launcherDisabled: true });
    w.enable();
    expect(ui().launcherDisabled).toBe(false);
    w.close(true);
    w.open();
    expect(ui()).toMatchObject({ open: true, launcherDisabled: false });
    expect(w.stores.$open.get()).toBe(true);
    w.close();
    expect(ui()).toMatchObject({ open: false, launcherDisabled: false });
  });

  it('hideHomeMenu / showHomeMenu switch views, no change when already there', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const before = w.context.stores.$ui.get();
    w.showHomeMenu();
    expect(w.context.stores.$ui.get()).toBe(before);
    w.hideHomeMenu();
    expect(w.context.stores.$ui.get().view).toBe('chat');
    w.showHomeMenu();
    expect(w.context.stores.$ui.get().view).toBe('home');
  });

  it('setContacts / addContacts / addContact manage the contact list, one entry per id', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.setContacts([{ id: 1, names: 'Ana' }, { id: 2 }]);
    w.addContacts([
      { id: 3, avatar: 'https://x.test/a.png' },
      { id: 1, names: 'Ana María' },
    ]);
    w.addContact({ id: 'z', color: '#f00', type: 'agent' });
    expect(w.context.stores.$contacts.get()).toEqual([
      { id: 1, names: 'Ana María' },
      { id: 2 },
      { id: 3, avatar: 'https://x.test/a.png' },
      { id: 'z', color: '#f00', type: 'agent' },
    ]);
  });

  it('startLoading / stopLoading flag the contact list', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.startLoading();
    expect(w.context.stores.$contactsLoading.get()).toBe(true);
    w.stopLoading();
    expect(w.context.stores.$contactsLoading.get()).toBe(false);
  });

  it('setContactsForRoom / addRoomContacts / addRoomContact manage room contacts', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.setContactsForRoom([{ id: 'a' }]);
    w.addRoomContacts([{ id: 'b' }]);
    w.addRoomContact({ id: 'a', names: 'A' });
    expect(w.context.stores.$roomContacts.get()).toEqual([{ id: 'a', names: 'A' }, { id: 'b' }]);
    expect(w.context.stores.$contacts.get()).toEqual([]);
  });

  it('startLoadingForRoom / stopLoadingForRoom flag the room contact list', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.startLoadingForRoom();
    expect(w.context.stores.$roomContactsLoading.get()).toBe(true);
    w.stopLoadingForRoom();
    expect(w.context.stores.$roomContactsLoading.get()).toBe(false);
  });

  it('disableInputs / enableInputs', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.disableInputs();
    expect(w.context.stores.$ui.get().inputsDisabled).toBe(true);
    w.enableInputs();
    expect(w.context.stores.$ui.get().inputsDisabled).toBe(false);
  });

  it('setCurrentRoom makes a room of the user current and shows the chat', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.core.upsertRoom(room('room-9'));
    w.setCurrentRoom('room-9');
    expect(w.stores.$currentRoomId.get()).toBe('room-9');
    expect(w.context.stores.$ui.get().view).toBe('chat');
  });

  it('setCurrentRoom leaves a room the service does not confirm alone: same room, an error event', async () => {
    const { fetchFn, api } = service({
      'GET /v1/widget/rooms/mine': () => [200, room('mine')],
      'GET /v1/widget/rooms/later': () => [200, room('later')],
      'GET /v1/widget/rooms/not-mine': () => [403, errorBody('NOT_A_MEMBER')],
    });
    const w = widget(fetchFn);
    w.core.upsertRoom(room('r1'));
    w.setCurrentRoom('r1');
    const errors: string[] = [];
    w.on('error', (d) => errors.push(`${d.operation}:${d.error.key}`));
    w.setCurrentRoom('not-mine');
    await vi.waitFor(() => expect(errors).toEqual(['setCurrentRoom:NOT_A_MEMBER']));
    expect(w.stores.$currentRoomId.get()).toBe('r1');
    // A room of the user's the store does not know yet: confirmed by the service (as getRoom), then current.
    w.setCurrentRoom('mine');
    await vi.waitFor(() => expect(w.stores.$currentRoomId.get()).toBe('mine'));
    expect(w.stores.$rooms.get().map((r) => r.id)).toContain('mine');
    expect(api().map((c) => c.path)).toEqual([
      '/v1/widget/rooms/not-mine',
      '/v1/widget/rooms/mine',
      // Made current: its latest page loads.
      '/v1/widget/rooms/mine/messages',
    ]);
    // The later choice wins over one still being checked.
    w.setCurrentRoom('later');
    w.setCurrentRoom('r1');
    await vi.waitFor(() => expect(w.stores.$rooms.get().map((r) => r.id)).toContain('later'));
    await new Promise((r) => setTimeout(r, 0));
    expect(w.stores.$currentRoomId.get()).toBe('r1');
    expect(errors).toHaveLength(1);
  });
});

describe('widgetInstance service methods', () => {
  it('opens a session with the API key, then calls with the bearer token', async () => {
    const { fetchFn, calls } = service({ 'GET /v1/widget/rooms/r1': () => [200, room('r1')] });
    const w = widget(fetchFn, { userNames: 'Ana' });
    const r = await w.getRoom('r1');
    expect(r.id).toBe('r1');
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/v1/widget/session', auth: undefined });
    expect(calls[0]?.body).toMatchObject({ apiKey: 'key-0123456789abcdef', userId: 'u1', userNames: 'Ana' });
    expect(calls[1]).toMatchObject({ method: 'GET', path: '/v1/widget/rooms/r1', auth: 'Bearer tok-1' });
    expect(w.context.stores.$config.get()?.theme).toEqual({ position: 'bl' });
    expect(w.stores.$rooms.get().map((x) => x.id)).toEqual(['r1']);
    expect(w.stores.$currentRoomId.get()).toBe('bot-room');
  });

  it('getMembers returns the members list', async () => {
    const member = {
      id: 'm1',
      referenceId: 'u2',
      roomId: 'r1',
      botId: null,
      companyId: 'c',
      socketId: null,
      createdAt: 'x',
      memberType: 'Client',
    };
    const { fetchFn } = service({ 'GET /v1/widget/rooms/r1/members': () => [200, { members: [member] }] });
    const w = widget(fetchFn);
    expect(await w.getMembers('r1')).toEqual([member]);
  });

  it('joinRoom and leaveRoom post the user id and answer ApiResponse', async () => {
    const { fetchFn, api } = service({
      'POST /v1/widget/rooms/r1/join': () => [200, ok],
      'POST /v1/widget/rooms/r1/leave': () => [200, ok],
    });
    const w = widget(fetchFn);
    expect(await w.joinRoom('r1', 'u7')).toEqual(ok);
    expect(await w.leaveRoom('r1', 'u7')).toEqual(ok);
    expect(api().map((c) => [c.path, c.body])).toEqual([
      ['/v1/widget/rooms/r1/join', { userId: 'u7' }],
      ['/v1/widget/rooms/r1/leave', { userId: 'u7' }],
    ]);
  });

  it('openRoomWithUser says a user id is too long, as addMember and joinRoom do', async () => {
    const { fetchFn, calls } = service();
    const w = widget(fetchFn);
    const e = await rejection(w.openRoomWithUser({ id: 'u'.repeat(201), names: 'Largo' }));
    expect(e.key).toBe('VALIDATION_ERROR');
    expect(e.message).toMatch(/at most 200 characters/);
    expect((await rejection(w.openRoomWithUser({ id: '' } as never))).message).toMatch(/non-empty string/);
    expect(calls).toHaveLength(0);
  });

  it('openRoomWithUser posts {id, names}, keeps the room and makes it current', async () => {
    const { fetchFn, api } = service({ 'POST /v1/widget/rooms/direct': () => [200, room('d1')] });
    const w = widget(fetchFn);
    const r = await w.openRoomWithUser({ id: 'u2', names: 'Beto' });
    expect(r.id).toBe('d1');
    expect(api()[0]?.body).toEqual({ id: 'u2', names: 'Beto' });
    expect(w.stores.$currentRoomId.get()).toBe('d1');
    expect(w.stores.$rooms.get().map((x) => x.id)).toContain('d1');
  });

  it('addMember takes a contact or an id; addMembers defaults memberType to Client', async () => {
    const { fetchFn, api } = service({
      'POST /v1/widget/rooms/r1/members': () => [200, ok],
      'POST /v1/widget/rooms/r1/members/bulk': () => [200, ok],
    });
    const w = widget(fetchFn);
    await w.addMember({ id: 'c1', names: 'Carla' }, 'r1');
    await w.addMember('c2', 'r1');
    await w.addMembers('r1', [
      { referenceId: 'd1', names: 'Dani' },
      { referenceId: 'd2', memberType: 'Charla' },
    ]);
    expect(api().map((c) => c.body)).toEqual([
      { member: { id: 'c1', names: 'Carla' } },
      { member: 'c2' },
      {
        members: [
          { referenceId: 'd1', names: 'Dani', memberType: 'Client' },
          { referenceId: 'd2', memberType: 'Charla' },
        ],
      },
    ]);
    expect(
      (await rejection(w.addMembers('r1', [{ referenceId: 'x', memberType: 'Boss' as 'Client' }]))).key,
    ).toBe('VALIDATION_ERROR');
    expect((await rejection(w.addMember('c3', ''))).key).toBe('VALIDATION_ERROR');
    expect(api()).toHaveLength(3);
  });

  it('getMessages defaults limit to 20 and id to null, and keeps the page in the store', async () => {
    const page: Message[] = [1, 2].map(
      (n) =>
        ({
          id: `m${n}`,
          roomId: 'r1',
          senderId: 'u2',
          createdAt: 'x',
          timestamp: n,
          by: 'user',
          type: 'TEXT',
          status: 'DELIVERED',
          text: `t${n}`,
          seq: n,
        }) as Message,
    );
    const { fetchFn, api } = service({ 'GET /v1/widget/rooms/r1/messages': () => [200, { messages: page }] });
    const w = widget(fetchFn);
    expect(await w.getMessages({ roomId: 'r1' })).toEqual(page);
    await w.getMessages({ roomId: 'r1', limit: 5, id: 'm9' });
    await w.getMessages({ roomId: 'r1', id: 42 });
    expect(api().map((c) => c.query)).toEqual([
      { limit: '20' },
      { limit: '5', id: 'm9' },
      { limit: '20', id: '42' },
    ]);
    w.core.upsertRoom(room('r1'));
    w.setCurrentRoom('r1');
    expect(w.context.stores.$currentMessages.get().map((m) => m.id)).toEqual(['m1', 'm2']);
    expect((await rejection(w.getMessages({ roomId: 'r1', limit: 1000 }))).key).toBe('VALIDATION_ERROR');
    expect((await rejection(w.getMessages({ roomId: 'r1', limit: 101 }))).key).toBe('VALIDATION_ERROR');
    await w.getMessages({ roomId: 'r1', limit: 100 });
    expect(api().at(-1)?.query).toMatchObject({ limit: '100' });
    expect((await rejection(w.getMessages({} as never))).key).toBe('VALIDATION_ERROR');
    // null is no limit: refused as the service would, not read as the default.
    const nullLimit = await rejection(w.getMessages({ roomId: 'r1', limit: null as never }));
    expect(nullLimit.key).toBe('VALIDATION_ERROR');
    expect(Object.keys(nullLimit.body.validationError)).toEqual(['limit']);
  });

  it('setFlow posts storedParams to the flow', async () => {
    const { fetchFn, api } = service({
      'POST /v1/widget/flows/onboarding': () => [200, { ...ok, flowId: 'onboarding' }],
    });
    const w = widget(fetchFn);
    expect(await w.setFlow('onboarding', { plan: 'pro' })).toMatchObject({ flowId: 'onboarding' });
    await w.setFlow('onboarding');
    expect(api().map((c) => c.body)).toEqual([{ storedParams: { plan: 'pro' } }, {}]);
  });

  it('rejects with the service error body', async () => {
    const { fetchFn } = service({ 'GET /v1/widget/rooms/r1': () => [403, errorBody('NOT_A_MEMBER')] });
    const w = widget(fetchFn);
    const e = await rejection(w.getRoom('r1'));
    expect(e.httpStatus).toBe(403);
    expect(e.code).toBe('E0432');
    expect(e.body.error.key).toBe('NOT_A_MEMBER');
  });

  it('reports a refused session through the error event and rejects connect()', async () => {
    const fetchFn = (async () => Response.json(errorBody('UNAUTHORIZED'), { status: 401 })) as typeof fetch;
    const w = widget(fetchFn);
    const errors: string[] = [];
    w.on('error', (d) => errors.push(`${d.operation}:${d.error.key}`));
    const e = await rejection(w.connect());
    expect(e.key).toBe('UNAUTHORIZED');
    expect(errors).toEqual(['connect:UNAUTHORIZED']);
    expect(w.stores.$connection.get()).toBe('error');
  });
});

describe('media refresh', () => {
  /** A <charla-message> of the visitor's own IMAGE, wired to the widget's real actions. */
  async function ownImage(w: WidgetInstance, mediaUrl: string): Promise<CharlaMessage> {
    const el = document.createElement('charla-message') as CharlaMessage;
    el.message = msg({ type: 'IMAGE', mediaUrl, senderId: 'u1' });
    el.own = true;
    el.actions = w.context.actions;
    document.body.append(el);
    await settle(el);
    return el;
  }
  const refreshes = (calls: Call[]) => calls.filter((c) => c.path === '/v1/widget/assets/refresh');

  it("asks the service to sign again only its own media; another site's image that fails shows unavailable, with no request", async () => {
    // The service's media path, as the contract names it (ROUTES.media is `/v1/media/*`).
    const media = `${BASE}${ROUTES.media.replace('*', 'u/a.png')}`;
    const fresh = `${media}?kid=k1&exp=9999999999&sig=new`;
    const { fetchFn, calls } = service({
      'POST /v1/widget/assets/refresh': () => [200, { signedUrl: fresh }],
    });
    const w = widget(fetchFn);
    const foreign = await ownImage(w, 'https://evil.example/a.png');
    foreign.querySelector('img')?.dispatchEvent(new Event('error'));
    await settle(foreign);
    await new Promise((r) => setTimeout(r, 20));
    expect(refreshes(calls)).toEqual([]);
    expect(foreign.querySelector('img')).toBeNull();
    expect(foreign.textContent).toContain('Archivo no disponible');
    // Another site's address that has only the media path, or only (part of) the signature, is not sent either.
    const unsigned = await ownImage(w, 'https://evil.example/v1/media/a.png?exp=1');
    unsigned.querySelector('img')?.dispatchEvent(new Event('error'));
    w.core.stores.w.$messagesByRoom.set({
      'bot-room': [
        msg({ type: 'IMAGE', mediaUrl: 'https://evil.example/a.png?kid=k1&exp=1&sig=x' }),
        msg({ type: 'IMAGE', mediaUrl: 'https://evil.example/v1/media/a.png?exp=1&sig=x' }),
      ],
    });
    w.core.refreshExpiredMedia('bot-room');
    await settle(unsigned);
    await new Promise((r) => setTimeout(r, 20));
    expect(refreshes(calls)).toEqual([]);
    expect(unsigned.textContent).toContain('Archivo no disponible');
    // The service's own media is signed again and swapped in.
    const expired = `${media}?kid=k1&exp=1&sig=old`;
    const own = await ownImage(w, expired);
    own.querySelector('img')?.dispatchEvent(new Event('error'));
    await vi.waitFor(() => expect(own.querySelector('img')?.getAttribute('src')).toBe(fresh));
    expect(refreshes(calls).map((c) => c.body)).toEqual([{ resourceUrl: expired }]);
  });

  it("asks about the service's media signed under another of its names (127.0.0.1 for a widget on localhost, its public URL)", async () => {
    const path = ROUTES.media.replace('*', 'bot/pic.png');
    const listen = `http://127.0.0.1:9${path}?kid=k1&exp=1&sig=old`;
    const fresh = `http://127.0.0.1:9${path}?kid=k1&exp=9999999999&sig=new`;
    const { fetchFn, calls } = service({
      'POST /v1/widget/assets/refresh': () => [200, { signedUrl: fresh }],
    });
    const w = widget(fetchFn);
    w.core.stores.w.$messagesByRoom.set({ 'bot-room': [msg({ type: 'IMAGE', mediaUrl: listen })] });
    w.core.refreshExpiredMedia('bot-room');
    await vi.waitFor(() =>
      expect(w.core.stores.w.$messagesByRoom.get()['bot-room']?.[0]).toMatchObject({ mediaUrl: fresh }),
    );
    // Not expired but failing (a rotated key), under the public name: asked about too.
    const publicName = `https://chat.example.com${path}?kid=k0&exp=9999999999&sig=s`;
    const failed = await ownImage(w, publicName);
    failed.querySelector('img')?.dispatchEvent(new Event('error'));
    await vi.waitFor(() => expect(refreshes(calls)).toHaveLength(2));
    expect(refreshes(calls).map((c) => c.body)).toEqual([
      { resourceUrl: listen },
      { resourceUrl: publicName },
    ]);
  });
});

describe('messages from the network', () => {
  it('keeps a malformed one as a placeholder and a null one not at all: the room, its events and its list go on', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const heard: Message[] = [];
    w.on('message', (d) => heard.push(d.message));
    const one = (id: string, extra: Record<string, unknown>) => rawMessage(id, 'r1', extra);
    expect(() =>
      w.core.handleIncoming([
        null,
        one('bad-text', { type: 'TEXT', text: 12345 }),
        one('bad-options', { type: 'TEXT', text: 'x', options: [null] }),
        one('fine', { type: 'TEXT', text: 'sigue' }),
      ] as never),
    ).not.toThrow();
    expect(heard.map((m) => [m.id, m.type])).toEqual([
      ['bad-text', 'UNSUPPORTED'],
      ['bad-options', 'UNSUPPORTED'],
      ['fine', 'TEXT'],
    ]);
    expect(w.core.findMessage('fine')).toMatchObject({ type: 'TEXT', text: 'sigue' });
    expect(w.core.findMessage('bad-text')).not.toHaveProperty('text');
  });
});

describe('a hidden page and a connection that comes back', () => {
  it('counts what arrives while the page is hidden as unread, and reads it when the page shows again', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.core.stores.w.$currentRoomId.set('r1');
    w.open();
    w.hideHomeMenu();
    const hide = (hidden: boolean) => {
      Object.defineProperty(document, 'visibilityState', {
        configurable: true,
        get: () => (hidden ? 'hidden' : 'visible'),
      });
      document.dispatchEvent(new Event('visibilitychange'));
    };
    try {
      hide(true);
      w.core.handleIncoming([rawMessage('while-hidden', 'r1', { type: 'TEXT', text: 'hola' })] as never);
      // Another tab, the phone's home screen: nobody saw it, so the badge (and the other tabs) say so.
      expect(w.stores.$unreadTotal.get()).toBe(1);
      hide(false);
      expect(w.stores.$unreadTotal.get()).toBe(0);
    } finally {
      delete (document as { visibilityState?: unknown }).visibilityState;
    }
  });

  it('counts what arrives unread while the widget is out of the page or hidden with its container, and reads it once back', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.core.stores.w.$currentRoomId.set('r1');
    w.open();
    w.hideHomeMenu();
    const el = w.element as HTMLElement;
    // A route kept alive takes the widget out of the page without destroy() (or hides its container).
    el.remove();
    w.core.shownChanged();
    w.core.handleIncoming([rawMessage('while-away', 'r1', { type: 'TEXT', text: 'hola' })] as never);
    expect(w.stores.$unreadTotal.get()).toBe(1);
    // Hidden with its container: still not seen (where the browser can tell, checkVisibility).
    document.body.append(el);
    const visible = vi.fn(() => false);
    Object.defineProperty(el, 'checkVisibility', { configurable: true, value: visible });
    w.core.shownChanged();
    w.core.handleIncoming([rawMessage('while-hidden', 'r1', { type: 'TEXT', text: 'hola' })] as never);
    expect(w.stores.$unreadTotal.get()).toBe(2);
    expect(visible).toHaveBeenCalled();
    // Shown again (the IntersectionObserver tells the core): read.
    visible.mockReturnValue(true);
    w.core.shownChanged();
    expect(w.stores.$unreadTotal.get()).toBe(0);
  });
});

describe('sendMessage', () => {
  it('signs the message shown at once with the user’s own name, not a senderNames given (as the service does)', () => {
    const { fetchFn } = service();
    const named = widget(fetchFn, { userNames: 'Ana' });
    // Still pending when the test ends: destroy() rejects it (DESTROYED), which is expected here.
    named
      .sendMessage({ roomId: 'r1', type: 'TEXT', text: 'hola', senderNames: 'Bob Ruiz' } as never)
      .catch(() => undefined);
    const mine = named.core.outbox.list()[0]!.message;
    expect(named.core.findMessage(String(mine.id))?.senderNames).toBe('Ana');
    const nameless = widget(fetchFn, { userId: 'u2' });
    nameless
      .sendMessage({ roomId: 'r1', type: 'TEXT', text: 'hola', senderNames: 'Charla' } as never)
      .catch(() => undefined);
    const theirs = nameless.core.outbox.list()[0]!.message;
    expect(nameless.core.findMessage(String(theirs.id))).not.toHaveProperty('senderNames');
  });

  it('rejects invalid messages at once and sends nothing', async () => {
    const { fetchFn, calls } = service();
    const w = widget(fetchFn);
    const cases: unknown[] = [
      null,
      { text: 'no type' },
      { type: 'TEXT', roomId: 'r1' },
      { type: 'IMAGE', roomId: 'r1', mediaUrl: 'http://cdn.example/a.png' },
      { type: 'VIDEO', roomId: 'r1', mediaUrl: 'data:video/mp4;base64,AAAA' },
      { type: 'DOCUMENT', roomId: 'r1' },
      { type: 'AUDIO', roomId: 'r1', mediaUrl: 'ftp://x/a.mp3' },
      // The service refuses these too: credentials in the address, a host with a trailing dot.
      { type: 'IMAGE', roomId: 'r1', mediaUrl: 'https://user:pass@cdn.example/a.png' },
      { type: 'IMAGE', roomId: 'r1', mediaUrl: 'https://cdn.example./a.png' },
      // A tab or line break the URL parser would drop silently (no widget would show it).
      { type: 'IMAGE', roomId: 'r1', mediaUrl: 'https://cdn.example/\ta.png' },
      { type: 'DOCUMENT', roomId: 'r1', mediaUrl: 'https://cdn.example/a.pdf\njavascript:alert(1)' },
      // Invisible formatting too: a direction control makes 'gnp.exe' read 'exe.png'.
      { type: 'FILE', roomId: 'r1', mediaUrl: 'https://cdn.example/\u202Egnp.exe' },
      { type: 'LOCATION', roomId: 'r1', lat: 'north', lng: '0' },
      { type: 'POSTBACK', roomId: 'r1', text: 'x', payload: 'not an object' },
      { type: 'EVENT', roomId: 'r1', description: 'no slug' },
      { type: 'TEXT', text: 'hi', roomId: 'r1', id: 12 },
      // Nothing visible: the service would refuse it (an empty bubble).
      { type: 'TEXT', roomId: 'r1', text: '\u200b\u200d' },
      { type: 'POSTBACK', roomId: 'r1', text: '\u3164', payload: {} },
      { type: 'TEXT', roomId: 'r1', text: '\uFE0F\u{E0041}\u206A\u{1D173}' },
      { type: 'TEXT', roomId: 'r1', text: '😀'.repeat(4097) },
      // NUL and half a surrogate pair, anywhere: the service refuses them (a retry would be refused too).
      { type: 'TEXT', roomId: 'r1', text: 'ok\u0000nul' },
      { type: 'TEXT', roomId: 'r1', text: 'a\ud83db' },
      { type: 'TEXT', roomId: 'r1', text: '\ude00 b' },
      { type: 'IMAGE', roomId: 'r1', mediaUrl: 'https://cdn.example/a.png', caption: 'x\u0000' },
      { type: 'POSTBACK', roomId: 'r1', text: 'x', payload: { deep: ['\ud800'] } },
      { type: 'POSTBACK', roomId: 'r1', text: 'x', payload: { 'k\u0000': 1 } },
      { type: 'EVENT', roomId: 'r1', slug: 's', description: '', eventPayload: { a: '\u0000' } },
    ];
    for (const c of cases) {
      const e = await rejection(w.sendMessage(c as never));
      expect(e.key).toBe('VALIDATION_ERROR');
    }
    expect(calls).toHaveLength(0);
    expect(w.core.outbox.size).toBe(0);
    expect(w.core.stores.w.$messagesByRoom.get()).toEqual({});
    // A whole pair (an emoji) is fine, at either end of the text.
    w.sendMessage({ roomId: 'r1', type: 'TEXT', text: '😀 ok 😀' }).catch(() => undefined);
    expect(w.core.outbox.size).toBe(1);
  });

  it("rejects a POSTBACK or EVENT missing one of its type's fields, naming it (none of them is optional)", async () => {
    const { fetchFn, calls } = service();
    const w = widget(fetchFn);
    const missing: [Record<string, unknown>, string][] = [
      [{ roomId: 'r1', type: 'POSTBACK', text: 'Sí' }, 'payload'],
      [{ roomId: 'r1', type: 'EVENT', slug: 'page-view', description: 'pricing' }, 'eventPayload'],
      [{ roomId: 'r1', type: 'EVENT', slug: 'page-view', eventPayload: { a: 'b' } }, 'description'],
    ];
    for (const [m, field] of missing) {
      const refused = await rejection(w.sendMessage(m as SendableMessage));
      expect(refused.key, field).toBe('VALIDATION_ERROR');
      expect(Object.keys(refused.body.validationError), field).toEqual([field]);
    }
    expect(calls).toHaveLength(0);
    expect(w.core.outbox.size).toBe(0);
    // Empty ones are given: they go.
    w.sendMessage({ roomId: 'r1', type: 'POSTBACK', text: 'Sí', payload: {} }).catch(() => undefined);
    w.sendMessage({ roomId: 'r1', type: 'EVENT', slug: 's', description: '', eventPayload: {} }).catch(
      () => undefined,
    );
    expect(w.core.outbox.size).toBe(2);
  });

  it('rejects at once a POSTBACK payload that is not JSON data (cycle, BigInt, function, symbol, binary)', async () => {
    const { fetchFn, calls } = service();
    const w = widget(fetchFn);
    const circular: Record<string, unknown> = { a: 1 };
    circular['self'] = circular;
    const payloads: unknown[] = [
      circular,
      { n: 10n },
      { deep: { f: () => 1 } },
      { s: Symbol('x') },
      { list: [1, () => 2] },
      // Binary: JSON would make it {} or {"0":1,…}, and the service refuses binary in events.
      { bytes: new Uint8Array([1, 2]) },
      { buffer: new ArrayBuffer(2) },
      { view: new DataView(new ArrayBuffer(2)) },
      { file: new Blob(['x']) },
    ];
    for (const payload of payloads) {
      const e = await rejection(
        w.sendMessage({ roomId: 'r1', type: 'POSTBACK', text: 'p', payload } as never),
      );
      expect(e.key).toBe('VALIDATION_ERROR');
      expect(e.body.validationError['payload']).toMatch(/JSON/);
    }
    expect(calls).toHaveLength(0);
    expect(w.core.outbox.size).toBe(0);
  });

  it('sends what the receiver will see: a JSON copy of the payload, taken when sendMessage is called', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const when = new Date(Date.UTC(2026, 0, 2));
    const payload: Record<string, unknown> = { when, gone: undefined, list: [1, 'dos'] };
    const eventPayload = { path: '/precios' };
    w.sendMessage({ roomId: 'r1', type: 'POSTBACK', text: 'p', payload }).catch(() => undefined);
    w.sendMessage({ roomId: 'r1', type: 'EVENT', slug: 's', description: 'd', eventPayload }).catch(
      () => undefined,
    );
    payload['list'] = 'changed';
    eventPayload.path = '/changed';
    const [postback, event] = w.core.outbox.list().map((e) => e.message);
    expect(postback).toMatchObject({ payload: { when: '2026-01-02T00:00:00.000Z', list: [1, 'dos'] } });
    expect(Object.keys((postback as { payload: object }).payload)).toEqual(['when', 'list']);
    expect(event).toMatchObject({ eventPayload: { path: '/precios' } });
  });

  it('rejects at once a message larger than the service takes over the socket, naming the field', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const big = [
      [
        { type: 'EVENT', slug: 's', description: 'd', eventPayload: { a: 'x'.repeat(70_000) } },
        'eventPayload',
      ],
      [{ type: 'POSTBACK', text: 'p', payload: { a: 'x'.repeat(100_000) } }, 'payload'],
      [{ type: 'POSTBACK', text: 'p', payload: { a: '😀'.repeat(17_000) } }, 'payload'],
    ] as const;
    for (const [m, field] of big) {
      const e = await rejection(w.sendMessage({ roomId: 'r1', ...m }));
      expect(e.key).toBe('VALIDATION_ERROR');
      expect(e.body.validationError[field]).toMatch(/too large: \d+ bytes as JSON, at most 65024/);
    }
    expect(w.core.outbox.size).toBe(0);
    // Large but within the limit: accepted.
    w.sendMessage({ roomId: 'r1', type: 'POSTBACK', text: 'p', payload: { a: 'x'.repeat(60_000) } }).catch(
      () => undefined,
    );
    expect(w.core.outbox.size).toBe(1);
  });

  it('takes a payload with arrays on a page with Prototype.js’s Array.prototype.toJSON', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const had = Object.getOwnPropertyDescriptor(Array.prototype, 'toJSON');
    Object.defineProperty(Array.prototype, 'toJSON', {
      configurable: true,
      writable: true,
      value(this: unknown[]) {
        return `[${this.map((x) => JSON.stringify(x)).join(', ')}]`;
      },
    });
    try {
      w.sendMessage({ roomId: 'r1', type: 'POSTBACK', text: 'p', payload: { list: [1, 'dos'] } }).catch(
        () => undefined,
      );
    } finally {
      if (had) Object.defineProperty(Array.prototype, 'toJSON', had);
      else delete (Array.prototype as { toJSON?: unknown }).toJSON;
    }
    const [entry] = w.core.outbox.list();
    expect((entry?.message as { payload?: unknown }).payload).toEqual({ list: [1, 'dos'] });
  });

  it('counts a text in characters as the service does: 4,096 emoji fit', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.sendMessage({ roomId: 'r1', type: 'TEXT', text: '😀'.repeat(4096) }).catch(() => undefined);
    expect(w.core.outbox.size).toBe(1);
  });

  it('counts captions, names, slugs and descriptions in characters too: emoji up to the limit fit, one more does not', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const e = (n: number) => '😀'.repeat(n);
    const image = { roomId: 'r1', type: 'IMAGE', mediaUrl: 'https://cdn.example/a.png' } as const;
    const fits: SendableMessage[] = [
      { ...image, caption: e(1024) },
      { ...image, senderNames: e(1024) },
      { roomId: 'r1', type: 'EVENT', slug: e(200), description: e(1024), eventPayload: {} },
    ] as SendableMessage[];
    for (const m of fits) w.sendMessage(m).catch(() => undefined);
    expect(w.core.outbox.size).toBe(fits.length);
    const over: [Record<string, unknown>, string][] = [
      [{ ...image, caption: e(1025) }, 'caption'],
      [{ ...image, senderNames: e(1025) }, 'senderNames'],
      [{ roomId: 'r1', type: 'EVENT', slug: e(201) }, 'slug'],
      [{ roomId: 'r1', type: 'EVENT', slug: 's', description: e(1025) }, 'description'],
    ];
    for (const [m, field] of over) {
      const refused = await rejection(w.sendMessage(m as SendableMessage));
      expect(refused.key, field).toBe('VALIDATION_ERROR');
      expect(Object.keys(refused.body.validationError), field).toEqual([field]);
    }
    expect(w.core.outbox.size).toBe(fits.length);
  });

  it('says a media address is too long rather than not https', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const long = `https://cdn.example/${'a'.repeat(100_000)}.png`;
    const e = await rejection(w.sendMessage({ roomId: 'r1', type: 'IMAGE', mediaUrl: long }));
    expect(e.key).toBe('VALIDATION_ERROR');
    expect(e.body.validationError['mediaUrl']).toBe(
      'mediaUrl must be at most 2048 characters (it has 100024)',
    );
    // The service's own bound (HttpsUrl in the contract).
    expect(MEDIA_URL_MAX).toBe((HttpsUrl as { maxLength?: number }).maxLength);
    const limit = `https://cdn.example/${'a'.repeat(2048 - 24)}.png`;
    expect(limit).toHaveLength(2048);
    w.sendMessage({ roomId: 'r1', type: 'IMAGE', mediaUrl: limit }).catch(() => undefined);
    expect(w.core.outbox.size).toBe(1);
  });

  it('shows a valid message as CREATED at once and keeps it in the outbox while offline', async () => {
    const { fetchFn } = service();
    const ns = `ns-${randomUUID()}`;
    const w = widget(fetchFn, { namespace: ns });
    w.core.upsertRoom(room('r1'));
    w.setCurrentRoom('r1');
    const id = randomUUID();
    const pending = w.sendMessage({ id, type: 'TEXT', text: 'hola' });
    pending.catch(() => undefined);
    const held = w.context.stores.$currentMessages.get();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({
      id,
      roomId: 'r1',
      type: 'TEXT',
      text: 'hola',
      status: 'CREATED',
      senderId: 'u1',
    });
    expect(w.core.outbox.list().map((e) => e.message.id)).toEqual([id]);
    await w.core.outbox.settled();
    const stored = JSON.parse(localStorage.getItem(`charla-outbox:${ns}`) ?? '{}') as Record<string, unknown>;
    expect(Object.keys(stored)).toEqual([id]);
    w.destroy();
    expect((await rejection(pending)).key).toBe('DESTROYED');
  });

  it('fills in the current room and a UUID for each of the eight types', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.core.upsertRoom(room('r2'));
    w.setCurrentRoom('r2');
    const inputs: SendableMessage[] = [
      { type: 'TEXT', text: 't' },
      { type: 'IMAGE', mediaUrl: 'https://cdn.test/i.png', caption: 'c' },
      { type: 'AUDIO', mediaUrl: 'https://cdn.test/a.ogg' },
      { type: 'VIDEO', mediaUrl: 'https://cdn.test/v.mp4' },
      { type: 'DOCUMENT', mediaUrl: 'https://cdn.test/d.pdf' },
      { type: 'LOCATION', lat: -12.05, lng: '-77.04' },
      { type: 'POSTBACK', text: 'p', payload: { k: 1 } },
      { type: 'EVENT', slug: 's', description: 'd', eventPayload: { a: 'b' } },
    ];
    for (const m of inputs) w.sendMessage(m).catch(() => undefined);
    const held = w.context.stores.$currentMessages.get();
    expect(held.map((m) => m.type)).toEqual(inputs.map((m) => m.type));
    expect(held.every((m) => m.roomId === 'r2' && /^[0-9a-f-]{36}$/.test(String(m.id)))).toBe(true);
    expect(held[5]).toMatchObject({ lat: '-12.05', lng: '-77.04' });
    expect(w.core.outbox.size).toBe(8);
  });
});

describe('connection state', () => {
  it('is offline while the browser is, and tries again at once when the network is back', async () => {
    let online = true;
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });
    try {
      // Nothing listens on BASE: every attempt fails, as with no network.
      const { fetchFn } = service();
      const w = widget(fetchFn, { reconnectionDelay: 20, reconnectionDelayMax: 20 });
      const states: string[] = [];
      w.on('connection', (d) => states.push(d.state));
      w.connect().catch(() => undefined);
      await vi.waitFor(() => expect(w.core.liveSocket).not.toBeNull());
      let attempts = 0;
      w.core.liveSocket?.on('connect_error', () => attempts++);
      online = false;
      window.dispatchEvent(new Event('offline'));
      expect(w.stores.$connection.get()).toBe('offline');
      // Attempts that fail while the browser is offline leave it offline.
      await vi.waitFor(() => expect(attempts).toBeGreaterThanOrEqual(3), { timeout: 5000 });
      expect(w.stores.$connection.get()).toBe('offline');
      // Slow retries from now on: only the online event can make the next attempt come soon.
      w.core.liveSocket?.io.reconnectionDelay(60_000).reconnectionDelayMax(60_000);
      await new Promise((r) => setTimeout(r, 200));
      const before = attempts;
      online = true;
      window.dispatchEvent(new Event('online'));
      expect(['connecting', 'reconnecting']).toContain(w.stores.$connection.get());
      await vi.waitFor(() => expect(attempts).toBeGreaterThan(before), { timeout: 2000 });
      expect(['connecting', 'reconnecting']).toContain(w.stores.$connection.get());
      expect(states).toContain('offline');
      // destroy() takes the listeners away: the browser's offline event changes nothing any more.
      w.destroy();
      window.dispatchEvent(new Event('offline'));
      expect(w.stores.$connection.get()).toBe('idle');
    } finally {
      delete (navigator as { onLine?: boolean }).onLine;
    }
  });
});
