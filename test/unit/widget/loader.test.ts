/**
 * The script-tag boot (src/widget/boot.ts, used by src/loader.ts and
 * src/iife.ts): window.Charla, queued calls, charla:load, the small launcher,
 * the handover to the full bundle, several widgets on one page.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { errorBody } from '../../../types/errors.ts';
import {
  boot,
  bootFull,
  scriptLoader,
  scriptOptions,
  type CharlaGlobal,
  type CharlaLoadDetail,
  type FullApi,
} from '../../../src/widget/boot.ts';
import { scriptTagApi } from '../../../src/widget/handle.ts';
import { WidgetInstance } from '../../../src/widget/instance.ts';
import type { CharlaError } from '../../../src/transport/errors.ts';

/**
 * The loader's errors have a CharlaError's shape (the class itself stays in
 * the full bundle): name, code, key, httpStatus and the error body.
 */
function expectCharlaError(e: unknown, key: string, code: string): asserts e is CharlaError {
  expect(e).toBeInstanceOf(Error);
  const c = e as CharlaError;
  expect(c).toMatchObject({ name: 'CharlaError', key, code });
  expect(c.body).toMatchObject({
    statusMessage: 'failed',
    status: 0,
    error: { key, code, description: c.message },
  });
  // Refused in the page: no response came.
  expect(c.httpStatus).toBe(0);
}

/** The real full API, as src/iife.ts hands it over. */
const full: FullApi = scriptTagApi;
/** The network stand-in: every call is refused (the widget stays offline). */
const offline = (async () => Response.json(errorBody('UNAUTHORIZED'), { status: 401 })) as typeof fetch;
/** A widget's options against a service that is not there (every call 401s): the handle's own behaviour. */
const offlineOptions = (apiKey: string) => ({ apiKey, baseUrl: 'http://localhost:9', fetch: offline });

function script(data: Record<string, string>, src = 'https://cdn.charla.test/charla.js'): HTMLScriptElement {
  const s = document.createElement('script');
  s.src = src;
  for (const [k, v] of Object.entries(data)) s.dataset[k] = v;
  return s;
}

/** Where the small launcher's button is placed (its inline insets, set through the CSSOM). */
function inset(button: HTMLElement) {
  const { top, right, bottom, left } = button.style;
  return { top, right, bottom, left };
}

/** Hovers the (only) small launcher: the bundle loads; resolves with the instance. */
function hover(handle: Record<string, unknown>): Promise<unknown> {
  const button = document.body.querySelector('charla-loader')?.shadowRoot?.querySelector('button');
  button?.dispatchEvent(new Event('pointerenter'));
  return handle['ready'] as Promise<unknown>;
}

/** What a handle answers a name that is not a widget method with, before and after the bundle loaded. */
function expectNotAMethod(e: unknown, name: string): void {
  expect(e).toBeInstanceOf(Error);
  expect(e).toMatchObject({
    name: 'CharlaError',
    key: 'VALIDATION_ERROR',
    code: 'E0400',
    httpStatus: 0,
    message: `Charla: ${name} is not a widget method`,
  });
  expect((e as CharlaError).body.validationError).toHaveProperty(name);
}

/** How a handle's method call settled: ['resolved', value] or ['rejected', error]; a synchronous throw fails the test. */
async function settled(call: () => unknown): Promise<[string, unknown]> {
  const result = call();
  expect(result).toBeInstanceOf(Promise);
  return (result as Promise<unknown>).then(
    (v) => ['resolved', v],
    (e: unknown) => ['rejected', e],
  );
}

/**
 * The handle's contract, the same before and after the bundle has loaded: every
 * method returns a promise (void ones resolve undefined), a bad argument never
 * throws, and a name that is not a widget method rejects naming it.
 */
async function expectPromiseContract(handle: Record<string, unknown>): Promise<void> {
  const call = (name: string, ...args: unknown[]) =>
    settled(() => (handle[name] as (...a: unknown[]) => unknown)(...args));
  expect(await call('open')).toEqual(['resolved', undefined]);
  expect(await call('setContacts', [{ id: 1 }])).toEqual(['resolved', undefined]);
  // A void method's bad argument: the error event says it (src/widget/instance.ts), the promise resolves.
  expect(await call('close', 'yes')).toEqual(['resolved', undefined]);
  expect(await call('setCurrentRoom', '')).toEqual(['resolved', undefined]);
  const [how, error] = await call('getRoom', '');
  expect(how).toBe('rejected');
  expect((error as CharlaError).key).toBe('VALIDATION_ERROR');
  const [typo, notAMethod] = await call('fooBar', 1);
  expect(typo).toBe('rejected');
  expectNotAMethod(notAMethod, 'fooBar');
  // The instance itself keeps its plain return values.
  const real = (await handle['ready']) as WidgetInstance;
  expect(real).toBeInstanceOf(WidgetInstance);
  expect(real).not.toBe(handle);
  expect(real.open()).toBeUndefined();
  expect(real.context.stores.$contacts.get()).toEqual([{ id: 1 }]);
}

let loads = 0;
const loadFull = async () => {
  loads++;
  return full;
};

const realFetch = globalThis.fetch;
beforeEach(() => {
  // The data-init widget connects with the page's fetch: keep it off the network.
  globalThis.fetch = offline;
  loads = 0;
  delete window.Charla;
  delete window.__charlaFull;
});
afterEach(() => {
  globalThis.fetch = realFetch;
  const c = window.Charla as CharlaGlobal | undefined;
  if (c && !Array.isArray(c)) for (const w of c.widgets.slice()) w.destroy();
  document.body.replaceChildren();
  localStorage.clear();
});

