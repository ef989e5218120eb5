/**
 * The script-tag boot, shared by the small loader (src/loader.ts) and the
 * self-contained bundle (src/iife.ts). It imports only isEnglish (no catalogue):
 * the loader's budget is 3,200 B gzip.
 *
 * `window.Charla` becomes `{ createWidget, widgets, version, push, load }`:
 * - `createWidget(options)` returns a handle at once. Until the full bundle
 *   has loaded, the handle shows a small launcher and queues every method
 *   call (each returns a promise of the real method's result); afterwards it
 *   forwards to the full bundle's handle of the instance
 *   (src/widget/handle.ts), whose methods return promises too, so a page's
 *   code gets one contract whenever it runs. `await handle.ready` gives the
 *   WidgetInstance itself. `on`/`off` return the handle (chainable); the
 *   listeners go to the instance once it is there, and 'error' listeners hear
 *   a failed load too (`operation: 'load'`; `ready` rejects with the same
 *   CharlaError, LOAD_FAILED). `stores` exist once the bundle has loaded.
 *   Once the full bundle is on the page (always, in charla.iife.js:
 *   bootFull), it returns the full bundle's handle at once.
 * - Functions queued before the script arrived
 *   (`window.Charla = window.Charla || []; Charla.push(fn)`) are called with
 *   the Charla object once it is set up; `Charla.push(fn)` later calls fn at once.
 * - `charla:load` is dispatched on document with `detail.widgetInstance`
 *   (the handle) when `data-init="true"` created one, and `detail.Charla`.
 */
import { isEnglish } from '../i18n/pick.ts';
import { isProbe } from './probes.ts';

/**
 * What the loader rejects and throws with: an Error shaped as a CharlaError
 * (name, code, key, httpStatus, body), without the class, whose code stays in
 * the full bundle (the loader's budget).
 */
export type BootError = Error & { code: string; key: string; httpStatus: number; body: unknown };

/** What the full bundle hands over (`window.__charlaFull`). */
export interface FullApi {
  createWidget(options: BootOptions): WidgetLike;
  version: string;
}

/** Options of Charla.createWidget on the script-tag build (those of createWidget). */
export type BootOptions = {
  apiKey: string;
  baseUrl?: string;
  userId?: string;
  userNames?: string;
  userHash?: string;
  container?: HTMLElement | null;
} & Record<string, unknown>;

type WidgetLike = Record<string, unknown> & { destroy(): void };

export interface CharlaGlobal {
  createWidget(options: BootOptions): WidgetLike;
  /** The live widget instances (handles) of this page. */
  widgets: WidgetLike[];
  version: string;
  push(...fns: ((charla: CharlaGlobal) => void)[]): void;
  /** Loads the full bundle now; resolves with its API. */
  load(): Promise<FullApi>;
}

/** Detail of the `charla:load` event on document. */
export interface CharlaLoadDetail {
  /** The handle of the widget `data-init="true"` created, if any. */
  widgetInstance: WidgetLike | undefined;
  Charla: CharlaGlobal;
}

declare global {
  interface DocumentEventMap {
    'charla:load': CustomEvent<CharlaLoadDetail>;
  }
  interface Window {
    Charla?: CharlaGlobal | ((charla: CharlaGlobal) => void)[];
    __charlaFull?: FullApi;
  }
}

const MARK = '__charlaBoot';
/** The data-init widgets made so far, by their tag's options: the same tag twice makes one widget. */
const INITS = '__charlaInits';
/** Trusted Types policies a page that lists its policies must allow: this loader's and Lit's. */
const POLICIES = 'charla-loader lit-html';

/** A LOAD_FAILED (E0007) error, or a VALIDATION_ERROR (E0400) naming `field`. */
function bootError(message: string, field?: string): BootError {
  const [code, key] = field ? ['E0400', 'VALIDATION_ERROR'] : ['E0007', 'LOAD_FAILED'];
  const body = {
    message,
    statusMessage: 'failed',
    status: 0,
    error: { code, key, description: message, developerMessages: { en: message }, clientMessages: {} },
    validationError: field ? { [field]: message } : {},
    data: {},
  };
  return Object.assign(new Error(message), {
    name: 'CharlaError',
    code,
    key,
    httpStatus: 0,
    body,
  });
}
/*
 * The host out of the page's flow (a grid body took it for an item) whatever the page's rules: important
 * in :host beats them. Not printed.
 */
