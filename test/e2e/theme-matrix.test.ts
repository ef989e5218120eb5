/**
 * Journey: the theming matrix of the widget configuration, on a customer site
 * on another origin than the service, with the documented script tag; each
 * widget made over the HTTP API with its theme. `theme.position` in all four
 * corners (launcher and open panel at 1280 × 900 and 320 × 640),
 * `theme.status`, `theme.font` with `googlefont` on a page whose CSP blocks
 * Google Fonts (the system font, and nothing in the console but the CSP's own
 * report), brand colours very light (#ffff00, #ffffff) and very dark
 * (#000000), and `colorScheme: 'auto'` in a dark system: axe (WCAG 2.2 AA) on
 * the open chat with messages finds nothing in each.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  chooseInList,
  launcher,
  messageInput,
  messagesRegion,
  need,
  panel,
  until,
  widgetAxeViolations,
} from './helpers.ts';
import { hostileSite, placement, shopPage, themedWidget } from './host-page-site.ts';

const site = hostileSite();

interface Visit {
  page: Page;
  /** Console errors and warnings, and page errors. */
  console: string[];
}

async function visit(
  name: string,
  theme: Record<string, unknown>,
  {
    viewport = { width: 1280, height: 900 },
    csp,
    colorScheme = 'light',
  }: { viewport?: { width: number; height: number }; csp?: string; colorScheme?: 'light' | 'dark' } = {},
): Promise<Visit> {
  const key = await themedWidget(site.service, theme);
  // No favicon request: every console line is the widget's or the CSP's.
  const url = site.page(name, shopPage(site.service, key, { head: '<link rel="icon" href="data:,">' }), csp);
  const context = await site.browser.newContext({ viewport, locale: 'es-ES', colorScheme });
  const page = await context.newPage();
  const lines: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') lines.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
  await page.goto(url);
  return { page, console: lines };
}

/**
 * The launcher's and the panel's placement, once their transitions and animations are over
 * (the launcher grows a little under the pointer and shrinks back when it leaves, the panel
 * rises as it opens).
 */
async function rects(page: Page) {
  await page.mouse.move(0, 0);
  await page.evaluate(async () => {
    const root = document.querySelector('charla-widget')!.shadowRoot!;
    const animations = [...root.querySelectorAll('.launcher, .panel')].flatMap((el) => el.getAnimations());
    await Promise.all(animations.map((a) => a.finished.catch(() => undefined)));
  });
  return { launcher: await placement(page, 'launcher'), panel: await placement(page, 'panel') };
}

/** Opens the chat, chooses an option (answered by the bot), sends a text and waits for its DELIVERED mark. */
async function chatWithMessages(page: Page): Promise<void> {
  await need(launcher(page), 'the launcher');
  await launcher(page).click();
  await need(panel(page), 'the chat panel after the click on the launcher');
  const list = messagesRegion(page);
  const option = list.getByRole('button', { name: /^Texto/ });
  await need(option, 'the demo bot’s tour options');
  await chooseInList(page, option.last(), 'Texto');
  await need(list.getByText(/Esto es un mensaje de texto/), 'the bot’s answer to the chosen option');
  await messageInput(page).fill('¿Hay pan sin gluten?');
  await messageInput(page).press('Enter');
  await need(list.getByRole('img', { name: /^(Enviado|Entregado|Leído)$/ }), 'a DELIVERED mark');
}

/** The full widget is there and has its configuration's position. */
async function placedBy(page: Page, position: string): Promise<void> {
  await page.waitForFunction(
    (p) =>
      document.querySelector('charla-widget')?.getAttribute('position') === p && !!(window as any).Charla,
    position,
  );
}

const CORNERS = {
  'bottom-right': { right: true, bottom: true },
  'bottom-left': { right: false, bottom: true },
  'top-right': { right: true, bottom: false },
  'top-left': { right: false, bottom: false },
} as const;

