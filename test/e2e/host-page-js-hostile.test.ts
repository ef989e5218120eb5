/**
 * Journey: a customer site whose JavaScript is hostile to embedded widgets,
 * on another origin than the service, with the documented script tag. Before
 * the tag, the page adds enumerable properties to Array.prototype and
 * Object.prototype, wraps fetch, XMLHttpRequest, WebSocket, Promise,
 * setTimeout and addEventListener the way Zone.js, analytics and
 * session-replay tools do, patches customElements.define, loads another Lit,
 * overrides JSON and Date serialisation (Prototype.js), uses window.Charla for
 * itself, or has a tag manager inject the tag. Each time the widget loads,
 * connects, sends and receives, and the page's own code keeps working; or it
 * says clearly in the console why it cannot.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  botRoomOf,
  chooseInList,
  launcher,
  messageInput,
  messagesRegion,
  need,
  openPage,
  roomMessages,
  unexpected,
  until,
} from './helpers.ts';
import { hostileSite, shopPage, themedWidget } from './host-page-site.ts';

const site = hostileSite();

/** The page's script, run before the documented tag. */
async function visit(
  name: string,
  script: string,
  tag = '',
  edit = (html: string) => html,
): Promise<{ page: Page; problems: string[] }> {
  const key = await themedWidget(site.service);
  // No favicon request: every console error is the widget's or the page's.
  const head = `<link rel="icon" href="data:,"><script>${script}</script>`;
  const html = shopPage(site.service, key, { head, tag });
  const { page, problems } = await openPage(site.browser, site.page(name, edit(html)));
  return { page, problems };
}

/** The page's first widget, through `window[api]` (the Charla object). */
async function firstWidget(page: Page, api: string): Promise<string> {
  await page.waitForFunction((api) => (window as any)[api]?.widgets?.[0], api);
  return page.evaluate(async (api) => {
    const w = await (window as any)[api].widgets[0].ready;
    return w.userId as string;
  }, api);
}

/**
 * Greeting received, an option chosen and answered, a text typed and stored
 * by the service; `api` is the global the page reaches the Charla object by.
 */
async function converses(page: Page, api = 'Charla'): Promise<void> {
  const userId = await firstWidget(page, api);
  // By role, not by the element's tag (which a page can take for its own element).
  await launcher(page).click();
  const list = messagesRegion(page);
  await need(list.getByText(/Soy el bot de demostración de Charla/), 'the bot’s greeting');
  const option = list.getByRole('button', { name: /^Texto/ });
  await need(option, 'the demo bot’s tour options');
  await chooseInList(page, option.last(), 'Texto');
  await need(list.getByText(/Esto es un mensaje de texto/), 'the bot’s answer to the chosen option');
  const text = `¿Hay pan? ${Date.now()}`;
  await messageInput(page).fill(text);
  await messageInput(page).press('Enter');
  const roomId = await until('the bot room', () => botRoomOf(site.service.app, userId));
  const stored = await until('the text stored', async () =>
    (await roomMessages(site.service.app, roomId)).find((m) => m['type'] === 'TEXT' && m['text'] === text),
  );
  expect(stored['senderId']).toBe(userId);
  const postback = (await roomMessages(site.service.app, roomId)).find((m) => m['type'] === 'POSTBACK');
  expect(postback?.['payload'], 'the option’s payload arrives as an object').toBeTypeOf('object');
  await need(
    list.getByRole('img', { name: /^(Enviado|Entregado|Leído)$/ }),
    'a DELIVERED mark on the sent text',
  );
}

const PROTOTYPES = `
Array.prototype.remove = function (x) { const i = this.indexOf(x); if (i >= 0) this.splice(i, 1); return this; };
Array.prototype.last = function () { return this[this.length - 1]; };
Array.prototype.flags = 'array-flag';
Object.prototype.extend = function (o) { for (const k in o) this[k] = o[k]; return this; };
Object.prototype.isEmpty = function () { return Object.keys(this).length === 0; };
Object.prototype.owner = 'page';
`;

