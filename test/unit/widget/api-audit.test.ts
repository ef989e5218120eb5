/**
 * Findings of the audit of the ESM widget API, each as the page sees it: a
 * send still queued at destroy(), the page's additions to Object.prototype,
 * void methods after destroy(), getMessages' id, createWidget's container and
 * outboxStorage, prototype-poisoning keys in a message, and arguments whose
 * reads throw. REST answers come from a stand-in for the network.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorBody } from '../../../types/errors.ts';
import type { Room } from '../../../types/index.ts';
import { createWidget, widgets } from '../../../src/widget/create-widget.ts';
import type { WidgetInstance } from '../../../src/widget/instance.ts';
import { CharlaError } from '../../../src/transport/errors.ts';
import type { ErrorDetail } from '../../../src/events/index.ts';
import { directRoom, sessionJson } from '../components/fixture.ts';

const BASE = 'http://localhost:9';
const made: WidgetInstance[] = [];
afterEach(() => {
  for (const w of made.splice(0)) w.destroy();
  document.body.replaceChildren();
});

interface Call {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

/** A stand-in for the service's HTTP answers (the network, not our code). */
function service(routes: Record<string, (call: Call) => [number, unknown]> = {}) {
  const calls: Call[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const call: Call = {
      method: init.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
    };
    calls.push(call);
    const key = `${call.method} ${call.path}`;
    if (key === 'POST /v1/widget/session') {
      const b = call.body as { userId: string };
      return Response.json(sessionJson({ id: b.userId, names: null }));
    }
    const handler = routes[key];
    if (!handler) return Response.json(errorBody('NOT_FOUND'), { status: 404 });
    const [status, body] = handler(call);
    return Response.json(body, { status });
  }) as typeof fetch;
  return { fetchFn, calls, api: () => calls.filter((c) => c.path !== '/v1/widget/session') };
}

const options = (fetchFn: typeof fetch) => ({
  apiKey: 'key-0123456789abcdef',
  baseUrl: BASE,
  userId: 'u1',
  fetch: fetchFn,
  namespace: `ns-${randomUUID()}`,
  reconnectionDelay: 60_000,
});

function widget(fetchFn: typeof fetch, extra: Record<string, unknown> = {}): WidgetInstance {
  const w = createWidget({ ...options(fetchFn), ...extra });
  made.push(w);
  return w;
}

const room = directRoom;

const ok = { message: ['done'], status: true, statusMessage: 'success' };

/** What a promise settled with within `ms`: its rejection, 'resolved', or 'pending'. */
async function outcome(p: Promise<unknown>, ms = 50): Promise<unknown> {
  return Promise.race([
    p.then(
      () => 'resolved',
      (e: unknown) => e,
    ),
    new Promise((r) => setTimeout(() => r('pending'), ms)),
  ]);
}

/** Runs `fn` with `Object.prototype[key] = value`, always taking it away again. */
function polluted<T>(key: string, value: unknown, fn: () => T): T {
  const proto = Object.prototype as Record<string, unknown>;
  proto[key] = value;
  try {
    return fn();
  } finally {
    delete proto[key];
  }
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('destroy() with a send still queued', () => {
  it('rejects DESTROYED saying the message stays queued for the next widget of this user; other DESTROYED rejections keep their words', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.core.upsertRoom(room('r1'));
    w.setCurrentRoom('r1');
    const pending = w.sendMessage({ type: 'TEXT', text: 'hola' });
    w.destroy();
    const e = (await outcome(pending)) as CharlaError;
    expect(e).toBeInstanceOf(CharlaError);
    expect(e.code).toBe('E0003');
    expect(e.key).toBe('DESTROYED');
    expect(e.message).toMatch(/stays queued/);
    expect(e.message).toMatch(/sent when a widget for this user connects again/);
    expect(e.message).toMatch(/unless the page deletes the outbox storage/);
    const other = (await outcome(w.getRoom('r1'))) as CharlaError;
    expect(other.key).toBe('DESTROYED');
    expect(other.message).toBe('The widget instance was destroyed.');
  });

  it('without a roomId, made before the session named its room: DESTROYED says the message was not sent', async () => {
    // The session never answers: destroy() cuts it short.
    const fetchFn = ((_: unknown, init: RequestInit = {}) =>
      new Promise((_resolve, reject) =>
        init.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
      )) as typeof fetch;
    const w = widget(fetchFn);
    const pending = w.sendMessage({ type: 'TEXT', text: 'hola' });
    await new Promise((r) => setTimeout(r, 10));
    w.destroy();
    const e = (await outcome(pending)) as CharlaError;
    expect([e.key, e.code]).toEqual(['DESTROYED', 'E0003']);
    expect(e.message).toMatch(/had no roomId\): the message was not sent/);
    expect(w.core.outbox.list()).toEqual([]);
  });
});

