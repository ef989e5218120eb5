/**
 * The hostile customer site of the host-page-* journeys: pages served on
 * another origin than the service (localhost beside the service's 127.0.0.1),
 * each with its own head, attributes and Content-Security-Policy, embedding
 * the documented script tag; widgets made over the HTTP API with a theme.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { beforeAll } from 'vitest';
import { BASIC } from '../service/helpers/live.ts';
import { withServiceAndBrowser, type Service } from './helpers.ts';

export interface Site {
  service: Service;
  browser: Browser;
  origin: string;
  /** Serves `html` at `/<name>` (with `csp` as its Content-Security-Policy, and `headers`); returns the address. */
  page(name: string, html: string, csp?: string, headers?: Record<string, string>): string;
}

/** The service, the browser and the customer's site, started before the file's tests. */
export function hostileSite(): Site {
  const pages = new Map<string, { html: string; csp?: string; headers?: Record<string, string> }>();
  const site = { pages } as unknown as Site;
  let server: Server;
  withServiceAndBrowser(({ service, browser }) => Object.assign(site, { service, browser }));
  beforeAll(async () => {
    server = createServer((req, res) => {
      const p = pages.get((req.url ?? '').split('?')[0]!);
      const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8', ...p?.headers };
      if (p?.csp) headers['content-security-policy'] = p.csp;
      res.writeHead(p ? 200 : 404, headers);
      res.end(p?.html ?? '');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    site.origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    return () => new Promise<void>((r) => server.close(() => r()));
  });
  site.page = (name, html, csp, headers) => {
    pages.set(`/${name}`, { html, csp, headers });
    return `${site.origin}/${name}`;
  };
  return site;
}

/** A widget of the demo bot made over the HTTP API with this theme; its API key. */
export async function themedWidget(service: Service, theme: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${service.base}/v1/widget/create`, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({ bot: { id: 'demo-bot' }, widget: { properties: { type: 'normal' }, theme } }),
  });
  if (res.status !== 200) throw new Error(`widget creation: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { ApiKey: { key: string } } }).data.ApiKey.key;
}

/** The documented script tag (data-init) of the widget `apiKey`, with `attrs` added. */
export function documentedTag(service: Service, apiKey: string, attrs = ''): string {
  return `<script src="${service.base}/charla.js" data-api-key="${apiKey}" data-init="true" ${attrs}></script>`;
}

/**
 * A shop page: `head` in its head, `attrs` on <html>, `body` (a shop's by default) and the
 * documented tag at the end of body, with `tag` as further attributes (false: no tag) and the
 * visitor `userId` (a new shopper by default).
 */
export function shopPage(
  service: Service,
  apiKey: string,
  {
    head = '',
    attrs = 'lang="es"',
    body = `<header id="site-header">Tienda</header><main><h1>Ofertas</h1><p id="copy">Pan sin gluten, recién hecho.</p>
<button id="buy" type="button">Comprar</button><a id="more" href="#more">Más</a></main>`,
    tag = '' as string | false,
    userId = `shopper-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
  }: { head?: string; attrs?: string; body?: string; tag?: string | false; userId?: string } = {},
): string {
  const script = tag === false ? '' : documentedTag(service, apiKey, `${tag} data-user-id="${userId}"`);
  return `<!doctype html><html ${attrs}><head><meta charset="utf-8"><title>Tienda</title>${head}</head>
<body>${body}
${script}</body></html>`;
}

/** The real WidgetInstance of the page's first widget (waits for the full bundle). */
export async function firstWidgetReady(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as { Charla?: { widgets?: unknown[] } }).Charla?.widgets?.[0]);
  await page.evaluate(async () => {
    await (window as unknown as { Charla: { widgets: Array<{ ready: Promise<unknown> }> } }).Charla
      .widgets[0]!.ready;
  });
}

/** Calls a method of the page's first widget. */
export async function callWidget(page: Page, method: string): Promise<void> {
  await page.evaluate(async (m) => {
    const w = await (
      window as unknown as { Charla: { widgets: Array<{ ready: Promise<Record<string, () => void>> }> } }
    ).Charla.widgets[0]!.ready;
    w[m]!();
  }, method);
}

/**
 * Where a part of the widget is and whether it is what the page shows there: its rectangle
 * (rounded) and `top` when the element at its centre is the widget; null while it is not
 * there or takes no space (a hidden launcher, a closed panel).
 */
export async function placement(
  page: Page,
  which: 'launcher' | 'panel' | 'close',
): Promise<{ x: number; y: number; w: number; h: number; top: boolean } | null> {
  return page.evaluate((which) => {
    const host = document.querySelector('charla-widget') ?? document.querySelector('charla-loader');
    const root = host?.shadowRoot;
    const el =
      which === 'launcher'
        ? root?.querySelector('button')
        : which === 'panel'
          ? root?.querySelector('.panel')
          : root?.querySelector('charla-chat')?.shadowRoot?.querySelector('header button');
    const b = el?.getBoundingClientRect();
    if (!host || !b?.width) return null;
    const hit = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
    return {
      x: Math.round(b.x),
      y: Math.round(b.y),
      w: Math.round(b.width),
      h: Math.round(b.height),
      top: hit === host,
    };
  }, which);
}