const WRAPPERS = `
(() => {
  const later = () => new Promise((r) => setTimeout(r, 5));
  const f = window.fetch;
  window.fetch = async function (...a) { await later(); return f.apply(this, a); };
  const X = window.XMLHttpRequest;
  const open = X.prototype.open, send = X.prototype.send, setHeader = X.prototype.setRequestHeader;
  X.prototype.open = function (...a) { this.__replay = a[1]; return open.apply(this, a); };
  X.prototype.send = function (...a) { setTimeout(() => send.apply(this, a), 0); };
  X.prototype.setRequestHeader = function (...a) { return setHeader.apply(this, a); };
  const WS = window.WebSocket;
  window.WebSocket = new Proxy(WS, { construct(t, a) { const s = Reflect.construct(t, a); window.__sockets = (window.__sockets || 0) + 1; return s; } });
  const P = window.Promise;
  class ZoneAwarePromise extends P {}
  window.Promise = ZoneAwarePromise;
  const st = window.setTimeout;
  window.setTimeout = function (fn, ms, ...rest) { return st.call(window, typeof fn === 'function' ? function () { return fn.apply(this, arguments); } : fn, ms, ...rest); };
  const ael = EventTarget.prototype.addEventListener, rel = EventTarget.prototype.removeEventListener;
  const wrapped = new WeakMap();
  EventTarget.prototype.addEventListener = function (type, fn, o) {
    let w = fn;
    if (typeof fn === 'function') { w = wrapped.get(fn) || function (e) { return fn.call(this, e); }; wrapped.set(fn, w); }
    return ael.call(this, type, w, o);
  };
  EventTarget.prototype.removeEventListener = function (type, fn, o) { return rel.call(this, type, wrapped.get(fn) || fn, o); };
})();
`;

/** Zone.js's way: window.Promise becomes another implementation (not a subclass) that keeps to the contract. */
const ZONE_PROMISE = `
(() => {
  const N = window.Promise;
  const wrap = (p) => { const z = Object.create(ZP.prototype); z.p = p; return z; };
  function ZP(ex) { if (!(this instanceof ZP)) throw new TypeError('ZoneAwarePromise'); this.p = new N(ex); }
  ZP.prototype.then = function (a, b) { return wrap(this.p.then(a, b)); };
  ZP.prototype.catch = function (b) { return wrap(this.p.catch(b)); };
  ZP.prototype.finally = function (f) { return wrap(this.p.finally(f)); };
  for (const k of ['resolve', 'reject', 'all', 'allSettled', 'race', 'any']) ZP[k] = (v) => wrap(N[k](v));
  ZP.withResolvers = () => { let resolve, reject; const promise = new ZP((a, b) => { resolve = a; reject = b; }); return { promise, resolve, reject }; };
  window.Promise = ZP;
})();
`;

/** Session-replay tools watch shadow roots and constructable stylesheets (rrweb's way): wrappers that call through. */
const SESSION_REPLAY = `
(() => {
  const log = (window.replayed = []);
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) { const r = attach.call(this, init); log.push('shadow'); new MutationObserver(() => {}).observe(r, { childList: true, subtree: true, attributes: true, characterData: true }); return r; };
  for (const proto of [ShadowRoot.prototype, Document.prototype]) {
    const d = Object.getOwnPropertyDescriptor(proto, 'adoptedStyleSheets');
    Object.defineProperty(proto, 'adoptedStyleSheets', { configurable: true, get() { return d.get.call(this); }, set(v) { log.push('sheets'); d.set.call(this, v); } });
  }
  const replaceSync = CSSStyleSheet.prototype.replaceSync, insertRule = CSSStyleSheet.prototype.insertRule;
  CSSStyleSheet.prototype.replaceSync = function (t) { log.push('replaceSync'); return replaceSync.call(this, t); };
  CSSStyleSheet.prototype.insertRule = function (...a) { return insertRule.apply(this, a); };
  const define = customElements.define;
  customElements.define = function (...a) { log.push('define'); return define.apply(this, a); };
})();
`;