describe("the page's additions to Object.prototype", () => {
  it('do not fill in a sendMessage roomId: the current room is used', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.core.upsertRoom(room('r1'));
    w.setCurrentRoom('r1');
    const p = polluted('roomId', 'evil', () => w.sendMessage({ type: 'TEXT', text: 'hi' }));
    p.catch(() => undefined);
    expect(w.core.outbox.list().map((e) => e.message.roomId)).toEqual(['r1']);
    expect(Object.keys(w.core.stores.w.$messagesByRoom.get())).toEqual(['r1']);
  });

  it('do not set a getMessages limit', async () => {
    const { fetchFn, api } = service({ 'GET /v1/widget/rooms/r1/messages': () => [200, { messages: [] }] });
    const w = widget(fetchFn);
    const p = polluted('limit', 1000, () => w.getMessages({ roomId: 'r1' }));
    expect(await outcome(p, 2000)).toBe('resolved');
    expect(api().map((c) => c.query)).toEqual([{ limit: '20' }]);
  });

  it('do not name the user of openRoomWithUser, nor the members of addMembers', async () => {
    const { fetchFn, api } = service({
      'POST /v1/widget/rooms/direct': () => [200, room('d1')],
      'POST /v1/widget/rooms/r1/members/bulk': () => [200, ok],
    });
    const w = widget(fetchFn);
    const opened = polluted('names', 'evil', () => w.openRoomWithUser({ id: 'u2' }));
    expect(await outcome(opened, 2000)).toBe('resolved');
    const added = polluted('names', 'evil', () =>
      polluted('memberType', 'Charla', () => w.addMembers('r1', [{ referenceId: 'c2' }])),
    );
    expect(await outcome(added, 2000)).toBe('resolved');
    const bodies = api()
      .filter((c) => c.method === 'POST')
      .map((c) => c.body);
    expect(bodies).toEqual([{ id: 'u2' }, { members: [{ referenceId: 'c2', memberType: 'Client' }] }]);
  });

  it("do not reach contacts or createWidget's options", () => {
    const { fetchFn } = service();
    const w = polluted('userNames', 'evil', () => widget(fetchFn, { container: null }));
    expect(w.core.stores.w.$user.get()?.names).toBeNull();
    polluted('names', 'evil', () => w.setContacts([{ id: 1 }]));
    expect(w.context.stores.$contacts.get()[0]?.names).toBeUndefined();
    polluted('avatar', 'https://evil.example/a.png', () => w.addContact({ id: 2 }));
    expect(w.context.stores.$contacts.get()[1]?.avatar).toBeUndefined();
  });
});