const CSS =
  ':host{all:initial!important;position:absolute!important}@media print{button{display:none!important}}button{position:fixed;inset:auto;margin:0;z-index:2147483000;width:56px;height:56px;box-sizing:border-box;border:2px solid transparent;border-radius:50%;' +
  'background:var(--charla-color-primary,#2563eb);color:var(--charla-color-on-primary,#fff);cursor:pointer;display:grid;' +
  'place-items:center;box-shadow:0 6px 20px rgba(0,0,0,.22);padding:0}button:focus-visible{outline:3px solid #111;outline-offset:3px;box-shadow:0 0 0 3px #fff}' +
  'button[aria-busy=true]{opacity:.8;cursor:progress}button[aria-disabled]{opacity:.5}svg{width:28px;height:28px;fill:currentColor}';

/** A launcher drawn with plain DOM in a shadow root, styled by a constructable stylesheet (strict CSP safe). */
function liteLauncher(
  container: HTMLElement,
  position: string,
  label: string,
  onUse: (click: boolean) => boolean,
): HTMLElement {
  const host = document.createElement('charla-loader');
  const root = host.attachShadow({ mode: 'open' });
  const button = document.createElement('button');
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.setAttribute('part', 'launcher');
  const p = position.replace(/(\w)\w*-(\w)\w*/, '$1$2');
  const corner = /^[bt][lr]$/.test(p) ? p : 'br';
  host.dataset['p'] = corner;
  // The corner, through the CSSOM (which a strict CSP allows; a style attribute string it refuses).
  // Launchers in the same corner sit side by side, as the full widget's do.
  const s = button.style;
  s[corner[0] === 't' ? 'top' : 'bottom'] = '24px';
  s[corner[1] === 'l' ? 'left' : 'right'] =
    `${24 + document.querySelectorAll(`charla-loader[data-p=${corner}]`).length * 68}px`;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z');
  svg.appendChild(path);
  button.appendChild(svg);
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [sheet];
  } catch {
    // No constructable stylesheets: the rest of the shape through the CSSOM too.
    s.position = 'fixed';
    s.width = s.height = '56px';
    s.borderRadius = '50%';
  }
  root.appendChild(button);
  // Busy while the widget loads; not when nothing will (options that make no widget).
  button.addEventListener('click', () => onUse(true) && button.setAttribute('aria-busy', 'true'));
  // Hover and focus only fetch the bundle; a click also opens the widget once it is there.
  for (const ev of ['pointerenter', 'focus']) button.addEventListener(ev, () => onUse(false), { once: true });
  container.appendChild(host);
  // The top layer, as the full widget's launcher: out of reach of the page's z-indexes and transforms.
  button.popover = 'manual';
  try {
    button.showPopover();
  } catch {
    // No popover API: a fixed button.
  }
  return host;
}

/** Runs `fn` when the browser is idle (or after a short delay). */
function whenIdle(fn: () => void): void {
  const ric = (globalThis as { requestIdleCallback?: (cb: () => void, o: { timeout: number }) => number })
    .requestIdleCallback;
  if (ric) ric(fn, { timeout: 3000 });
  else setTimeout(fn, 1500);
}

/**
 * The script tag running this file: `document.currentScript` when its address
 * ends in `/<name>`. Otherwise the last tag whose address does: a
 * `type="module"` tag has no currentScript, and a page's currentScript
 * polyfill may answer another script (its data-* attributes and its address,
 * which the full bundle is found next to, would be lost). A script renamed
 * on the customer's host is still its currentScript.
 */
export function ownScript(name: string): HTMLScriptElement | null {
  const current = document.currentScript as HTMLScriptElement | null;
  const mine = (s: HTMLScriptElement | null) => !!s?.src && new URL(s.src).pathname.endsWith(`/${name}`);
  return mine(current)
    ? current
    : ([...document.querySelectorAll<HTMLScriptElement>('script[src]')].reverse().find(mine) ?? current);
}