describe('journey: theme.position in every corner', () => {
  for (const [position, { right, bottom }] of Object.entries(CORNERS)) {
    it(`${position}: the launcher and the open panel at 1280 × 900 and 320 × 640`, async () => {
      /** The launcher's box in this corner of a viewport, 24 px in from its edges, on top. */
      const inCorner = (width: number, height: number) => ({
        x: right ? width - 24 - 56 : 24,
        y: bottom ? height - 24 - 56 : 24,
        w: 56,
        h: 56,
        top: true,
      });
      const wide = await visit(`pos-${position}`, { position });
      await placedBy(wide.page, position);
      const closed = await until('the launcher', () => rects(wide.page).then((r) => r.launcher ?? undefined));
      expect(closed).toEqual(inCorner(1280, 900));
      await chatWithMessages(wide.page);
      const open = await rects(wide.page);
      // 380 × 640 beside the launcher's edge, 12 px above (or below) it; the launcher stays where it was.
      expect(open.panel).toEqual({
        x: right ? 1280 - 24 - 380 : 24,
        y: bottom ? 900 - 24 - 56 - 12 - 640 : 24 + 56 + 12,
        w: 380,
        h: 640,
        top: true,
      });
      expect(open.launcher).toEqual(closed);
      expect(wide.console).toEqual([]);
      await wide.page.context().close();

      const phone = await visit(
        `pos-${position}-320`,
        { position },
        { viewport: { width: 320, height: 640 } },
      );
      await placedBy(phone.page, position);
      const small = await until('the launcher', () => rects(phone.page).then((r) => r.launcher ?? undefined));
      expect(small).toEqual(inCorner(320, 640));
      await chatWithMessages(phone.page);
      // Full screen; the launcher is hidden under it (the panel has its own close button).
      expect(await rects(phone.page)).toEqual({
        launcher: null,
        panel: { x: 0, y: 0, w: 320, h: 640, top: true },
      });
      expect(phone.console).toEqual([]);
      await phone.page.context().close();
    });
  }
});

describe('journey: theme colours, status and scheme, axe on the open chat with messages', () => {
  for (const [name, theme, colorScheme] of [
    ['status line', { status: true }, 'light'],
    ['brand #ffff00', { primaryColor: '#ffff00' }, 'light'],
    ['brand #ffffff', { primaryColor: '#ffffff' }, 'light'],
    ['brand #000000', { primaryColor: '#000000' }, 'light'],
    ["colorScheme 'auto' in a dark system", { colorScheme: 'auto', status: true }, 'dark'],
    ["colorScheme 'auto', dark, brand #ffff00", { colorScheme: 'auto', primaryColor: '#ffff00' }, 'dark'],
    ["colorScheme 'auto', dark, brand #000000", { colorScheme: 'auto', primaryColor: '#000000' }, 'dark'],
  ] as const) {
    it(`${name}: no violations`, async () => {
      const v = await visit(`theme-${name.replace(/\W+/g, '-')}`, theme, { colorScheme });
      await chatWithMessages(v.page);
      if ('status' in theme)
        await need(
          v.page.locator('charla-widget').getByRole('status').getByText('En línea'),
          'the status line',
        );
      expect(await widgetAxeViolations(v.page)).toEqual([]);
      expect(v.console).toEqual([]);
      await v.page.context().close();
    });
  }
});

describe('journey: a Google font the page’s CSP blocks', () => {
  it('falls back to the system font; the console has the CSP’s report only', async () => {
    const v = await visit(
      'font-csp',
      { font: { name: 'Lobster', googlefont: true } },
      { csp: "style-src 'self' 'unsafe-inline'; font-src 'self'" },
    );
    await chatWithMessages(v.page);
    const family = await v.page.evaluate(
      () =>
        getComputedStyle(document.querySelector('charla-widget')!.shadowRoot!.querySelector('charla-chat')!)
          .fontFamily,
    );
    expect(family).toMatch(/^"?Lobster"?, system-ui/);
    // No font face came from anywhere: the stylesheet that declares it was refused.
    expect(await v.page.evaluate(() => document.fonts.size)).toBe(0);
    expect(v.console).toEqual([
      // Chromium words it 'Refused to load the stylesheet …' or 'Loading the stylesheet … violates …'.
      expect.stringMatching(
        /^error: .*stylesheet 'https:\/\/fonts\.googleapis\.com\/.*Content Security Policy/,
      ),
    ]);
    expect(await widgetAxeViolations(v.page)).toEqual([]);
    await v.page.context().close();
  });
});

describe('journey: data-position before the configuration arrives', () => {
  it('the full widget sits where the tag says until the configuration is there (no jump from bottom-right)', async () => {
    const key = await themedWidget(site.service, { position: 'top-left' });
    const url = site.page(
      'data-position',
      shopPage(site.service, key, {
        head: '<link rel="icon" href="data:,">',
        tag: 'data-position="top-left"',
      }),
    );
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    // The configuration never arrives: the service's API and socket do not answer.
    await page.route(/\/(v1|socket\.io)\//, () => undefined);
    await page.goto(url);
    await page.evaluate(async () => {
      await (window as unknown as { Charla: { widgets: Array<{ ready: Promise<unknown> }> } }).Charla
        .widgets[0]!.ready;
    });
    await page.waitForFunction(() => !document.querySelector('charla-loader'));
    expect(await until('the launcher', () => rects(page).then((r) => r.launcher ?? undefined))).toEqual({
      x: 24,
      y: 24,
      w: 56,
      h: 56,
      top: true,
    });
    await context.close();
  });
});
