/**
 * Helpers of the end-to-end journeys: the built widget (built here when
 * dist/ is missing or older than the sources), the real service with the demo
 * seed and static pages on an ephemeral port, Debian's Chromium through
 * playwright-core, pages that record every console error, page error and
 * CSP violation, screenshots under test-results/e2e/, and waits that fail
 * with a message naming the missing piece.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Frame,
  type JSHandle,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.ts';
import * as live from '../../server/live/index.ts';
import type { Config } from '../../server/config.ts';
import { createClient, type CharlaClient } from '../../src/api/index.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS_DIR = join(ROOT, 'test-results', 'e2e');
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const DEMO_BOT_ID = 'demo-bot';
export const DEMO_NORMAL_API_KEY = 'demo-normal-widget-key-0000000000000000';
export const DEMO_GROUP_API_KEY = 'demo-group-widget-key-00000000000000000';

/* ---------------- the build ---------------- */

const ARTEFACTS = [
  'charla.js',
  'api.js',
  'charla.iife.js',
  'charla-loader.iife.js',
  'demo/console.js',
  'demo/spa.js',
  'demo/group-user.js',
];
const SOURCES = ['src', 'types', 'demo/src', 'scripts'];

function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Why dist/ needs building, or null when it is current. */
function staleReason(): string | null {
  const dist = join(ROOT, 'dist');
  const missing = ARTEFACTS.filter((a) => !existsSync(join(dist, a)));
  if (missing.length) return `missing ${missing.map((m) => `dist/${m}`).join(', ')}`;
  const built = Math.min(...ARTEFACTS.map((a) => statSync(join(dist, a)).mtimeMs));
  const source = Math.max(...SOURCES.map((s) => newestMtime(join(ROOT, s))));
  return source > built ? 'sources are newer than dist/' : null;
}

let built = false;

/**
 * Builds once per process when dist/ is missing or stale (`node scripts/build.mjs`,
 * which also builds the demo bundles). E2E_SKIP_BUILD=1 uses dist/ as it is.
 */
export function ensureBuilt(): void {
  if (built || process.env['E2E_SKIP_BUILD'] === '1') return;
  const reason = staleReason();
  if (reason) {
    const run = (script: string) =>
      spawnSync(process.execPath, [join(ROOT, 'scripts', script)], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 300_000,
      });
    const result = run('build.mjs');
    if (result.status !== 0) {
      throw new Error(
        `e2e: dist/ is stale (${reason}) and \`node scripts/build.mjs\` failed:\n${result.stdout}\n${result.stderr}`,
      );
    }
    if (!existsSync(join(ROOT, 'dist', 'demo', 'console.js'))) {
      const demo = run('build-demo.mjs');
      if (demo.status !== 0) throw new Error(`e2e: the demo build failed:\n${demo.stdout}\n${demo.stderr}`);
    }
    const still = staleReason();
    if (still?.startsWith('missing')) throw new Error(`e2e: after building, ${still}`);
  }
  snapshotDist();
  built = true;
}

/**
 * Serves a private copy of dist/ (CHARLA_DIST_DIR, read by server/static.ts):
 * others rebuild dist/ while the journeys run, and a page must not lose its
 * scripts halfway.
 */
function snapshotDist(): void {
  const target = join(RESULTS_DIR, `.dist-${process.pid}`);
  for (let attempt = 0; attempt < 5; attempt++) {
    rmSync(target, { recursive: true, force: true });
    try {
      cpSync(join(ROOT, 'dist'), target, { recursive: true });
    } catch {
      // dist/ was being rewritten: try again.
    }
    if (ARTEFACTS.every((a) => existsSync(join(target, a)))) {
      process.env['CHARLA_DIST_DIR'] = target;
      process.once('exit', () => rmSync(target, { recursive: true, force: true }));
      return;
    }
    spawnSync('sleep', ['2']);
  }
  throw new Error('e2e: could not take a complete copy of dist/ (is a build running?)');
}

/* ---------------- the service ---------------- */

export interface Service {
  app: FastifyInstance;
  base: string;
  api: CharlaClient;
  close(): Promise<void>;
}