/**
 * Injects the full bundle next to `src`; resolves once it registered itself.
 * Rejects with a CharlaError (LOAD_FAILED) saying why.
 */
export function scriptLoader(src: string, nonce?: string): () => Promise<FullApi> {
  // Made once: a second policy of the same name is refused where Trusted Types are enforced.
  let policy: { createScriptURL(u: string): string } | undefined;
  return () =>
    new Promise<FullApi>((resolve, reject) => {
      if (window.__charlaFull) return resolve(window.__charlaFull);
      const s = document.createElement('script');
      // Pages that require Trusted Types get the one address this loader computed, through a policy.
      const tt = (
        window as {
          trustedTypes?: {
            createPolicy(
              n: string,
              p: { createScriptURL(u: string): string },
            ): { createScriptURL(u: string): string };
          };
        }
      ).trustedTypes;
      const blocked = `this page's CSP must allow the Trusted Types policies ${POLICIES}`;
      try {
        policy ??= tt?.createPolicy('charla-loader', { createScriptURL: (u) => (u === src ? u : '') });
      } catch (e) {
        // The page's CSP lists its policies, not ours: Lit's would be refused as well, so the widget cannot work.
        return reject(bootError(`Charla: ${blocked} (${String(e)})`));
      }
      // A script element made by script is async already.
      s.src = policy ? policy.createScriptURL(src) : src;
      if (nonce) s.nonce = nonce;
      s.addEventListener('load', () =>
        window.__charlaFull
          ? resolve(window.__charlaFull)
          : reject(
              bootError(`Charla: ${src} did not start (see the error above${tt ? `, or: ${blocked}` : ''})`),
            ),
      );
      s.addEventListener('error', () => reject(bootError(`Charla: could not load ${src}`)));
      document.head.appendChild(s);
    });
}

/**
 * Options from a script tag's data-* attributes. The service's address is the
 * script's own origin unless data-base-url says otherwise, with or without a
 * data-api-key (a page that queues createWidget calls gives no key on the tag).
 */
export function scriptOptions(script: HTMLOrSVGScriptElement | null): Partial<BootOptions> {
  const s = script as HTMLScriptElement | null;
  const d = s?.dataset ?? {};
  const options: Partial<BootOptions> = {
    baseUrl: d['baseUrl'] || new URL(s?.src || location.href, location.href).origin,
  };
  const keys = ['apiKey', 'userId', 'userNames', 'userHash', 'language', 'position'] as const;
  for (const k of keys) if (d[k]) options[k] = d[k];
  return options;
}

type Untrack = (w: WidgetLike) => void;
/** How Charla.createWidget makes a widget from its options (those of the script tag, then the call's). */
type Maker = (opts: BootOptions, untrack: Untrack) => WidgetLike;

type Listener = (detail: unknown) => void;
const nop = (): void => undefined;
/** Takes a promise's rejection (reported already, as an `error` event) off the console. */
const quiet = (p: unknown): void => void Promise.resolve(p).catch(nop);

/** The full bundle is on the page: its own handle of the instance (src/widget/handle.ts), made at once. */
function direct(full: FullApi, opts: BootOptions, untrack: Untrack): WidgetLike {
  const instance = full.createWidget(opts);
  const destroyReal = instance.destroy.bind(instance);
  instance.destroy = () => {
    untrack(instance);
    destroyReal();
  };
  return instance;
}

/**
 * The full bundle is not here yet: a handle that shows the lite launcher and
 * queues every method call until the bundle has loaded (on first use of the
 * launcher, or when the browser is idle).
 */
