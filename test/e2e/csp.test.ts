/**
 * The widget UI under a strict Content-Security-Policy with Trusted Types
 * required, in real Chromium: every view and message kind renders and the
 * browser reports zero violations. The page script is bundled from
 * csp-page.ts; the built script-tag bundle (dist/charla.iife.js) is checked
 * too when `npm run build` has made it.
 */
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { ensureBuilt } from './helpers.ts';
import { build } from 'vite';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CSP = "script-src 'self'; style-src 'self'; require-trusted-types-for 'script'";
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const BUNDLE = join(root, 'dist', 'charla.iife.js');

let out: string;
let server: Server;
let origin: string;
let browser: Browser;

function page(script: string): string {
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>CSP</title></head><body><main><h1>Tienda</h1></main><script src="${script}"></script></body></html>`;
}

beforeAll(async () => {
  // The script-tag bundle as built now (built when dist/ is missing or stale), never skipped.
  ensureBuilt();
  out = mkdtempSync(join(tmpdir(), 'charla-csp-'));
  await build({
    configFile: false,
    logLevel: 'silent',
    root,
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      outDir: out,
      emptyOutDir: true,
      minify: false,
      lib: {
        entry: join(root, 'test/e2e/csp-page.ts'),
        formats: ['iife'],
        name: 'CspPage',
        fileName: () => 'page.js',
      },
    },
  });
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (type: string, body: string | Buffer) => {
      res.writeHead(200, { 'content-type': type, 'content-security-policy': CSP });
      res.end(body);
    };
    if (url.pathname === '/') return send('text/html; charset=utf-8', page('/page.js'));
    if (url.pathname === '/bundle') return send('text/html; charset=utf-8', page('/charla.iife.js'));
    if (url.pathname === '/page.js')
      return send('text/javascript; charset=utf-8', readFileSync(join(out, 'page.js')));
    if (url.pathname === '/charla.iife.js' && existsSync(BUNDLE))
      return send('text/javascript; charset=utf-8', readFileSync(BUNDLE));
    if (url.pathname === '/pixel.png') return send('image/png', PIXEL);
    res.writeHead(404, { 'content-security-policy': CSP });
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('widget UI under a strict CSP with Trusted Types', () => {
  it('renders every view and message kind with zero violations', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const console: string[] = [];
    tab.on('console', (m) => {
      if (
        m.type() === 'error' &&
        /Content Security Policy|Trusted Type|TrustedHTML|TrustedScript/i.test(m.text())
      )
        console.push(m.text());
    });
    const pageErrors: string[] = [];
    tab.on('pageerror', (e) => pageErrors.push(e.message));
    await tab.goto(`${origin}/`);
    await tab.waitForFunction(
      () => (window as unknown as { __csp?: { done: boolean } }).__csp?.done === true,
      null,
      { timeout: 30_000 },
    );
    const report = (await tab.evaluate(() => (window as unknown as { __csp: unknown }).__csp)) as {
      violations: string[];
      errors: string[];
      steps: Record<string, number>;
    };
    const consoleBeforeControl = [...console];
    const pageErrorsBeforeControl = [...pageErrors];
    // Control: the policy is really in force here and the page would have reported a breach.
    const control = await tab.evaluate(async () => {
      let trustedTypesEnforced = false;
      try {
        document.body.insertAdjacentHTML('beforeend', '<b>x</b>');
      } catch {
        trustedTypesEnforced = true;
      }
      const b = document.createElement('b');
      b.setAttribute('style', 'color: red');
      document.body.append(b);
      await new Promise((r) => setTimeout(r, 100));
      return {
        trustedTypesEnforced,
        violations: (window as unknown as { __csp: { violations: string[] } }).__csp.violations.length,
      };
    });
    await context.close();
    expect(control).toEqual({ trustedTypesEnforced: true, violations: 2 });
    expect(report.steps['launcher']).toBe(1);
    expect(report.steps['home']).toBe(1);
    expect(report.steps['roomContacts']).toBe(1);
    expect(report.steps['messages']).toBe(report.steps['messagesHeld']);
    expect(report.violations).toEqual([]);
    expect(report.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
    expect(pageErrorsBeforeControl).toEqual([]);
    expect(consoleBeforeControl).toEqual([]);
    expect(console.length).toBeGreaterThan(0);
  });

  it('the built script-tag bundle defines its elements with zero violations', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Trusted Type/i.test(m.text()))
        problems.push(m.text());
    });
    tab.on('pageerror', (e) => problems.push(e.message));
    await tab.goto(`${origin}/bundle`);
    const defined = await tab.evaluate(async () => {
      await customElements.whenDefined('charla-widget');
      // A widget as the bundle makes it (an element without a widget behind it draws nothing);
      // it talks to no service before connect().
      const charla = (window as unknown as { Charla: { createWidget(o: object): unknown } }).Charla;
      charla.createWidget({ apiKey: 'csp-test-key', baseUrl: location.origin });
      const el = document.querySelector('charla-widget');
      await new Promise((r) => setTimeout(r, 200));
      return !!el?.shadowRoot?.querySelector('[part=launcher]');
    });
    await context.close();
    expect(defined).toBe(true);
    expect(problems).toEqual([]);
  });
});