describe('after destroy()', () => {
  it('no void method changes anything', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.core.upsertRoom(room('r1'));
    w.close(true);
    const stores = w.core.stores.w;
    const snapshot = () =>
      Object.fromEntries(Object.entries(stores).map(([name, store]) => [name, store.get() as unknown]));
    w.destroy();
    const before = snapshot();
    w.open();
    w.enable();
    w.close();
    w.close(true);
    w.hideHomeMenu();
    w.showHomeMenu();
    w.setCurrentRoom('r1');
    w.setContacts([{ id: 1 }]);
    w.addContacts([{ id: 2 }]);
    w.addContact({ id: 3 });
    w.setContactsForRoom([{ id: 4 }]);
    w.addRoomContacts([{ id: 5 }]);
    w.addRoomContact({ id: 6 });
    w.startLoading();
    w.startLoadingForRoom();
    w.disableInputs();
    w.disconnect();
    expect(snapshot()).toEqual(before);
    expect(w.stores.$open.get()).toBe(false);
    w.stopLoading();
    w.stopLoadingForRoom();
    w.enableInputs();
    expect(snapshot()).toEqual(before);
  });
});

describe('after destroy(), promise methods', () => {
  it('reject with DESTROYED whatever their arguments, and ask nothing', async () => {
    const { fetchFn, calls } = service();
    const w = widget(fetchFn);
    w.destroy();
    const bad = null as never;
    const pending: Promise<unknown>[] = [
      w.connect(),
      w.setFlow(bad),
      w.setFlow('flow-1'),
      w.getRoom(bad),
      w.getRoom('r1'),
      w.getMembers(bad),
      w.joinRoom(bad, bad),
      w.leaveRoom('r1', 'u1'),
      w.openRoomWithUser(bad),
      w.addMember(bad, bad),
      w.addMembers('r1', [bad]),
      w.getMessages(bad),
      w.getMessages({ roomId: 'r1' }),
      w.sendMessage(bad),
    ];
    for (const [i, p] of pending.entries()) {
      const e = (await outcome(p, 2000)) as CharlaError;
      expect(e, String(i)).toBeInstanceOf(CharlaError);
      expect(e.key, String(i)).toBe('DESTROYED');
    }
    expect(calls).toEqual([]);
  });
});

describe('getMessages id', () => {
  it('over 200 characters rejects at once with VALIDATION_ERROR naming id, and asks nothing', async () => {
    const { fetchFn, calls } = service();
    const w = widget(fetchFn);
    for (const id of ['r'.repeat(201), 'r'.repeat(20_000)]) {
      const e = (await outcome(w.getMessages({ roomId: 'r1', id }), 2000)) as CharlaError;
      expect(e).toBeInstanceOf(CharlaError);
      expect(e.key).toBe('VALIDATION_ERROR');
      expect(e.httpStatus).toBe(0);
      expect(e.body.validationError['id']).toMatch(/200/);
    }
    expect(calls).toEqual([]);
  });
});

describe('ids with half a surrogate pair or a NUL', () => {
  it('reject at once with VALIDATION_ERROR naming the field (not a URIError as UNKNOWN_ERROR), and ask nothing', async () => {
    const { fetchFn, calls } = service();
    const w = widget(fetchFn);
    const errors: ErrorDetail[] = [];
    w.on('error', (d) => errors.push(d));
    for (const bad of ['a\ud800', '\udc00b', 'r\u0000']) {
      const attempts: [string, Promise<unknown>][] = [
        ['roomId', w.getRoom(bad)],
        ['roomId', w.getMembers(bad)],
        ['roomId', w.joinRoom(bad, 'u1')],
        ['roomId', w.leaveRoom(bad, 'u1')],
        ['roomId', w.getMessages({ roomId: bad })],
        ['roomId', w.addMember('u2', bad)],
        ['member', w.addMember(bad, 'r1')],
        ['flowId', w.setFlow(bad)],
        ['user.id', w.openRoomWithUser({ id: bad })],
      ];
      for (const [field, attempt] of attempts) {
        const e = (await outcome(attempt, 2000)) as CharlaError;
        expect(e, `${field} ${JSON.stringify(bad)}`).toBeInstanceOf(CharlaError);
        expect(e.key).toBe('VALIDATION_ERROR');
        expect(Object.keys(e.body.validationError)).toEqual([field]);
      }
      w.setCurrentRoom(bad);
    }
    expect(errors.map((d) => [d.operation, d.error.key])).toEqual(
      Array.from({ length: 3 }, () => ['setCurrentRoom', 'VALIDATION_ERROR']),
    );
    expect(calls).toEqual([]);
  });
});