function lazyHandle(opts: BootOptions, load: () => Promise<FullApi>, untrack: Untrack): WidgetLike {
  let real: WidgetLike | null = null;
  let destroyed = false;
  let launcher: HTMLElement | null = null;
  let opened = false;
  let starting = false;
  let failed = false;
  let warned = false;
  /** What options that make no widget (a bad baseUrl, an empty transports list) were refused with: said once, never tried again. */
  let bad: unknown;
  const en = isEnglish(opts['language']);
  const calls: [string, unknown[], (v: unknown) => void, (e: unknown) => void][] = [];
  /** on() before the bundle is here: [name, handler], handed to the instance when it is. */
  let listeners: [string, Listener][] = [];
  let settle!: { resolve: (w: WidgetLike | PromiseLike<WidgetLike>) => void; reject: (e: unknown) => void };
  let ready!: Promise<WidgetLike>;
  const newReady = (): void => {
    ready = new Promise<WidgetLike>((resolve, reject) => (settle = { resolve, reject }));
    ready.catch(nop);
  };
  newReady();
  // Idle time, hover, focus and click all ask for the bundle: only the first makes the widget.
  /** Loads the bundle and makes the widget, once; false when nothing will load (options that make no widget). */
  const start = (): boolean => {
    // Destroyed, a failed load is not tried again (the idle-time try still waiting).
    if (starting || bad || (destroyed && failed)) return !bad;
    starting = true;
    // Another try after a failed one: a fresh `ready`.
    if (failed) newReady();
    failed = false;
    // A bad option (data-base-url="javascript:…") throws in createWidget: reported as a failed load.
    void load()
      .then((api) => {
        // Destroyed before the bundle came: what was queued settles as the instance's would, on an
        // instance without elements (below).
        const w = (real = api.createWidget(destroyed ? { ...opts, container: null } : opts));
        // Destroying the instance itself (`(await handle.ready).destroy()`) takes the handle off Charla.widgets too.
        (w['addCleanup'] as ((fn: () => void) => void) | undefined)?.(() => {
          destroyed = true;
          untrack(handle);
        });
        // Pressed as the bundle came (hovering fetches it): the release would land on no button.
        opened ||= !!launcher?.shadowRoot?.querySelector(':active');
        launcher?.remove();
        launcher = null;
        // on() reports a bad name or handler through the 'error' event, it does not throw.
        for (const [name, fn] of listeners.splice(0)) (w['on'] as (n: string, f: Listener) => void)(name, fn);
        // Destroyed before it came: its messages go to the outbox first (as an instance's do when it is
        // destroyed), then the instance is destroyed and the rest reject DESTROYED, asking nothing.
        const queued = calls.splice(0);
        if (destroyed) queued.sort((a, b) => +(a[0] !== 'sendMessage') - +(b[0] !== 'sendMessage'));
        for (const [name, args, ok, fail] of queued) {
          if (destroyed && name !== 'sendMessage') w.destroy();
          try {
            // A misspelt name, queued like any call, rejects through the handle (src/widget/handle.ts).
            ok((w[name] as (...a: unknown[]) => unknown)(...args));
          } catch (e) {
            fail(e);
          }
        }
        if (destroyed) w.destroy();
        else if (opened) (w['open'] as () => void)();
        // The handle the full bundle made (src/widget/handle.ts) keeps this handle's promises; ready is the instance.
        settle.resolve(w['ready'] as Promise<WidgetLike>);
      })
      .catch((e: unknown) => {
        starting = false;
        failed = true;
        const button = launcher?.shadowRoot?.querySelector('button');
        // The visitor is told too, in the full widget's words for a disabled launcher; a click still retries.
        const said = en ? 'Chat unavailable' : 'Chat no disponible';
        button?.removeAttribute('aria-busy');
        button?.setAttribute('aria-label', said);
        button?.setAttribute('title', said);
        button?.setAttribute('aria-disabled', 'true');
        const error = (e as Error)?.name === 'CharlaError' ? e : bootError(`Charla: ${String(e)}`);
        if ((error as BootError).key === 'VALIDATION_ERROR') bad = error;
        settle.reject(error);
        // Every call queued so far settles (a call made later asks for the bundle again). A connect
        // (data-init's, made by this loader) is made again once a later try has loaded the bundle;
        // an open() (or a click) is not: its panel does not open later, unasked.
        opened = false;
        for (const call of calls.splice(0)) {
          call[3](error);
          if (call[0] === 'connect') calls.push(['connect', [], quiet, nop]);
        }
        // A handle the page has let go of says nothing more (nor asks again).
        if (destroyed) return;
        // Loud: a page whose policy blocks the widget must not fail silently.
        console.error(error);
        for (const [name, fn] of listeners) if (name === 'error') fn({ error, operation: 'load' });
      });
    return true;
  };
  const container = opts.container === undefined ? document.body : opts.container;
  const show = (into: HTMLElement) => {
    const label = en ? 'Open chat' : 'Abrir chat';
    launcher = liteLauncher(into, String(opts['position'] ?? 'br'), label, (click) => {
      opened ||= click;
      return start();
    });
    // Read in the widget's language, whatever the page's (as <charla-widget lang>).
    launcher.lang = en ? 'en' : 'es';
    whenIdle(start);
  };
  if (container) {
    if (typeof container.appendChild !== 'function')
      throw bootError('container must be an Element or a shadow root (or null: no element)', 'container');
    show(container);
  } else if (opts.container === undefined) {
    // A tag in <head>: the launcher once there is a body (the whole bundle at once held the page's load).
    document.addEventListener('DOMContentLoaded', () => destroyed || real || show(document.body), {
      once: true,
    });
  } else {
    start();
  }
  const destroy = () => {
    destroyed = true;
    launcher?.remove();
    untrack(handle);
    if (real) real.destroy();
    else start();
    return Promise.resolve();
  };
  /** on/off: the handle, for chaining, before and after the bundle arrived. */
  const on = (name: string, fn: Listener) => {
    if (real) (real['on'] as (n: string, f: Listener) => void)(name, fn);
    else listeners.push([name, fn]);
    return handle;
  };
  const off = (name: string, fn: Listener) => {
    if (real) (real['off'] as (n: string, f: Listener) => void)(name, fn);
    listeners = listeners.filter(([n, f]) => n !== name || f !== fn);
    return handle;
  };
  const handle: WidgetLike = new Proxy({} as WidgetLike, {
    get(_, prop) {
      if (prop === 'ready') return ready;
      if (prop === 'destroy') return destroy;
      if (prop === 'on') return on;
      if (prop === 'off') return off;
      // Not methods: nothing is queued for them (JSON.stringify(handle) would call toJSON).
      if (typeof prop === 'symbol' || isProbe(prop)) return undefined;
      // The full bundle's handle (src/widget/handle.ts): its methods need no binding and return promises.
      if (real) return real[prop];
      // The instance's values (not methods) exist once it does: read them from `await handle.ready`.
      if (prop === 'stores' || prop === 'userId' || prop === 'core' || prop === 'context') {
        if (!warned) console.warn(`Charla: use (await handle.ready).${prop}`);
        warned = true;
        return undefined;
      }
      return (...args: unknown[]) =>
        new Promise((ok, fail) => {
          if (bad) return fail(bad);
          if (prop === 'open') opened = true;
          if (prop === 'close') opened = false;
          calls.push([prop, args, ok, fail]);
          if (failed) start();
        });
    },
  });
  return handle;
}