describe('journey: the widget on a page with hostile JavaScript', () => {
  for (const [name, script] of [
    ['enumerable properties on Array.prototype and Object.prototype', PROTOTYPES],
    ['fetch, XHR, WebSocket, Promise, setTimeout and addEventListener wrapped', WRAPPERS],
    ['a Zone.js-style Promise that is not a subclass', ZONE_PROMISE],
    ['session-replay patches of attachShadow, adoptedStyleSheets, CSSStyleSheet and define', SESSION_REPLAY],
    [
      'customElements.define patched to throw on a redefinition',
      `const def = customElements.define.bind(customElements);
       const seen = new Set();
       customElements.define = function (n, c, o) { if (seen.has(n)) throw new Error('scoping shim: ' + n + ' already defined'); seen.add(n); return def(n, c, o); };`,
    ],
    [
      'another Lit on the page',
      `window.litHtmlVersions = ['2.8.0']; window.reactiveElementVersions = ['1.6.3']; window.litElementVersions = ['3.3.3'];
       trustedTypes.createPolicy('lit-html', { createHTML: (s) => s });`,
    ],
  ] as const) {
    it(`${name}: loads, connects, sends and receives; no errors`, async () => {
      const { page, problems } = await visit(name.replace(/\W+/g, '-'), script);
      await converses(page);
      expect(unexpected(problems)).toEqual([]);
      // The page's own properties are as it made them: enumerable, and its for-in loops see them.
      expect(
        await page.evaluate(() => {
          const seen: string[] = [];
          for (const k in {}) seen.push(k);
          return seen.join();
        }),
      ).toBe(name.startsWith('enumerable') ? 'extend,isEmpty,owner' : '');
      await page.context().close();
    });
  }

  // socket.io's encoder calls JSON.stringify on ['event', data], and Prototype.js's Array.prototype.toJSON
  // made that a string: the service dropped the connection and the widget reconnected about twice a second,
  // for ever. The widget's JSON now sets those methods aside (src/util/json.ts).
  it('Prototype.js-style toJSON on Array, Date and String: loads, connects, sends and receives', async () => {
    const { page, problems } = await visit(
      'prototype-js',
      `Array.prototype.toJSON = function () { return '[' + this.map((x) => JSON.stringify(x)).join(', ') + ']'; };
       Date.prototype.toJSON = function () { return '"' + this.getUTCFullYear() + '-' + (this.getUTCMonth() + 1) + '"'; };
       String.prototype.toJSON = function () { return JSON.stringify(this.valueOf()); };`,
    );
    await converses(page);
    expect(unexpected(problems)).toEqual([]);
    await page.context().close();
  });
});