describe('script-tag boot', () => {
  it('sets window.Charla and runs the calls queued before it arrived, with the Charla object', () => {
    const seen: unknown[] = [];
    window.Charla = [(c) => seen.push(['first', c]), (c) => seen.push(['second', c])];
    const charla = boot(script({}), loadFull, '0.1.0');
    expect(window.Charla).toBe(charla);
    expect(charla.version).toBe('0.1.0');
    expect(typeof charla.createWidget).toBe('function');
    expect(charla.widgets).toEqual([]);
    expect(seen).toEqual([
      ['first', charla],
      ['second', charla],
    ]);
    // After load, push runs at once.
    charla.push((c) => seen.push(['later', c]));
    expect(seen[2]).toEqual(['later', charla]);
    expect(loads).toBe(0);
  });

  it('reads the data-* attributes, the service address defaulting to the script origin', () => {
    const opts = scriptOptions(script({ apiKey: 'KEY-1234567890abcd', userNames: 'Ana', userHash: 'ab12' }));
    expect(opts).toEqual({
      apiKey: 'KEY-1234567890abcd',
      baseUrl: 'https://cdn.charla.test',
      userNames: 'Ana',
      userHash: 'ab12',
    });
    const given = scriptOptions(
      script({ apiKey: 'K2', userId: 'page-user', baseUrl: 'https://api.example' }),
    );
    expect(given).toMatchObject({ userId: 'page-user', baseUrl: 'https://api.example' });
    // A tag without a key (the page queues its createWidget calls) still names the service.
    expect(scriptOptions(script({}))).toEqual({ baseUrl: 'https://cdn.charla.test' });
  });

  it('a queued createWidget without baseUrl talks to the service the script came from', () => {
    window.Charla = [];
    const charla = boot(script({}, 'https://charla.example/charla.js'), loadFull, '0.1.0');
    window.__charlaFull = full;
    const w = charla.createWidget({
      apiKey: 'KEY-queued-0000000',
      fetch: offline,
    }) as unknown as WidgetInstance;
    expect(w.core.baseUrl).toBe('https://charla.example');
    // The made-up user id is kept per API key.
    expect(w.core.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(localStorage.getItem('charla:user:KEY-queued-0000000')).toBe(w.core.userId);
  });

  it('with data-init="true" creates a widget, shows the small launcher and dispatches charla:load with it', () => {
    const events: CustomEvent[] = [];
    document.addEventListener('charla:load', (e) => events.push(e as CustomEvent), { once: true });
    const charla = boot(
      script({ apiKey: 'KEY-init-000000000', init: 'true', baseUrl: 'http://localhost:9' }),
      loadFull,
      '0.1.0',
    );
    expect(charla.widgets).toHaveLength(1);
    expect(events).toHaveLength(1);
    expect(events[0]?.detail.widgetInstance).toBe(charla.widgets[0]);
    expect(events[0]?.detail.Charla).toBe(charla);
    const host = document.body.querySelector('charla-loader') as HTMLElement;
    expect(host).not.toBeNull();
    const button = host.shadowRoot?.querySelector('button') as HTMLButtonElement;
    expect(button.getAttribute('aria-label')).toBe('Abrir chat');
    // Strict CSP: no <style> element, the sheet is adopted; the corner is set through the CSSOM.
    expect(host.shadowRoot?.querySelector('style')).toBeNull();
    expect(host.shadowRoot?.adoptedStyleSheets.length).toBe(1);
    expect(host.dataset['p']).toBe('br');
    expect(inset(button)).toEqual({ top: '', right: '24px', bottom: '24px', left: '' });
    expect(host.lang).toBe('es');
  });

  it('without data-init creates nothing and charla:load carries no instance', () => {
    let detail: { widgetInstance?: unknown } | undefined;
    document.addEventListener('charla:load', (e) => (detail = (e as CustomEvent).detail), { once: true });
    const charla = boot(script({ apiKey: 'KEY-x-00000000000' }), loadFull, '0.1.0');
    expect(charla.widgets).toHaveLength(0);
    expect(detail?.widgetInstance).toBeUndefined();
    expect(document.body.querySelector('charla-loader')).toBeNull();
  });

  it('the same tag twice is one widget and one charla:load; another tag, or the widget made again, gets its own', () => {
    const events: CustomEvent[] = [];
    const listen = (e: Event) => events.push(e as CustomEvent);
    document.addEventListener('charla:load', listen);
    try {
      const attrs = { apiKey: 'KEY-twice-00000000', init: 'true', baseUrl: 'http://localhost:9' };
      const charla = boot(script(attrs), loadFull, '0.1.0');
      boot(script(attrs), loadFull, '0.1.0');
      expect(charla.widgets).toHaveLength(1);
      expect(events).toHaveLength(1);
      expect(events[0]?.detail.widgetInstance).toBe(charla.widgets[0]);
      // The same tag without data-init, twice: one event too (a listener creating a widget makes one).
      boot(script({ apiKey: 'KEY-plain-00000000' }), loadFull, '0.1.0');
      boot(script({ apiKey: 'KEY-plain-00000000' }), loadFull, '0.1.0');
      expect(events).toHaveLength(2);
      expect(events[1]?.detail.widgetInstance).toBeUndefined();
      // A tag that differs (another user) is another widget, with its own event.
      boot(script({ ...attrs, userId: 'other-user' }), loadFull, '0.1.0');
      expect(charla.widgets).toHaveLength(2);
      expect(events).toHaveLength(3);
      expect(events[2]?.detail.widgetInstance).toBe(charla.widgets[1]);
      // Once the first widget is destroyed, its tag again makes a new one and says so.
      charla.widgets[0]?.destroy();
      boot(script(attrs), loadFull, '0.1.0');
      expect(charla.widgets).toHaveLength(2);
      expect(events).toHaveLength(4);
      expect(events[3]?.detail.widgetInstance).toBe(charla.widgets[1]);
      expect(events[3]?.detail.widgetInstance).not.toBe(events[0]?.detail.widgetInstance);
    } finally {
      document.removeEventListener('charla:load', listen);
    }
  });

  it('without a script element (a module script, document.currentScript null) sets up window.Charla and makes nothing', () => {
    const charla = boot(null, loadFull, '0.1.0');
    expect(window.Charla).toBe(charla);
    expect(charla.widgets).toHaveLength(0);
    expect(document.body.querySelector('charla-loader')).toBeNull();
  });

  it('data-init="true" without data-api-key makes nothing, and says why in the console', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const charla = boot(script({ init: 'true' }), loadFull, '0.1.0');
      expect(charla.widgets).toHaveLength(0);
      expect(document.body.querySelector('charla-loader')).toBeNull();
      expect(warn.mock.calls.map((c) => String(c[0]))).toContain('Charla: data-init needs data-api-key');
    } finally {
      warn.mockRestore();
    }
  });

  it('queues calls until the full bundle loads on first interaction, then hands over', async () => {
    const charla = boot(script({}), loadFull, '0.1.0');
    const handle = charla.createWidget({
      apiKey: 'KEY-handover-00000',
      baseUrl: 'http://localhost:9',
      userId: 'u1',
      fetch: offline,
      position: 'top-left',
    });
    const queued = (handle['setContacts'] as (c: unknown) => Promise<unknown>)([{ id: 1, names: 'Ana' }]);
    expect(loads).toBe(0);
    const host = document.body.querySelector('charla-loader') as HTMLElement;
    const button = host.shadowRoot?.querySelector('button') as HTMLButtonElement;
    expect(host.dataset['p']).toBe('tl');
    expect(inset(button)).toEqual({ top: '24px', right: '', bottom: '', left: '24px' });
    button.click();
    expect(button.getAttribute('aria-busy')).toBe('true');
    const real = (await (handle['ready'] as Promise<WidgetInstance>)) as WidgetInstance;
    await queued;
    expect(loads).toBe(1);
    expect(document.body.querySelector('charla-loader')).toBeNull();
    expect(document.body.querySelector('charla-widget')).toBe(real.element);
    expect(real.context.stores.$contacts.get()).toEqual([{ id: 1, names: 'Ana' }]);
    // The click opened it.
    expect(real.context.stores.$ui.get().open).toBe(true);
    // After the handover the handle forwards synchronously.
    (handle['close'] as (d?: boolean) => void)(true);
    expect(real.context.stores.$ui.get()).toMatchObject({ open: false, launcherDisabled: true });
    expect(handle['userId']).toBe('u1');
    handle.destroy();
    expect(charla.widgets).toHaveLength(0);
    expect(document.body.querySelector('charla-widget')).toBeNull();
  });

  it('a second script tag reuses window.Charla: several widgets side by side', async () => {
    const first = boot(
      script({ apiKey: 'KEY-one-0000000000', init: 'true', baseUrl: 'http://localhost:9' }),
      loadFull,
      '0.1.0',
    );
    const second = boot(
      script({ apiKey: 'KEY-two-0000000000', init: 'true', baseUrl: 'http://localhost:9' }),
      loadFull,
      '0.1.0',
    );
    expect(second).toBe(first);
    expect(first.widgets).toHaveLength(2);
    expect(document.body.querySelectorAll('charla-loader')).toHaveLength(2);
    await first.load();
    const [a, b] = (await Promise.all(first.widgets.map((w) => w['ready']))) as WidgetInstance[];
    expect(a?.core.apiKey).toBe('KEY-one-0000000000');
    expect(b?.core.apiKey).toBe('KEY-two-0000000000');
    expect(a?.context.stores).not.toBe(b?.context.stores);
    expect(a?.core.namespace).not.toBe(b?.core.namespace);
    expect(loads).toBe(1);
  });

  it("a second tag's widget takes that tag's attributes only, and the launchers do not overlap", async () => {
    const first = boot(
      script({
        apiKey: 'KEY-one-0000000000',
        init: 'true',
        baseUrl: 'http://localhost:9',
        userId: 'first-user',
        userNames: 'Primero',
        language: 'en',
      }),
      loadFull,
      '0.1.0',
    );
    boot(
      script({ apiKey: 'KEY-two-0000000000', init: 'true' }, 'http://localhost:8/charla.js'),
      loadFull,
      '0.1.0',
    );
    const [launcherA, launcherB] = [...document.body.querySelectorAll('charla-loader')].map(
      (h) => h.shadowRoot?.querySelector('button') as HTMLButtonElement,
    );
    expect(launcherA?.style.right).toBe('24px');
    expect(launcherB?.style.right).toBe('92px');
    await first.load();
    const [a, b] = (await Promise.all(first.widgets.map((w) => w['ready']))) as WidgetInstance[];
    expect(a?.core.userId).toBe('first-user');
    expect(a?.core.baseUrl).toBe('http://localhost:9');
    expect(b?.core.userId).not.toBe('first-user');
    expect(b?.core.baseUrl).toBe('http://localhost:8');
    expect(b?.context.stores.$user.get()?.names ?? null).toBeNull();
    expect(b?.context.stores.$language.get()).toBe('es');
  });

  it('makes one widget however many times the small launcher is hovered, focused and clicked before the bundle arrives', async () => {
    const charla = boot(
      script({ apiKey: 'KEY-once-000000000', init: 'true', baseUrl: 'http://localhost:9' }),
      loadFull,
      '0.1.0',
    );
    const host = document.body.querySelector('charla-loader') as HTMLElement;
    const button = host.shadowRoot?.querySelector('button') as HTMLButtonElement;
    button.dispatchEvent(new Event('pointerenter'));
    button.dispatchEvent(new Event('focus'));
    button.click();
    button.click();
    await charla.widgets[0]!['ready'];
    await new Promise((r) => setTimeout(r, 0));
    expect(document.body.querySelectorAll('charla-widget')).toHaveLength(1);
    expect(charla.widgets).toHaveLength(1);
  });

  it('destroying a handle before the bundle arrives removes its launcher and makes no element later', async () => {
    const charla = boot(script({}), loadFull, '0.1.0');
    const handle = charla.createWidget(offlineOptions('KEY-gone-000000000'));
    expect(handle.destroy()).toBeInstanceOf(Promise);
    expect(document.body.querySelector('charla-loader')).toBeNull();
    expect(charla.widgets).toHaveLength(0);
    await charla.load();
    await new Promise((r) => setTimeout(r, 0));
    expect(document.body.querySelector('charla-widget')).toBeNull();
  });

  it('destroyed before the bundle arrives, what was queued settles as the instance’s would: DESTROYED, the message kept', async () => {
    const charla = boot(script({}), loadFull, '0.1.0');
    const handle = charla.createWidget({
      ...offlineOptions('KEY-early-00000000'),
      outboxStorage: 'memory',
    }) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>> & {
      ready: Promise<WidgetInstance>;
    };
    const connect = settled(() => handle['connect']!());
    const room = settled(() => handle['getRoom']!('r1'));
    const send = settled(() =>
      handle['sendMessage']!({ type: 'TEXT', text: 'EARLY', roomId: '6f1c2a4e-8b1d-4c1e-9a3f-2d7e5b9c0a11' }),
    );
    await handle['destroy']!();
    const [connected, connectError] = await connect;
    expect(connected).toBe('rejected');
    expect(connectError).toMatchObject({ name: 'CharlaError', key: 'DESTROYED', code: 'E0003' });
    const [sent, sendError] = await send;
    expect(sent).toBe('rejected');
    expect(sendError).toMatchObject({ name: 'CharlaError', key: 'DESTROYED', code: 'E0003' });
    expect((sendError as Error).message).toMatch(/stays queued/);
    // Asked nothing of the service for the other calls: they reject at once.
    expect(await room).toEqual(['rejected', expect.objectContaining({ key: 'DESTROYED' })]);
    // ready gives the instance, destroyed, its outbox holding the message; no element was ever made.
    const real = await handle.ready;
    expect(real).toBeInstanceOf(WidgetInstance);
    expect(real.core.outbox.list().map((e) => (e.message as { text?: string }).text)).toEqual(['EARLY']);
    expect(await settled(() => (handle['getRoom'] as (id: string) => unknown)('r1'))).toEqual([
      'rejected',
      expect.objectContaining({ key: 'DESTROYED' }),
    ]);
    expect(document.body.querySelector('charla-widget, charla-loader')).toBeNull();
    expect(charla.widgets).toHaveLength(0);
  });

  it('when the full bundle is already there, createWidget returns the real instance', () => {
    window.__charlaFull = full;
    const charla = boot(script({}), loadFull, '0.1.0');
    const w = charla.createWidget(offlineOptions('KEY-direct-0000000')) as unknown as WidgetInstance;
    expect(typeof w.core).toBe('object');
    expect(charla.widgets).toEqual([w]);
    w.destroy();
    expect(charla.widgets).toEqual([]);
  });

  it('the self-contained bundle (bootFull) creates real instances at once, with no small launcher', async () => {
    window.__charlaFull = full;
    let loaded: CharlaLoadDetail | undefined;
    document.addEventListener('charla:load', (e) => (loaded = e.detail), { once: true });
    const charla = bootFull(
      script({ apiKey: 'KEY-full-00000000', init: 'true', baseUrl: 'http://localhost:9' }),
      full,
      '0.1.0',
    );
    const w = loaded?.widgetInstance as unknown as WidgetInstance;
    expect(typeof w.core).toBe('object');
    expect(charla.widgets).toEqual([w]);
    expect(document.querySelector('charla-loader')).toBeNull();
    await expect(charla.load()).resolves.toBe(full);
    w.destroy();
    expect(charla.widgets).toEqual([]);
  });

  it('on/off on a handle return the handle (chainable) and reach the instance once it is there', async () => {
    const charla = boot(script({}), loadFull, '0.1.0');
    const handle = charla.createWidget(offlineOptions('KEY-chain-00000000'));
    const seen: string[] = [];
    const onOpen = () => seen.push('open');
    const onClose = () => seen.push('close');
    const dropped = () => seen.push('dropped');
    const on = handle['on'] as (n: string, f: () => void) => typeof handle;
    expect(on('open', onOpen)).toBe(handle);
    const chained = on('close', onClose) as unknown as Record<string, (n: string, f: () => void) => unknown>;
    expect(chained['on']?.('open', dropped)).toBe(handle);
    expect((handle['off'] as (n: string, f: () => void) => unknown)('open', dropped)).toBe(handle);
    const real = (await hover(handle)) as unknown as WidgetInstance;
    real.open();
    real.close();
    expect(seen).toEqual(['open', 'close']);
    // After the handover too: the handle, not the instance.
    expect(on('open', dropped)).toBe(handle);
    real.open();
    expect(seen).toEqual(['open', 'close', 'open', 'dropped']);
  });

  it("a handle's stores are the instance's once it has loaded; before, undefined with one warning", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const charla = boot(script({}), loadFull, '0.1.0');
      const handle = charla.createWidget(offlineOptions('KEY-stores-0000000'));
      expect(handle['stores']).toBeUndefined();
      expect(handle['stores']).toBeUndefined();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/\(await handle\.ready\)\.stores/);
      const real = (await hover(handle)) as unknown as WidgetInstance;
      expect(handle['stores']).toBe(real.stores);
      expect((handle['stores'] as WidgetInstance['stores']).$unreadTotal.get()).toBe(0);
    } finally {
      warn.mockRestore();
    }
  });

  it("before load a handle's values (userId, core, context) are undefined, and a misspelt method rejects with a VALIDATION_ERROR naming it", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const charla = boot(script({}), loadFull, '0.1.0');
      const handle = charla.createWidget(offlineOptions('KEY-values-0000000'));
      for (const name of ['userId', 'core', 'context']) expect(handle[name]).toBeUndefined();
      const typo = (handle['sendMesage'] as (m: object) => Promise<unknown>)({ type: 'TEXT', text: 'hola' });
      const real = (await hover(handle)) as unknown as WidgetInstance;
      const error = await typo.then(
        () => null,
        (e: unknown) => e,
      );
      expectNotAMethod(error, 'sendMesage');
      expect(handle['userId']).toBe(real.userId);
      expect(typeof handle['userId']).toBe('string');
    } finally {
      warn.mockRestore();
    }
  });

  it('destroying the instance a handle gave takes the handle off Charla.widgets', async () => {
    const charla = boot(script({}), loadFull, '0.1.0');
    const handle = charla.createWidget(offlineOptions('KEY-untrack-000000'));
    expect(charla.widgets).toEqual([handle]);
    const real = (await hover(handle)) as unknown as WidgetInstance;
    real.destroy();
    expect(charla.widgets).toEqual([]);
    expect(document.body.querySelector('charla-widget')).toBeNull();
    handle.destroy();
    expect(charla.widgets).toEqual([]);
  });

  it('Charla.push ignores what is not a function, with a warning, before and after load', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const seen: unknown[] = [];
      window.Charla = ['x' as never, (c) => seen.push(c)];
      const charla = boot(script({}), loadFull, '0.1.0');
      expect(seen).toEqual([charla]);
      expect(() => charla.push('x' as never, 42 as never)).not.toThrow();
      charla.push(() => seen.push('after'));
      expect(seen).toEqual([charla, 'after']);
      expect(warn).toHaveBeenCalledTimes(3);
    } finally {
      warn.mockRestore();
    }
  });

  it('a container that is not an element is a VALIDATION_ERROR naming it, before the bundle too', () => {
    const charla = boot(script({}), loadFull, '0.1.0');
    let error: unknown;
    try {
      charla.createWidget({
        apiKey: 'KEY-box-0000000000',
        baseUrl: 'http://localhost:9',
        container: 'x' as never,
      });
    } catch (e) {
      error = e;
    }
    expectCharlaError(error, 'VALIDATION_ERROR', 'E0400');
    expect(error.body.validationError['container']).toMatch(/Element/);
    expect(charla.widgets).toEqual([]);
  });

  it("a bundle that cannot load: ready rejects with a CharlaError, 'error' listeners hear it, the console says it, the launcher is not busy", async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      let fail = true;
      const flaky = async () => {
        if (fail) throw new Error('could not load https://cdn.charla.test/charla.iife.js');
        return full;
      };
      const charla = boot(script({}), flaky, '0.1.0');
      const handle = charla.createWidget(offlineOptions('KEY-fail-000000000'));
      const heard: { error: unknown; operation: string }[] = [];
      (handle['on'] as (n: string, f: (d: { error: unknown; operation: string }) => void) => unknown)(
        'error',
        (d) => heard.push(d),
      );
      const button = document.body
        .querySelector('charla-loader')
        ?.shadowRoot?.querySelector('button') as HTMLButtonElement;
      button.click();
      const e = await (handle['ready'] as Promise<unknown>).then(
        () => null,
        (err: unknown) => err,
      );
      expectCharlaError(e, 'LOAD_FAILED', 'E0007');
      expect(e.message).toMatch(/could not load/);
      expect(heard).toEqual([{ error: e, operation: 'load' }]);
      expect(logged).toHaveBeenCalledWith(e);
      expect(button.getAttribute('aria-busy')).toBeNull();
      // The visitor is told as well: the launcher says the chat is unavailable, and looks it.
      expect(button.getAttribute('aria-label')).toBe('Chat no disponible');
      expect(button.getAttribute('title')).toBe('Chat no disponible');
      expect(button.getAttribute('aria-disabled')).toBe('true');
      // The next use tries again, with a fresh `ready`.
      fail = false;
      button.click();
      const real = (await (handle['ready'] as Promise<unknown>)) as WidgetInstance;
      expect(real.element).toBe(document.body.querySelector('charla-widget'));
    } finally {
      logged.mockRestore();
    }
  });

  it('destroyed before a bundle that cannot load: its calls settle with LOAD_FAILED, and it says and tries nothing more', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      let tries = 0;
      let release!: () => void;
      const blocked = async () => {
        tries++;
        await new Promise<void>((r) => (release = r));
        throw new Error('blocked');
      };
      const charla = boot(script({}), blocked, '0.1.0');
      const handle = charla.createWidget(offlineOptions('KEY-blocked-000000')) as unknown as Record<
        string,
        (...a: unknown[]) => Promise<unknown>
      >;
      const heard: unknown[] = [];
      (handle['on'] as unknown as (n: string, f: (d: unknown) => void) => void)('error', (d) =>
        heard.push(d),
      );
      const connect = settled(() => handle['connect']!());
      // The idle-time load is under way; the page lets the handle go.
      await new Promise((r) => setTimeout(r, 50));
      await handle['destroy']!();
      release();
      const [how, error] = await connect;
      expect(how).toBe('rejected');
      expect((error as CharlaError).key).toBe('LOAD_FAILED');
      await new Promise((r) => setTimeout(r, 100));
      expect([tries, heard, logged.mock.calls.length]).toEqual([1, [], 0]);
    } finally {
      logged.mockRestore();
    }
  });

  it('a bundle that cannot load settles every call queued on the handle with LOAD_FAILED (a refused open() is not made later); a later call asks for it again', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      let fail = true;
      let tries = 0;
      const flaky = async () => {
        tries++;
        if (fail) throw new Error('could not load https://cdn.charla.test/charla.iife.js');
        return full;
      };
      const charla = boot(script({}), flaky, '0.1.0');
      const handle = charla.createWidget({
        ...offlineOptions('KEY-queue-00000000'),
        container: null,
      }) as Record<string, (...a: unknown[]) => Promise<unknown>>;
      const settled = (p: Promise<unknown>) =>
        p.then(
          (v) => ({ ok: v }),
          (e: unknown) => ({ error: (e as CharlaError).key }),
        );
      const queued = [handle['open']!(), handle['getRoom']!('abc'), handle['nope']!()].map(settled);
      expect(await Promise.all(queued)).toEqual([
        { error: 'LOAD_FAILED' },
        { error: 'LOAD_FAILED' },
        { error: 'LOAD_FAILED' },
      ]);
      expect(tries).toBe(1);
      // A call after the failure is not left waiting for a click that may never come: it loads again.
      fail = false;
      const later = settled(handle['disableInputs']!());
      expect(await later).toEqual({ ok: undefined });
      expect(tries).toBe(2);
      const real = (await (handle['ready'] as unknown as Promise<WidgetInstance>)) as WidgetInstance;
      expect(real.core.stores.w.$ui.get().inputsDisabled).toBe(true);
      // The open() that was refused with LOAD_FAILED is not made later: the panel stays shut.
      expect(real.stores.$open.get()).toBe(false);
    } finally {
      logged.mockRestore();
    }
  });

  it('a data-init tag whose data-base-url makes no widget says so: ready rejects with VALIDATION_ERROR, the launcher is unavailable, the error event comes; queued calls and charla:load go on', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: PromiseRejectionEvent) => unhandled.push(e.reason);
    window.addEventListener('unhandledrejection', onUnhandled);
    try {
      for (const baseUrl of ['javascript:alert(1)', 'not a url', 'ftp://127.0.0.1:9']) {
        document.body.replaceChildren();
        delete window.Charla;
        logged.mockClear();
        const charla = boot(
          script({ apiKey: 'KEY-bad-base-000000', init: 'true', baseUrl }),
          async () => full,
          '0.1.0',
        );
        const handle = charla.widgets[0] as Record<string, unknown>;
        const errors: unknown[] = [];
        (handle['on'] as (n: string, f: (d: unknown) => void) => void)('error', (d) => errors.push(d));
        const opened = (handle['open'] as () => Promise<unknown>)().catch((e: unknown) => e);
        const refused = await hover(handle).then(
          () => null,
          (e: unknown) => e,
        );
        expect((refused as CharlaError)?.key, baseUrl).toBe('VALIDATION_ERROR');
        expect((refused as CharlaError).message, baseUrl).toMatch(/baseUrl/);
        expect(((await opened) as CharlaError).key, baseUrl).toBe('VALIDATION_ERROR');
        expect(errors, baseUrl).toHaveLength(1);
        expect(logged, baseUrl).toHaveBeenCalledWith(refused);
        const button = document.body.querySelector('charla-loader')?.shadowRoot?.querySelector('button');
        expect(button?.getAttribute('aria-disabled'), baseUrl).toBe('true');
        expect(button?.getAttribute('aria-label'), baseUrl).toBe('Chat no disponible');
      }
      // The full bundle on the page: the tag's widget is not made, the rest of the page's use goes on.
      document.body.replaceChildren();
      delete window.Charla;
      logged.mockClear();
      const pushed: unknown[] = [];
      window.Charla = [(c: CharlaGlobal) => pushed.push(c)] as unknown as CharlaGlobal;
      let loaded: CharlaLoadDetail | undefined;
      const onLoad = (e: Event) => (loaded = (e as CustomEvent<CharlaLoadDetail>).detail);
      document.addEventListener('charla:load', onLoad);
      const charla = bootFull(
        script({ apiKey: 'KEY-bad-base-000000', init: 'true', baseUrl: 'javascript:alert(1)' }),
        full,
        '0.1.0',
      );
      document.removeEventListener('charla:load', onLoad);
      expect(pushed).toEqual([charla]);
      expect(loaded).toMatchObject({ widgetInstance: undefined, Charla: charla });
      expect(charla.widgets).toHaveLength(0);
      expect((logged.mock.calls[0]?.[0] as CharlaError)?.key).toBe('VALIDATION_ERROR');
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      window.removeEventListener('unhandledrejection', onUnhandled);
      logged.mockRestore();
    }
  });

  it('options that make no widget are refused once: said once, not made again, every later call rejects at once with the same error', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      for (const [given, field] of [
        [{ transports: [] }, 'transports'],
        [{ ackTimeoutMs: -1 }, 'ackTimeoutMs'],
        [{ baseUrl: 'javascript:alert(1)' }, 'baseUrl'],
      ] as const) {
        document.body.replaceChildren();
        delete window.Charla;
        logged.mockClear();
        const charla = boot(script({}), async () => full, '0.1.0');
        const handle = charla.createWidget({ ...offlineOptions('KEY-bad-option-0000'), ...given }) as Record<
          string,
          unknown
        >;
        const errors: unknown[] = [];
        (handle['on'] as (n: string, f: (d: unknown) => void) => void)('error', (d) => errors.push(d));
        const refused = await hover(handle).then(
          () => null,
          (e: unknown) => e as CharlaError,
        );
        expect(refused?.key, field).toBe('VALIDATION_ERROR');
        expect(refused?.body.validationError, field).toHaveProperty(field);
        // Clicking again, and later calls: nothing made or said again, the calls refused at once, and
        // the launcher not left busy (nothing is loading).
        const button = document.body.querySelector('charla-loader')?.shadowRoot?.querySelector('button');
        button?.click();
        expect(button?.hasAttribute('aria-busy'), field).toBe(false);
        const later = await Promise.race([
          (handle['getRoom'] as (id: string) => Promise<unknown>)('abc').catch((e: unknown) => e),
          new Promise((r) => setTimeout(() => r('pending'), 200)),
        ]);
        expect(later, field).toBe(refused);
        await new Promise((r) => setTimeout(r, 20));
        expect(logged, field).toHaveBeenCalledTimes(1);
        expect(errors, field).toHaveLength(1);
        expect(button?.getAttribute('aria-label'), field).toBe('Chat no disponible');
      }
    } finally {
      logged.mockRestore();
    }
  });

  it('a data-init widget whose bundle failed once connects when a later try (a click, a call) loads it', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const sessions: string[] = [];
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/v1/widget/session')) sessions.push(url);
      return offline(input, init);
    }) as typeof fetch;
    try {
      for (const retry of ['click', 'call'] as const) {
        sessions.length = 0;
        document.body.replaceChildren();
        delete window.Charla;
        let fail = true;
        const flaky = async () => {
          if (fail) throw new Error('could not load https://cdn.charla.test/charla.iife.js');
          return full;
        };
        const charla = boot(
          script({ apiKey: `KEY-retry-${retry}-000`, init: 'true', baseUrl: 'http://localhost:9' }),
          flaky,
          '0.1.0',
        );
        const handle = charla.widgets[0] as Record<string, unknown>;
        const first = await hover(handle).then(
          () => 'loaded',
          (e: unknown) => (e as CharlaError).key,
        );
        expect(first, retry).toBe('LOAD_FAILED');
        expect(sessions, retry).toEqual([]);
        fail = false;
        if (retry === 'click')
          document.body.querySelector('charla-loader')?.shadowRoot?.querySelector('button')?.click();
        else void (handle['setContacts'] as (c: unknown) => Promise<unknown>)([]);
        const real = (await (handle['ready'] as Promise<WidgetInstance>)) as WidgetInstance;
        // The loader's connect is made: the session is asked for (this stand-in refuses it).
        await vi.waitFor(() => expect(sessions.length, retry).toBeGreaterThan(0));
        expect(real.stores.$connection.get(), retry).not.toBe('idle');
        (handle['destroy'] as () => void)();
      }
    } finally {
      logged.mockRestore();
    }
  });

  it('a page whose Trusted Types list leaves Charla out: a LOAD_FAILED CharlaError naming the policies to allow', async () => {
    const created: string[] = [];
    let refuse = true;
    const tt = {
      createPolicy(name: string, rules: { createScriptURL(u: string): string }) {
        created.push(name);
        if (refuse) throw new TypeError(`Failed to execute 'createPolicy': Policy "${name}" disallowed.`);
        return rules;
      },
    };
    (window as { trustedTypes?: unknown }).trustedTypes = tt;
    // Injected scripts are kept here instead of run (happy-dom loads no script files).
    const injected: HTMLScriptElement[] = [];
    const append = vi
      .spyOn(document.head, 'appendChild')
      .mockImplementation(<T extends Node>(node: T) => (injected.push(node as never), node));
    try {
      const src = 'https://cdn.charla.test/charla.iife.js';
      const load = scriptLoader(src);
      const e = await load().then(
        () => null,
        (err: unknown) => err,
      );
      expectCharlaError(e, 'LOAD_FAILED', 'E0007');
      expect(e.message).toMatch(/charla-loader lit-html/);
      expect(injected).toEqual([]);
      // Allowed: the policy is made once, whatever the number of tries.
      refuse = false;
      const first = load().catch((err: unknown) => err);
      expect(injected[0]?.src).toBe(src);
      injected[0]?.dispatchEvent(new Event('error'));
      expect(((await first) as CharlaError).key).toBe('LOAD_FAILED');
      const second = load().catch((err: unknown) => err);
      window.__charlaFull = full;
      injected[1]?.dispatchEvent(new Event('load'));
      expect(await second).toBe(full);
      expect(created).toEqual(['charla-loader', 'charla-loader']);
    } finally {
      append.mockRestore();
      delete (window as { trustedTypes?: unknown }).trustedTypes;
    }
  });

  it('hovering or focusing the small launcher loads the bundle without opening the widget; a click opens it', async () => {
    const charla = boot(script({}), loadFull, '0.1.0');
    const handle = charla.createWidget(offlineOptions('KEY-hover-00000000'));
    const button = document.body
      .querySelector('charla-loader')
      ?.shadowRoot?.querySelector('button') as HTMLButtonElement;
    button.dispatchEvent(new Event('focus'));
    const real = (await hover(handle)) as WidgetInstance;
    expect(loads).toBe(1);
    expect(real.context.stores.$ui.get().open).toBe(false);
  });
  it('after the bundle has loaded, a handle keeps the promise contract it had before (one contract whenever page code runs)', async () => {
    const charla = boot(script({}), loadFull, '0.1.0');
    const handle = charla.createWidget(offlineOptions('KEY-contract-00000'));
    const queued = settled(() => (handle['fooBar'] as () => unknown)());
    const heard: string[] = [];
    (handle['on'] as (n: string, f: (d: { operation: string }) => void) => unknown)('error', (d) =>
      heard.push(d.operation),
    );
    await hover(handle);
    const [how, error] = await queued;
    expect(how).toBe('rejected');
    expectNotAMethod(error, 'fooBar');
    await expectPromiseContract(handle);
    expect(heard).toEqual(['close', 'setCurrentRoom']);
    // Promise or not, the call itself takes effect at once.
    void (handle['close'] as (d: boolean) => unknown)(true);
    expect(((await handle['ready']) as WidgetInstance).context.stores.$ui.get().launcherDisabled).toBe(true);
  });

  it('the same contract when the bundle was already on the page, and in the self-contained bundle', async () => {
    window.__charlaFull = full;
    const charla = boot(script({}), loadFull, '0.1.0');
    const direct = charla.createWidget(offlineOptions('KEY-direct-contract'));
    await expectPromiseContract(direct);
    direct.destroy();
    expect(charla.widgets).toEqual([]);
    delete window.Charla;
    let loaded: CharlaLoadDetail | undefined;
    document.addEventListener('charla:load', (e) => (loaded = e.detail), { once: true });
    bootFull(
      script({ apiKey: 'KEY-iife-contract0', init: 'true', baseUrl: 'http://localhost:9' }),
      full,
      '0.1.0',
    );
    await expectPromiseContract(loaded?.widgetInstance as Record<string, unknown>);
  });
  it('a handle probed before the full bundle arrives (JSON.stringify in a charla:load listener) queues nothing for it', async () => {
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      const charla = boot(script({}), loadFull, '0.1.0');
      const handle = charla.createWidget(offlineOptions('KEY-probes-early00')) as unknown as Record<
        PropertyKey,
        unknown
      >;
      // Before the bundle: an analytics script serialises the event's detail.
      expect(JSON.stringify({ detail: { widgetInstance: handle } })).toBe('{"detail":{"widgetInstance":{}}}');
      for (const probe of ['then', 'toJSON', 'constructor', 'asymmetricMatch', '$$typeof', 'nodeType'])
        expect(handle[probe], probe).toBeUndefined();
      // The bundle arrives and runs what was queued: nothing for the probes, so nothing fails.
      await hover(handle);
      await new Promise((r) => setTimeout(r, 10));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
  it("a handle answers other code's probes (then, toJSON, symbols, matchers) with undefined, and a polluted Object.prototype changes none of its methods", async () => {
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    const proto = Object.prototype as Record<string, unknown>;
    try {
      window.__charlaFull = full;
      const charla = boot(script({}), loadFull, '0.1.0');
      const direct = charla.createWidget(offlineOptions('KEY-probes-0000000'));
      delete window.__charlaFull;
      const lazy = charla.createWidget(offlineOptions('KEY-probes-1111111'));
      await hover(lazy);
      for (const handle of [direct, lazy] as unknown as Record<PropertyKey, unknown>[]) {
        for (const probe of ['then', 'toJSON', 'constructor', 'asymmetricMatch', '$$typeof', 'nodeType'])
          expect(handle[probe], probe).toBeUndefined();
        for (const probe of [Symbol.toPrimitive, Symbol.iterator, Symbol.for('nodejs.util.inspect.custom')])
          expect(handle[probe], String(probe)).toBeUndefined();
        // Not thenable: awaiting it, or returning it from an async function, gives the handle itself.
        expect(await Promise.resolve(handle)).toBe(handle);
        expect(await (async () => handle)()).toBe(handle);
        // No toJSON to call: the loader's handle is `{}`; the bundle's stringifies as the instance does (it is
        // circular), a TypeError the caller sees at once rather than a rejection nobody handles.
        if (handle === lazy) expect(JSON.stringify({ widget: handle })).toBe('{"widget":{}}');
        else expect(() => JSON.stringify({ widget: handle })).toThrow(/circular/);
        expect(String(handle)).toBe('[object Object]');
        // A page that put a widget method's name on Object.prototype: the handle's method still works.
        proto['open'] = () => 'page';
        proto['extend'] = () => 'page';
        try {
          expect(await settled(() => (handle['open'] as () => unknown)())).toEqual(['resolved', undefined]);
          expect(((await handle['ready']) as WidgetInstance).context.stores.$ui.get().open).toBe(true);
          expect((handle['extend'] as () => unknown)()).toBe('page');
        } finally {
          delete proto['open'];
          delete proto['extend'];
        }
        // Names that are neither still reject naming them.
        const [how, error] = await settled(() => (handle['fooBar'] as () => unknown)());
        expect(how).toBe('rejected');
        expectNotAMethod(error, 'fooBar');
      }
      await new Promise((r) => setTimeout(r, 10));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('a bad on() queued before any error listener still reaches the console when the bundle arrives', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const charla = boot(script({}), loadFull, '0.1.0');
      const handle = charla.createWidget(offlineOptions('KEY-bad-on-0000000'));
      const on = handle['on'] as (n: string, f: (d: { operation: string }) => void) => unknown;
      const heard: string[] = [];
      on('nope', () => undefined);
      on('error', (d) => heard.push(d.operation));
      expect(warn).not.toHaveBeenCalled();
      await hover(handle);
      // Handed over in order: the error listener came too late to hear it, the console did not.
      expect(heard).toEqual([]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/^Charla: on: unknown event nope; use one of open, /);
    } finally {
      warn.mockRestore();
    }
  });

  it("without a language the page's <html lang> chooses it: the small launcher and the widget agree", async () => {
    document.documentElement.lang = 'en-GB';
    try {
      const charla = boot(script({}), loadFull, '0.1.0');
      const handle = charla.createWidget({ apiKey: 'KEY-page-en-000000', baseUrl: 'http://localhost:9' });
      const host = document.body.querySelector('charla-loader') as HTMLElement;
      expect(host.lang).toBe('en');
      expect(host.shadowRoot?.querySelector('button')?.getAttribute('aria-label')).toBe('Open chat');
      const real = (await charla.load().then(() => handle['ready'])) as WidgetInstance;
      expect(real.context.stores.$language.get()).toBe('en');
      expect(real.element?.lang).toBe('en');
      // The option wins over the page.
      const spanish = charla.createWidget({
        apiKey: 'KEY-page-en-000001',
        baseUrl: 'http://localhost:9',
        language: 'es',
      });
      const launchers = document.body.querySelectorAll('charla-loader');
      expect(launchers[launchers.length - 1]?.getAttribute('lang')).toBe('es');
      await charla.load();
      const real2 = (await spanish['ready']) as WidgetInstance;
      expect(real2.context.stores.$language.get()).toBe('es');
    } finally {
      document.documentElement.lang = '';
    }
  });

  it('a launcher whose bundle cannot load says so in the widget’s language', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const blocked = async (): Promise<FullApi> => {
        throw new Error('blocked');
      };
      const charla = boot(script({}), blocked, '0.1.0');
      const handle = charla.createWidget({
        apiKey: 'KEY-en-fail-000000',
        baseUrl: 'http://localhost:9',
        language: 'en',
      });
      const button = document.body
        .querySelector('charla-loader')
        ?.shadowRoot?.querySelector('button') as HTMLButtonElement;
      expect(button.getAttribute('aria-label')).toBe('Open chat');
      expect(button.hasAttribute('aria-disabled')).toBe(false);
      button.click();
      await (handle['ready'] as Promise<unknown>).catch(() => undefined);
      expect(button.getAttribute('aria-label')).toBe('Chat unavailable');
      expect(button.title).toBe('Chat unavailable');
      expect(button.getAttribute('aria-disabled')).toBe('true');
    } finally {
      logged.mockRestore();
    }
  });
});