/**
 * Sets up window.Charla (once per page; a second script tag reuses it),
 * creates the data-init widget of `script`, runs queued calls and
 * dispatches `charla:load`. The loader's boot: widgets are lazy handles
 * until the full bundle (`loadFull`) has arrived.
 */
export function boot(
  script: HTMLOrSVGScriptElement | null,
  loadFull: () => Promise<FullApi>,
  version: string,
): CharlaGlobal {
  let full: Promise<FullApi> | null = null;
  const load = (): Promise<FullApi> => {
    full ??= loadFull().catch((e: unknown) => {
      full = null;
      throw e;
    });
    return full;
  };
  return setUp(script, version, load, (opts, untrack) =>
    window.__charlaFull ? direct(window.__charlaFull, opts, untrack) : lazyHandle(opts, load, untrack),
  );
}

/**
 * boot() for the self-contained bundle, which is its own full bundle: widgets
 * are made at once (the full bundle's handles), so the lazy handle and the
 * lite launcher stay out of charla.iife.js.
 */
export function bootFull(
  script: HTMLOrSVGScriptElement | null,
  full: FullApi,
  version: string,
): CharlaGlobal {
  return setUp(
    script,
    version,
    () => Promise.resolve(full),
    (opts, untrack) => direct(window.__charlaFull ?? full, opts, untrack),
  );
}