describe('createWidget', () => {
  it('made before the page has a body (a script in <head>): joins the body once the page has one', () => {
    const { fetchFn } = service();
    const body = document.body;
    body.remove();
    expect(document.body).toBeNull();
    let w: WidgetInstance | undefined;
    let gone: WidgetInstance | undefined;
    try {
      w = widget(fetchFn);
      gone = widget(fetchFn);
      expect(w.element).toBeInstanceOf(HTMLElement);
      expect(w.element!.isConnected).toBe(false);
      gone.destroy();
    } finally {
      document.documentElement.append(body);
    }
    document.dispatchEvent(new Event('DOMContentLoaded'));
    expect(w.element!.parentNode).toBe(document.body);
    // One destroyed before then is not put in.
    expect(document.querySelectorAll('charla-widget')).toHaveLength(1);
  });

  it('refuses a container node that cannot hold the widget, naming it, and makes nothing', () => {
    const { fetchFn } = service();
    const before = widgets().length;
    for (const container of [document.createTextNode('x'), document.createComment('c'), document]) {
      const e = thrown(() => widget(fetchFn, { container })) as CharlaError;
      expect(e).toBeInstanceOf(CharlaError);
      expect(e.key).toBe('VALIDATION_ERROR');
      expect(e.body.validationError['container']).toMatch(/Element/);
    }
    expect(widgets()).toHaveLength(before);
    expect(document.querySelector('charla-widget')).toBeNull();
  });

  it('refuses an outboxStorage without put and remove, naming it', () => {
    const { fetchFn } = service();
    const before = widgets().length;
    const load = async () => [];
    for (const outboxStorage of [{ load }, { load, put: async () => undefined }]) {
      const e = thrown(() => widget(fetchFn, { outboxStorage })) as CharlaError;
      expect(e).toBeInstanceOf(CharlaError);
      expect(e.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(e.body.validationError)).toEqual(['outboxStorage']);
    }
    expect(widgets()).toHaveLength(before);
  });
});

describe('prototype-poisoning keys in a message', () => {
  it('reject at once, show nothing, fire no error event and queue nothing', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    w.core.upsertRoom(room('r1'));
    w.setCurrentRoom('r1');
    const errors: ErrorDetail[] = [];
    w.on('error', (d) => errors.push(d));
    const messages = [
      { type: 'POSTBACK', text: 'p', payload: JSON.parse('{"__proto__":{"x":1}}') },
      { type: 'POSTBACK', text: 'p', payload: { deep: [JSON.parse('{"a":{"__proto__":{}}}')] } },
      { type: 'POSTBACK', text: 'p', payload: { constructor: { prototype: {} } } },
      { type: 'EVENT', slug: 's', description: '', eventPayload: JSON.parse('{"__proto__":"x"}') },
    ];
    for (const m of messages) {
      const p = w.sendMessage(m as never);
      expect(w.core.outbox.size).toBe(0);
      const e = (await outcome(p)) as CharlaError;
      expect(e).toBeInstanceOf(CharlaError);
      expect(e.key).toBe('VALIDATION_ERROR');
      expect(e.httpStatus).toBe(0);
    }
    expect(w.core.stores.w.$messagesByRoom.get()).toEqual({});
    expect(errors).toEqual([]);
    // A key that only looks like one is fine.
    w.sendMessage({ type: 'POSTBACK', text: 'p', payload: { constructor: 'x', proto: 1 } }).catch(
      () => undefined,
    );
    expect(w.core.outbox.size).toBe(1);
  });
});