describe('journey: a page that uses Lit itself, with Trusted Types required', () => {
  const LIT = `<link rel="icon" href="data:,"><script>trustedTypes.createPolicy('lit-html', { createHTML: (s) => s });</script>`;
  const page = async (name: string, csp: string) => {
    const key = await themedWidget(site.service);
    return openPage(site.browser, site.page(name, shopPage(site.service, key, { head: LIT }), csp));
  };

  it("the CSP lists lit-html with 'allow-duplicates': the widget works", async () => {
    const { page: p, problems } = await page(
      'tt-duplicates',
      "require-trusted-types-for 'script'; trusted-types lit-html charla-loader 'allow-duplicates'",
    );
    await converses(p);
    expect(unexpected(problems)).toEqual([]);
    await p.context().close();
  });

  it("without 'allow-duplicates': the widget cannot start, the console says why, the page keeps working", async () => {
    const { page: p, problems } = await page(
      'tt-no-duplicates',
      "require-trusted-types-for 'script'; trusted-types lit-html charla-loader",
    );
    const outcome = await p.evaluate(() =>
      (window as any).Charla.widgets[0].ready.then(
        () => 'ready',
        (e: { code: string }) => e.code,
      ),
    );
    expect(outcome).toBe('E0007');
    // The visitor is told as well: the launcher is named, and titled, as unavailable.
    const launcher = p.getByRole('button', { name: 'Chat no disponible' });
    expect(await launcher.getAttribute('title')).toBe('Chat no disponible');
    expect(await launcher.getAttribute('aria-disabled')).toBe('true');
    expect(problems.join('\n')).toMatch(/TrustedTypePolicy named 'lit-html'[^\n]*'allow-duplicates'/);
    // And the loader's own line points to it (it asked 'did this page's CSP must allow …?').
    expect(problems.join('\n')).toMatch(
      /charla\.iife\.js did not start \(see the error above, or: this page's CSP must allow the Trusted Types policies charla-loader lit-html\)/,
    );
    // The page's own button still works.
    await p.evaluate(() =>
      document.getElementById('buy')!.addEventListener('click', () => (document.title = 'ok')),
    );
    await p.click('#buy');
    expect(await p.title()).toBe('ok');
    await p.context().close();
  });
});

/** The page keeps its console's warnings in window.warnings (the widget's say why it took another name). */
const KEEP_WARNINGS = `window.warnings = []; const w = console.warn;
  console.warn = function (...a) { window.warnings.push(a.map(String).join(' ')); return w.apply(this, a); };`;

describe('journey: the page already uses the names the widget uses', () => {
  it('window.Charla is the page’s own object: it stays the page’s, the widget works and the console says why', async () => {
    const { page, problems } = await visit(
      'own-charla',
      `window.Charla = { wave() { return 'hola desde la página'; } };
       document.addEventListener('charla:load', (e) => { window.charlaApi = e.detail.Charla; });
       ${KEEP_WARNINGS}`,
    );
    await converses(page, 'charlaApi');
    expect(await page.evaluate(() => (window as any).Charla.wave())).toBe('hola desde la página');
    expect(await page.evaluate(() => (window as any).warnings)).toEqual([
      expect.stringMatching(/window\.Charla/),
    ]);
    expect(unexpected(problems)).toEqual([]);
    await page.context().close();
  });

  it('a micro-frontend shim refuses every tag outside its namespace: the console says the widget cannot show', async () => {
    const { page, problems } = await visit(
      'refused-define',
      `const def = customElements.define.bind(customElements);
       customElements.define = function (n, c, o) { if (!n.startsWith('shop-')) throw new Error('mf-shim: only shop-* elements'); return def(n, c, o); };`,
    );
    await page.evaluate(async () => {
      await (window as any).Charla.widgets[0].ready;
    });
    expect(problems.join('\n')).toMatch(
      /Charla: <charla-widget> could not be defined: the widget cannot show\. Error: mf-shim: only shop-\* elements/,
    );
    await page.context().close();
  });

  it('the page defines its own <charla-widget>: it is left alone, and the widget works', async () => {
    const { page, problems } = await visit(
      'own-element',
      `customElements.define('charla-widget', class extends HTMLElement { connectedCallback() { this.textContent = 'el de la página'; } });
       window.addEventListener('DOMContentLoaded', () => document.body.prepend(document.createElement('charla-widget')));
       ${KEEP_WARNINGS}`,
    );
    await converses(page);
    expect(await page.evaluate(() => (window as any).warnings)).toEqual([
      'Charla: this page defines its own <charla-widget>; the widget is <charla-widget-2> here',
    ]);
    expect(await page.evaluate(() => document.querySelector('charla-widget')!.textContent)).toBe(
      'el de la página',
    );
    expect(unexpected(problems)).toEqual([]);
    await page.context().close();
  });
});

describe('journey: the tag injected by a tag manager', () => {
  it('an async tag made by script (document.createElement), with its data-* attributes: works', async () => {
    const key = await themedWidget(site.service);
    const inject = `<script>(function () { var s = document.createElement('script'); s.async = true;
      s.src = ${JSON.stringify(`${site.service.base}/charla.js`)}; s.setAttribute('data-api-key', ${JSON.stringify(key)});
      s.setAttribute('data-init', 'true'); s.setAttribute('data-user-id', 'gtm-' + Date.now());
      document.head.appendChild(s); })();</script>`;
    const html = shopPage(site.service, key).replace(/<script src=[\s\S]*?<\/script>/, inject);
    const { page, problems } = await openPage(site.browser, site.page('gtm', html));
    await converses(page);
    expect(unexpected(problems, [/favicon/, /404/])).toEqual([]);
    await page.context().close();
  });

  it('a document.currentScript polyfill that answers the last script of the document: works', async () => {
    const { page, problems } = await visit(
      'current-script',
      `Object.defineProperty(document, 'currentScript', { configurable: true, get() { const s = document.getElementsByTagName('script'); return s[s.length - 1]; } });`,
      'async',
      // Another script after the tag: the polyfill answers that one while the async tag runs.
      (html) => html.replace('</body>', '<script>window.analytics = [];</script></body>'),
    );
    await converses(page);
    expect(unexpected(problems)).toEqual([]);
    await page.context().close();
  });
});