/** The real service: in-memory storage, the demo seed, the built widget and the demo pages. */
export async function startService(options: Partial<Config> = {}): Promise<Service> {
  ensureBuilt();
  const app = await buildApp({
    databaseUrl: 'memory://',
    storeTemplate: inject('pgliteSchemaTemplate'),
    reuseStores: true,
    serveStatic: true,
    seedDemo: true,
    logger: false,
    schedulerIntervalMs: 200,
    ...options,
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const api = createClient({
    baseUrl: base,
    clientId: 'demo-client',
    clientSecret: 'demo-secret',
    allowLoopbackHttp: true,
  });
  return { app, base, api, close: () => app.close() };
}

/* ---------------- the browser ---------------- */

/**
 * The worker's Chromium (files of a worker run one after another, sharing its modules): the
 * first file launches it, the next ones use it, each in browser contexts of its own (no cookie,
 * storage, cache or permission passes between contexts) that `releaseBrowser` closes after the
 * file. A launch costs about a second of a core; one gone (crashed, closed) is launched again.
 * Playwright closes it when the worker exits.
 */
let workerBrowser: Browser | undefined;

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: apt-get install -y chromium, or set CHROMIUM_PATH.`,
    );
  }
  if (workerBrowser?.isConnected()) return workerBrowser;
  workerBrowser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
  });
  return workerBrowser;
}

/** A file is done with its browser: the worker's keeps running with none of the file's contexts left; any other closes. */
export async function releaseBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  if (browser !== workerBrowser) return browser.close();
  await Promise.all(browser.contexts().map((context) => context.close().catch(() => undefined)));
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[];
}

/** Records CSP violations in the page (they also reach the console, but this names the blocked URI and directive). */
const CSP_PROBE = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
  });
`;

/** A fresh context and page that record what goes wrong. */
export async function openPage(
  browser: Browser,
  url: string,
  viewport = { width: 1280, height: 900 },
): Promise<Watched> {
  const context = await browser.newContext({ viewport, locale: 'es-ES' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    // Names the address behind a console "Failed to load resource" line.
    if (r.status() >= 400) problems.push(`http ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.on('pageerror', (e) =>
    problems.push(`pageerror: ${e.message} @ ${(e.stack ?? '').split('\n').slice(1, 4).join(' | ')}`),
  );
  await page.addInitScript(CSP_PROBE);
  await page.goto(url);
  return { context, page, problems };
}

/** CSP violations the page recorded (in every frame). */
export async function cspViolations(page: Page): Promise<string[]> {
  const all: string[] = [];
  for (const frame of page.frames()) {
    const v = await frame
      .evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? [])
      .catch(() => []);
    all.push(...v);
  }
  return all;
}

/** Problems except the expected ones (e.g. the failed requests of a network drop). */
export function unexpected(problems: string[], allowed: RegExp[] = []): string[] {
  return problems.filter((p) => !allowed.some((re) => re.test(p)));
}

const shotCounters = new Map<string, number>();
/** Saves a screenshot as test-results/e2e/<journey>/<nn>-<name>.png (the journey's folder is emptied on its first shot). */
export async function shot(page: Page, journey: string, name: string): Promise<string> {
  const dir = join(RESULTS_DIR, journey);
  if (!shotCounters.has(journey)) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const n = (shotCounters.get(journey) ?? 0) + 1;
  shotCounters.set(journey, n);
  const path = join(dir, `${String(n).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path });
  return path;
}

/* ---------------- a journey's lifecycle ---------------- */

/** What a file's hooks close, read when they run (the file's own variables). */
export interface Opened {
  page?: Page;
  browser?: Browser;
  service?: Service;
}

/** After all the file's tests: releases the browser (its contexts closed), then closes the service (each if it was started). */
export function closeAfterAll(opened: () => Opened): void {
  afterAll(async () => {
    const { browser, service } = opened();
    await releaseBrowser(browser);
    await service?.close();
  });
}

/**
 * For files whose tests open their own pages: before all the tests, starts the
 * service, then the browser (the worker's), and hands both over; after them,
 * releases the browser, then closes the service.
 */
export function withServiceAndBrowser(
  started: (opened: { service: Service; browser: Browser }) => void,
  timeout?: number,
): void {
  let service: Service | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    service = await startService();
    browser = await launchBrowser();
    started({ service, browser });
  }, timeout);
  closeAfterAll(() => ({ browser, service }));
}

/**
 * A journey on one page: after a failed test, a screenshot of the page named
 * FAILED-<test name> in the journey's folder; after all its tests, the
 * browser released (its contexts closed), then the service closed.
 */
export function closeJourney(journey: string, opened: () => Opened): void {
  afterEach(async ({ task }) => {
    const { page } = opened();
    if (task.result?.state === 'fail' && page)
      await shot(page, journey, `FAILED-${task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  });
  closeAfterAll(opened);
}

/**
 * For journeys on several pages: after a failed test, a screenshot of each page (those opened
 * so far) named FAILED-<who>-<test name> in the journey's folder.
 */
export function shotPagesOnFailure(journey: string, pages: () => Partial<Record<string, Page>>): void {
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail') return;
    for (const [who, page] of Object.entries(pages()))
      if (page) await shot(page, journey, `FAILED-${who}-${task.name.slice(0, 30).replace(/\W+/g, '-')}`);
  });
}

/**
 * Waits for a locator to be visible; on timeout, fails naming what should
 * have been there and whose work provides it.
 */
export async function need(locator: Locator, what: string, timeout = 15_000): Promise<Locator> {
  try {
    await locator.first().waitFor({ state: 'visible', timeout });
  } catch {
    const seen = await widgetsSeen(locator.page()).catch(
      (e: unknown) => `(could not read the page: ${String(e)})`,
    );
    throw new Error(
      `e2e: expected ${what} within ${timeout} ms, but it did not appear (${String(locator)}). The page had: ${seen}`,
    );
  }
  return locator.first();
}

/**
 * What the page's widgets showed, for a failure's message: each loader launcher and widget
 * launcher with its name, whether the panel was open, and the end of the panel's text (through
 * every shadow root), so a failed wait says whether a click was lost, the panel was empty or a
 * message came in another form.
 */
export async function widgetsSeen(page: Page): Promise<string> {
  return page.evaluate(() => {
    const text = (node: Node): string => {
      if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
      if (node instanceof HTMLElement && (node.hidden || getComputedStyle(node).display === 'none'))
        return '';
      let out = '';
      if (node instanceof Element && node.shadowRoot) out += text(node.shadowRoot);
      for (const child of node.childNodes) out += text(child);
      return node instanceof HTMLElement && /^(DIV|P|LI|BUTTON|SECTION|ARTICLE)$/.test(node.tagName)
        ? ` ${out} `
        : out;
    };
    const parts: string[] = [];
    for (const el of document.querySelectorAll('charla-loader, charla-widget')) {
      const root = el.shadowRoot;
      const button = root?.querySelector('button');
      const dialog = root?.querySelector<HTMLElement>('[role=dialog]');
      const open =
        !!dialog &&
        dialog.getBoundingClientRect().height > 0 &&
        getComputedStyle(dialog).visibility !== 'hidden';
      const said = open && dialog ? text(dialog).replace(/\s+/g, ' ').trim().slice(-400) : '';
      parts.push(
        `<${el.localName}> launcher "${button?.getAttribute('aria-label') ?? '(none)'}"` +
          (el.localName === 'charla-widget' ? `, panel ${open ? `open: "${said}"` : 'closed'}` : ''),
      );
    }
    return parts.length > 0 ? parts.join('; ') : 'no widget';
  });
}

/** Polls fn until it returns something other than undefined, or fails naming what was awaited. */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  timeout = 15_000,
): Promise<T> {
  const end = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) {
      throw new Error(
        `e2e: timed out after ${timeout} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

/* ---------------- the widget in a page ---------------- */

/** The widget's launcher (the loader's or the full one). */
export function launcher(page: Page | ReturnType<Page['frameLocator']>): Locator {
  return page.getByRole('button', { name: /^(Abrir chat|Open chat)/ });
}

/** The widget's message input. */
export function messageInput(scope: Page | ReturnType<Page['frameLocator']>): Locator {
  return scope.getByRole('textbox', { name: /^(Mensaje|Message)$/ });
}

/** The widget's message log (the message list region). */
export function messageLog(scope: Page | ReturnType<Page['frameLocator']>): Locator {
  return scope.getByRole('log');
}

/** Reads the stored messages of a room (oldest first) through the service's storage. */
export async function roomMessages(
  app: FastifyInstance,
  roomId: string,
): Promise<Array<Record<string, unknown> & { id: string }>> {
  const { rows } = await app.charla.db.query<{
    id: string;
    body: Record<string, unknown> | string;
    seq: number;
    status: string;
  }>('SELECT id, body, seq, status FROM messages WHERE room_id = $1 ORDER BY seq', [roomId]);
  return rows.map((r) => ({
    ...(typeof r.body === 'string' ? JSON.parse(r.body) : r.body),
    id: r.id,
    seq: Number(r.seq),
    status: r.status,
  }));
}

/** The bot room of a user with the demo bot (or undefined before it exists). */
export async function botRoomOf(
  app: FastifyInstance,
  userId: string,
  botId = DEMO_BOT_ID,
): Promise<string | undefined> {
  const { rows } = await app.charla.db.query<{ id: string }>('SELECT id FROM rooms WHERE room_key = $1', [
    `bot:${botId}:${userId}`,
  ]);
  return rows[0]?.id;
}

/** A user id unique to this run. */
export function uniqueUser(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

type Scope = Page | ReturnType<Page['frameLocator']>;

/** The widget's panel (a dialog). */
export function panel(scope: Scope): Locator {
  return scope.locator('charla-widget').getByRole('dialog');
}

/** The visible message list of the open room. */
export function messagesRegion(scope: Scope): Locator {
  return scope.getByRole('region', { name: /^(Mensajes|Messages)$/ });
}

/** Own messages' status marks that say the service has the message (DELIVERED or beyond). */
export function deliveredMarks(scope: Scope): Locator {
  return messagesRegion(scope).getByRole('img', { name: /^(Enviado|Entregado|Leído|Sent|Delivered|Read)$/ });
}

/** The user's own message in the list whose text is exactly `text` (a POSTBACK shows the chosen title). */
export function ownMessage(scope: Scope, text: string | RegExp): Locator {
  return messagesRegion(scope)
    .locator('charla-message[own]')
    .filter({ has: scope.getByText(text, { exact: true }) })
    .last();
}

/**
 * Clicks a bot's option (or chip, or call button) in the message list and waits for the
 * user's answer to show as their own message (`answer`, the POSTBACK's text).
 *
 * Playwright scrolls the button into view just before its pointer events. While the list
 * follows its newest row, a pass of its layout under way then (rows being measured, statuses
 * arriving) holds the bottom and can move the view between pointerdown and pointerup, so that
 * no click reaches the button (the known gap in CHANGELOG.md; about 1 click in 50 when a long
 * message's first options still sat above the view). A click that does reach it shows the
 * answer at once (optimistically), so the click is repeated while no answer shows. An option
 * is answered once: one already disabled took an earlier click, whose answer is waited for
 * instead of clicking again (which would wait for the button to be enabled).
 */
export async function chooseInList(scope: Scope, button: Locator, answer: string | RegExp): Promise<void> {
  const answered = ownMessage(scope, answer);
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1 && (await button.getAttribute('aria-disabled')) === 'true') {
      await need(answered, `the answer "${String(answer)}" to the click on ${String(button)}`);
      return;
    }
    await button.click();
    try {
      await answered.waitFor({ state: 'visible', timeout: 3_000 });
      return;
    } catch {
      if (attempt === 3)
        throw new Error(
          `e2e: clicked ${String(button)} ${attempt} times, and no answer "${String(answer)}" showed`,
        );
    }
  }
}

/**
 * Opens the panel (when closed) and gets to the conversation with the bot:
 * straight there, or through the home menu's room list.
 */
export async function enterBotConversation(scope: Scope, botName = 'Charla'): Promise<void> {
  const input = messageInput(scope);
  if (
    !(await panel(scope)
      .isVisible()
      .catch(() => false))
  ) {
    await need(launcher(scope), 'the launcher button "Abrir chat" (widget UI, issue 6)');
    await launcher(scope).first().click();
  }
  await need(panel(scope), 'the chat panel (role dialog) after clicking the launcher');
  const room = panel(scope).getByRole('button', { name: new RegExp(botName) });
  const which = await until('the conversation or the home menu to show', async () => {
    if (await input.isVisible().catch(() => false)) return 'chat';
    if (
      await room
        .first()
        .isVisible()
        .catch(() => false)
    )
      return 'home';
    return undefined;
  });
  if (which === 'home') await room.first().click();
  await need(input, 'the message input (composer) of the bot conversation');
}

/** The user id of the page's first widget (the loader makes one for a visitor and keeps it). */
export async function visitorId(page: Page | Frame): Promise<string> {
  return page.evaluate(async () => {
    const charla = (
      window as unknown as { Charla: { widgets: Array<{ ready: Promise<{ userId: string }> }> } }
    ).Charla;
    return (await charla.widgets[0]!.ready).userId;
  });
}

/** The `group` widget of a demo page (`/group-user.html`): `window.groupWidget`, as a handle of type `H`. */
export function groupWidgetOf<H>(page: Page): Promise<JSHandle<H>> {
  return page.evaluateHandle(
    () => (window as unknown as { groupWidget: H }).groupWidget,
  ) as unknown as Promise<JSHandle<H>>;
}

/**
 * Opens `/group-user.html?user=<id>` for each of `users` (a context each, in order), then waits
 * until every page's group widget is connected.
 */
export async function openGroupUsers<W extends string>(
  browser: Browser,
  service: Service,
  users: Record<W, string>,
  { viewport, timeout }: { viewport?: { width: number; height: number }; timeout?: number } = {},
): Promise<Record<W, Watched>> {
  const who = Object.keys(users) as W[];
  const opened = {} as Record<W, Watched>;
  for (const w of who)
    opened[w] = await openPage(browser, `${service.base}/group-user.html?user=${users[w]}`, viewport);
  type Connection = { stores: { $connection: { get(): string } } };
  const connected = async (page: Page) =>
    (await (await groupWidgetOf<Connection>(page)).evaluate((g) => g.stores.$connection.get())) ===
    'connected';
  for (const w of who)
    await until(
      `${w}’s widget to connect`,
      async () => (await connected(opened[w].page)) || undefined,
      timeout,
    );
  return opened;
}

/**
 * On the customer site: opens the conversation with the demo bot, waits for its greeting and
 * gives the visitor's user id and their room with the bot.
 */
export async function visitorBotRoom(
  service: Service,
  page: Page,
): Promise<{ userId: string; roomId: string }> {
  await enterBotConversation(page);
  await need(messagesRegion(page).getByText(/Soy el bot de demostración/), 'the demo bot greeting');
  const userId = await visitorId(page);
  const roomId = await until('the visitor’s bot room', () => botRoomOf(service.app, userId));
  return { userId, roomId };
}

/**
 * Drops live sockets from the service side (a network cut that offline
 * emulation alone does not make: it leaves open WebSockets alone): every
 * socket, or only those of one user.
 */
export async function dropLiveSockets(app: FastifyInstance, userId?: string): Promise<number> {
  const sockets = await liveSockets(app, userId);
  for (const s of sockets) s.disconnect(true);
  return sockets.length;
}

/** The live sockets the service holds: every one, or those of one user. */
export async function liveSockets(
  app: FastifyInstance,
  userId?: string,
): Promise<{ data?: { userId?: string }; disconnect(close?: boolean): void }[]> {
  type Sock = { data?: { userId?: string }; disconnect(close?: boolean): void };
  type Io = { fetchSockets(): Promise<Sock[]> };
  const parts = (live as { liveOf?: (a: FastifyInstance) => { io?: Io } }).liveOf?.(app);
  const io = parts?.io ?? (app as unknown as { charlaLive?: { io?: Io } }).charlaLive?.io;
  if (!io) throw new Error('e2e: cannot reach the live side’s socket.io server (liveOf(app).io)');
  return (await io.fetchSockets()).filter((s) => userId === undefined || s.data?.userId === userId);
}

/** The outcome of a QA console form: its state and what it showed. */
export interface FormOutcome {
  state: 'ok' | 'error';
  text: string;
  /** The shown value parsed as JSON (undefined when it is not JSON). */
  value: any;
}

/**
 * Fills the fields of a QA console form, named by name or label (checkboxes take 'true'/'false'),
 * runs it and waits for its result.
 */
export async function runConsoleForm(
  page: Page,
  name: string,
  values: Record<string, string> = {},
): Promise<FormOutcome> {
  const form = page.getByRole('form', { name, exact: true });
  await need(form, `the QA console form "${name}"`);
  for (const [field, value] of Object.entries(values)) {
    // By the field's name, else by its label.
    const byName = form.locator(`[name="${field}"]`);
    const input = (await byName.count()) === 1 ? byName : form.getByLabel(field, { exact: true });
    const tag = await input.evaluate((el) => `${el.tagName}:${(el as HTMLInputElement).type}`);
    if (tag === 'INPUT:checkbox') await input.setChecked(value === 'true');
    else if (tag.startsWith('SELECT')) await input.selectOption(value);
    else await input.fill(value);
  }
  const result = form.locator('pre[data-result]');
  // A fresh run: the form marks its result pending at once.
  await form.getByRole('button', { name: 'Ejecutar' }).click();
  const state = await until(`the console form "${name}" to answer`, async () => {
    const s = await result.getAttribute('data-state');
    return s === 'ok' || s === 'error' ? s : undefined;
  });
  const text = (await result.textContent()) ?? '';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  return { state, text, value };
}

/** The message list's "new messages" button (it shows while the list does not follow and messages wait below). */
export function newMessagesButton(scope: Scope): Locator {
  return scope.locator('charla-widget').getByRole('button', { name: /^(Mensajes nuevos|New messages)/ });
}

/**
 * Waits for something in the message list, which must be following its newest message: the
 * "new messages" button showing meanwhile, or beside what was awaited, is a failure of its own.
 * The list stops following when the user scrolls up, and by design when someone else's message
 * taller than the list arrives (it is shown from its start). For a wait after such a message,
 * `catchUp` presses the button when it shows, as a reader does, and waits until the list
 * follows again.
 */
export async function needInList(
  scope: Scope,
  locator: Locator,
  what: string,
  { timeout = 15_000, catchUp = false }: { timeout?: number; catchUp?: boolean } = {},
): Promise<Locator> {
  const jump = newMessagesButton(scope).first();
  let stoppedFollowing = false;
  await until(
    what,
    async () => {
      const shown = await locator
        .first()
        .isVisible()
        .catch(() => false);
      // The button shows no later than the row that arrived below: checked after the row, a
      // row that is there with its button is not taken for a list that follows.
      if (await jump.isVisible().catch(() => false)) {
        if (!catchUp) return (stoppedFollowing = true);
        await jump.click().catch(() => undefined);
        return undefined;
      }
      return shown ? true : undefined;
    },
    timeout,
  );
  if (stoppedFollowing) {
    throw new Error(`e2e: the message list stopped following the newest message while waiting for ${what}`);
  }
  return locator.first();
}

const AXE_SOURCE = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
let axeSource: string | undefined;
/** The WCAG 2.2 AA rules of axe-core. */
export const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * axe-core's violations in a page or frame, one line each (rule, help, the elements and
 * why): within `context` (axe's: a selector, or { include, exclude }), for the rules
 * tagged `tags`, with `rules` switched as given. The page must let the script run (a
 * context with bypassCSP).
 */
export async function axeViolations(
  target: Page | Frame,
  context: string | { include?: string[][]; exclude?: string[][] },
  { tags = WCAG_AA, rules = {} }: { tags?: string[]; rules?: Record<string, { enabled: boolean }> } = {},
): Promise<string[]> {
  if (!(await target.evaluate(() => 'axe' in window)))
    await target.evaluate((axeSource ??= readFileSync(AXE_SOURCE, 'utf8')));
  return target.evaluate(
    async ({ context, tags, rules }) => {
      const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
      const result = await axe.run(context as import('axe-core').ElementContext, {
        runOnly: { type: 'tag', values: tags },
        rules,
        resultTypes: ['violations'],
      });
      return result.violations.map(
        (v) =>
          `${v.id}: ${v.help} (${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary}`).join(' | ')})`,
      );
    },
    { context, tags, rules },
  );
}

/** axe-core's WCAG 2.2 AA violations inside the page's `<charla-widget>`. */
export function widgetAxeViolations(page: Page): Promise<string[]> {
  return axeViolations(page, 'charla-widget');
}
