/**
 * The script-tag boot, shared by the small loader (src/loader.ts) and the
 * self-contained bundle (src/iife.ts). No imports: the loader's budget is
 * 3 KB gzip.
 *
 * `window.Charla` becomes `{ createWidget, widgets, version, push, load }`:
 * - `createWidget(options)` returns a handle at once. Until the full bundle
 *   has loaded, the handle shows a small launcher and queues every method
 *   call (each returns a promise of the real method's result); afterwards it
 *   forwards to the real WidgetInstance. `await handle.ready` gives the
 *   WidgetInstance itself. Once the full bundle is on the page (always, in
 *   charla.iife.js: bootFull), it returns the real WidgetInstance.
 * - Functions queued before the script arrived
 *   (`window.Charla = window.Charla || []; Charla.push(fn)`) are called with
 *   the Charla object once it is set up; `Charla.push(fn)` later calls fn at once.
 * - `charla:load` is dispatched on document with `detail.widgetInstance`
 *   (the handle) when `data-init="true"` created one, and `detail.Charla`.
 */

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
const CSS =
  ':host{all:initial}button{position:fixed;z-index:2147483000;width:56px;height:56px;border:0;border-radius:50%;' +
  'background:var(--charla-color-primary,#2563eb);color:var(--charla-color-on-primary,#fff);cursor:pointer;display:grid;' +
  'place-items:center;box-shadow:0 6px 20px rgba(0,0,0,.22);padding:0}button:focus-visible{outline:3px solid #111;outline-offset:2px}' +
  'button[data-p^=b]{bottom:24px}button[data-p^=t]{top:24px}button[data-p$=r]{right:calc(24px + var(--s,0px))}' +
  'button[data-p$=l]{left:calc(24px + var(--s,0px))}' +
  'button[aria-busy=true]{opacity:.8;cursor:progress}svg{width:28px;height:28px;fill:currentColor}';

/** A launcher drawn with plain DOM in a shadow root, styled by a constructable stylesheet (strict CSP safe). */
function liteLauncher(
  container: HTMLElement,
  position: string,
  label: string,
  onUse: () => void,
): HTMLElement {
  const host = document.createElement('charla-loader');
  const root = host.attachShadow({ mode: 'open' });
  const button = document.createElement('button');
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.setAttribute('part', 'launcher');
  const p = position.replace(/(\w)\w*-(\w)\w*/, '$1$2');
  const corner = /^[bt][lr]$/.test(p) ? p : 'br';
  button.dataset['p'] = host.dataset['p'] = corner;
  // Launchers in the same corner sit side by side, as the full widget's do.
  const before = document.querySelectorAll(`charla-loader[data-p=${corner}]`).length;
  if (before) button.style.setProperty('--s', `${before * 68}px`);
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
    // No constructable stylesheets: position through the CSSOM (never a style attribute string).
    const s = button.style;
    s.position = 'fixed';
    s.bottom = s.right = '24px';
    s.width = s.height = '56px';
    s.borderRadius = '50%';
  }
  root.appendChild(button);
  const use = () => {
    button.setAttribute('aria-busy', 'true');
    onUse();
  };
  button.addEventListener('click', use);
  for (const ev of ['pointerenter', 'focus']) button.addEventListener(ev, () => onUse(), { once: true });
  container.appendChild(host);
  return host;
}

/** Runs `fn` when the browser is idle (or after a short delay). */
function whenIdle(fn: () => void): void {
  const ric = (globalThis as { requestIdleCallback?: (cb: () => void, o: { timeout: number }) => number })
    .requestIdleCallback;
  if (ric) ric(fn, { timeout: 3000 });
  else setTimeout(fn, 1500);
}

/** Injects the full bundle next to `src`; resolves once it registered itself. */
export function scriptLoader(src: string, nonce?: string): () => Promise<FullApi> {
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
      let url: string = src;
      try {
        if (tt)
          url = tt
            .createPolicy('charla-loader', { createScriptURL: (u) => (u === src ? u : '') })
            .createScriptURL(src);
      } catch {
        // A page that lists its policies and not ours: try the plain address.
      }
      s.src = url;
      s.async = true;
      if (nonce) s.nonce = nonce;
      s.addEventListener('load', () =>
        window.__charlaFull
          ? resolve(window.__charlaFull)
          : reject(new Error('charla: the full bundle did not register')),
      );
      s.addEventListener('error', () => reject(new Error(`charla: could not load ${src}`)));
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

/** The full bundle is on the page: the real instance, no handle in between. */
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
  const calls: [string, unknown[], (v: unknown) => void, (e: unknown) => void][] = [];
  const ready = new Promise<WidgetLike>((resolve, reject) => {
    // Idle time, hover, focus and click all ask for the bundle: only the first makes the widget.
    let starting = false;
    const start = (): void => {
      if (destroyed || starting) return;
      starting = true;
      void load().then(
        (api) => {
          if (destroyed) return;
          real = api.createWidget(opts);
          launcher?.remove();
          launcher = null;
          for (const [name, args, ok, fail] of calls.splice(0)) {
            try {
              ok((real[name] as (...a: unknown[]) => unknown)(...args));
            } catch (e) {
              fail(e);
            }
          }
          if (opened) (real['open'] as () => void)();
          resolve(real);
        },
        (e: unknown) => {
          starting = false;
          launcher?.removeAttribute('aria-busy');
          reject(e);
        },
      );
    };
    const container = opts.container === undefined ? document.body : opts.container;
    if (container) {
      const label = opts['language'] === 'en' ? 'Open chat' : 'Abrir chat';
      launcher = liteLauncher(container, String(opts['position'] ?? 'br'), label, () => {
        opened ||= true;
        start();
      });
      whenIdle(start);
    } else {
      start();
    }
  });
  ready.catch(() => undefined);
  const destroy = () => {
    destroyed = true;
    launcher?.remove();
    untrack(handle);
    (real as WidgetLike | null)?.destroy();
  };
  const handle: WidgetLike = new Proxy({} as WidgetLike, {
    get(_, prop) {
      if (prop === 'ready') return ready;
      if (prop === 'destroy') return destroy;
      if (prop === 'then' || typeof prop === 'symbol') return undefined;
      if (real) {
        const v = real[prop];
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(real) : v;
      }
      return (...args: unknown[]) =>
        new Promise((ok, fail) => {
          if (prop === 'open') opened = true;
          if (prop === 'close') opened = false;
          calls.push([prop, args, ok, fail]);
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
 * are real instances at once, so the lazy handle and the lite launcher stay
 * out of charla.iife.js.
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
type Own = CharlaGlobal & { [MARK]?: (opts: BootOptions) => WidgetLike };

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
    Object.defineProperty(charla, MARK, { value: makeOwn });
    window.Charla = charla;
  }
  let widgetInstance: WidgetLike | undefined;
  // A tag's data-init widget takes that tag's attributes only, whichever tag set up window.Charla.
  if (mine.apiKey && (script as HTMLScriptElement).dataset['init'] === 'true') {
    widgetInstance = (charla[MARK] as (opts: BootOptions) => WidgetLike)(mine as BootOptions);
    (widgetInstance['connect'] as () => Promise<unknown>)().catch(() => undefined);
  }
  charla.push(...queued);
  document.dispatchEvent(
    new CustomEvent<CharlaLoadDetail>('charla:load', { detail: { widgetInstance, Charla: charla } }),
  );
  return charla;
}