describe('arguments whose reads throw', () => {
  it('make every promise method reject with a CharlaError', async () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const hostile = new Proxy({} as Record<string, unknown>, {
      get() {
        throw new Error('boom');
      },
    });
    const keyed = new Proxy({ id: 'x', roomId: 'r1', referenceId: 'x' } as Record<string, unknown>, {
      get() {
        throw new Error('boom');
      },
    });
    const any = w as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const calls: [string, unknown[]][] = [];
    for (const h of [hostile, keyed]) {
      calls.push(
        ['getMessages', [h]],
        ['sendMessage', [h]],
        ['openRoomWithUser', [h]],
        ['addMember', [h, 'r1']],
        ['addMembers', ['r1', [h]]],
        ['addMembers', ['r1', h]],
        ['setFlow', ['f', h]],
        ['setFlow', [h]],
        ['getRoom', [h]],
        ['getMembers', [h]],
        ['joinRoom', [h, 'u']],
        ['leaveRoom', ['r1', h]],
      );
    }
    for (const [method, args] of calls) {
      const e = await outcome(any[method]!(...args), 2000);
      expect(e, method).toBeInstanceOf(CharlaError);
      // Never taken for a fault of the widget's: an argument whose reads throw is a VALIDATION_ERROR
      // (an empty Proxy whose keys are never read may get as far as the service: setFlow's NOT_FOUND).
      expect((e as CharlaError).key, method).not.toBe('UNKNOWN_ERROR');
    }
  });

  it('make every void method change nothing and say VALIDATION_ERROR, naming the method (lists and their items too)', () => {
    const { fetchFn } = service();
    const w = widget(fetchFn);
    const errors: ErrorDetail[] = [];
    w.on('error', (d) => errors.push(d));
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const boom = () => {
      throw new Error('boom');
    };
    // A list whose length cannot be read, a list whose first item cannot be read, a contact whose id cannot.
    const badLength = new Proxy([] as unknown[], {
      get: (target, key) => (key === 'length' ? boom() : Reflect.get(target, key)),
    });
    const badItem = [{ id: 'ok' }];
    Object.defineProperty(badItem, 0, { get: boom });
    const badContact = Object.defineProperty({}, 'id', { get: boom, enumerable: true });
    try {
      w.setContacts([{ id: 'kept' }]);
      w.setContactsForRoom([{ id: 'kept' }]);
      const any = w as unknown as Record<string, (...a: unknown[]) => void>;
      const calls: [string, unknown][] = [];
      for (const method of ['setContacts', 'addContacts', 'setContactsForRoom', 'addRoomContacts'])
        calls.push([method, badLength], [method, badItem]);
      for (const method of ['addContact', 'addRoomContact']) calls.push([method, badContact]);
      for (const [method, arg] of calls) {
        errors.length = 0;
        expect(() => any[method]!(arg), method).not.toThrow();
        expect(errors, method).toHaveLength(1);
        expect(errors[0]!.operation, method).toBe(method);
        expect(errors[0]!.error.key, method).toBe('VALIDATION_ERROR');
        expect(errors[0]!.error.message.startsWith(`${method}: `), method).toBe(true);
      }
      expect(w.core.stores.w.$contacts.get()).toEqual([{ id: 'kept' }]);
      expect(w.core.stores.w.$roomContacts.get()).toEqual([{ id: 'kept' }]);
    } finally {
      warned.mockRestore();
    }
  });

  it("make createWidget throw a VALIDATION_ERROR and make nothing (its options, a Proxy whose keys' reads throw)", () => {
    const before = widgets().length;
    const elements = document.querySelectorAll('charla-widget').length;
    for (const trap of ['get', 'ownKeys', 'getOwnPropertyDescriptor'] as const) {
      const hostile = new Proxy({ apiKey: 'k', userId: 'u' } as Record<string, unknown>, {
        [trap]() {
          throw new Error('boom');
        },
      });
      let thrown: unknown;
      try {
        createWidget(hostile as never);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, trap).toBeInstanceOf(CharlaError);
      expect((thrown as CharlaError).key, trap).toBe('VALIDATION_ERROR');
    }
    expect(widgets()).toHaveLength(before);
    expect(document.querySelectorAll('charla-widget')).toHaveLength(elements);
  });
});