/** The Charla object's own maker: a widget from exactly these options (no script defaults). */
type Own = CharlaGlobal & {
  [MARK]?: (opts: BootOptions) => WidgetLike;
  [INITS]?: Map<string, WidgetLike | undefined>;
};

function setUp(
  script: HTMLOrSVGScriptElement | null,
  version: string,
  load: () => Promise<FullApi>,
  make: Maker,
): CharlaGlobal {
  const existing = window.Charla as Own | undefined;
  const queued = Array.isArray(existing) ? existing : [];
  const mine = scriptOptions(script);
  let charla: Own;
  if (existing && !Array.isArray(existing) && existing[MARK]) {
    charla = existing;
  } else {
    const widgets: WidgetLike[] = [];
    const untrack = (w: WidgetLike) => {
      const at = widgets.indexOf(w);
      if (at >= 0) widgets.splice(at, 1);
    };
    const makeOwn = (opts: BootOptions): WidgetLike => {
      const widget = make(opts, untrack);
      widgets.push(widget);
      return widget;
    };
    // Charla.createWidget(options) fills what options leave out from this (the first) script tag;
    // the user's identity only when the call is for that tag's own key.
    const createWidget = (options: BootOptions): WidgetLike => {
      const defaults: Partial<BootOptions> = { ...mine };
      if (options?.apiKey !== undefined && options.apiKey !== mine.apiKey) {
        delete defaults.userId;
        delete defaults['userHash'];
      }
      return makeOwn({ ...defaults, ...options } as BootOptions);
    };
    charla = {
      createWidget,
      widgets,
      version,
      push: (...fns) => {
        for (const fn of fns) {
          if (typeof fn !== 'function') {
            console.warn('Charla.push takes functions; ignored:', fn);
            continue;
          }
          try {
            fn(charla);
          } catch (e) {
            queueMicrotask(() => {
              throw e;
            });
          }
        }
      },
      load,
    };
    Object.defineProperties(charla, { [MARK]: { value: makeOwn }, [INITS]: { value: new Map() } });
    // The page's own window.Charla (not the queue, not an element named Charla) stays the page's.
    if (existing && !Array.isArray(existing) && !(existing instanceof Node))
      console.warn("Charla: window.Charla is the page's; the API is charla:load's detail.Charla");
    else window.Charla = charla;
  }
  let widgetInstance: WidgetLike | undefined;
  // A tag's data-init widget takes that tag's attributes only, whichever tag set up window.Charla.
  // The same tag twice (a page or CMS that repeats the snippet) is one widget, not two launchers,
  // and one charla:load: a repeat says nothing new (unless its widget has been destroyed since).
  const init = (script as HTMLScriptElement | null)?.dataset['init'] === 'true';
  if (init && !mine.apiKey) console.warn('Charla: data-init needs data-api-key');
  const creates = !!mine.apiKey && init;
  const same = JSON.stringify([creates, mine]);
  const inits = charla[INITS] as Map<string, WidgetLike | undefined>;
  const repeat = inits.has(same) && (!creates || charla.widgets.includes(inits.get(same)!));
  if (!repeat) {
    // A tag whose attributes make no widget (a bad data-base-url) says why; the page's queued calls
    // and charla:load go on without it.
    if (creates)
      try {
        widgetInstance = (charla[MARK] as (opts: BootOptions) => WidgetLike)(mine as BootOptions);
        quiet((widgetInstance['connect'] as () => Promise<unknown>)());
      } catch (e) {
        console.error(e);
      }
    inits.set(same, widgetInstance);
    // (A repeat never has queued calls: window.Charla was already the API object.)
    charla.push(...queued);
    document.dispatchEvent(
      new CustomEvent<CharlaLoadDetail>('charla:load', { detail: { widgetInstance, Charla: charla } }),
    );
  }
  return charla;
}
