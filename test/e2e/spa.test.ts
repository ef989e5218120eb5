/**
 * The SPA demo (`/spa/`): an app built on Charla's ESM build changes routes
 * with history.pushState and keeps one widget — the same instance, socket and
 * conversation — across every route change and the back button; a reload on
 * a deep route is served the app and finds the conversation again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  botRoomOf,
  closeJourney,
  cspViolations,
  enterBotConversation,
  launchBrowser,
  messagesRegion,
  need,
  openPage,
  panel,
  roomMessages,
  shot,
  startService,
  unexpected,
  until,
  type Service,
} from './helpers.ts';

const J = 'spa';
let service: Service;
let browser: Browser;
let page: Page;
let problems: string[];

const pageLoadId = () => page.locator('#page-load-id').textContent();
async function connected(): Promise<boolean> {
  return (await page.locator('#connection').textContent()) === 'connected';
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, `${service.base}/spa/`));
  await until('the SPA’s widget to connect', async () => ((await connected()) ? true : undefined), 20_000);
});

closeJourney(J, () => ({ page, browser, service }));

describe('the SPA demo keeps the conversation across route changes', () => {
  let loadId: string | null;
  let userId: string;

  it('asks from the Destinos route: the widget opens and the question is sent', async () => {
    loadId = await pageLoadId();
    // Mark the instance so a re-created one would be noticed.
    await page.evaluate(
      () => ((window as unknown as { spaWidget: { __mark?: string } }).spaWidget.__mark = 'first'),
    );
    await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Destinos' }).click();
    await need(page.getByRole('heading', { name: 'Destinos' }), 'the Destinos route');
    expect(new URL(page.url()).pathname).toBe('/spa/destinos');
    await page.getByRole('button', { name: 'Preguntar por Lisboa' }).click();
    await need(panel(page), 'the panel opened by the app (widgetInstance.open)');
    await need(
      messagesRegion(page).getByText('¿Quedan plazas para Lisboa?'),
      'the question sent by the app (widgetInstance.sendMessage)',
    );
    await shot(page, J, 'destinos');
    userId = await page.evaluate(
      () => (window as unknown as { spaWidget: { userId: string } }).spaWidget.userId,
    );
  });

  it('changes routes without reloading; the panel, socket and messages stay', async () => {
    for (const [link, heading, path] of [
      ['Reserva', 'Reserva', '/spa/reserva'],
      ['Ayuda', 'Ayuda', '/spa/ayuda'],
      ['Inicio', 'Viajes con calma, planeados contigo', '/spa/'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: link }).click();
      await need(page.getByRole('heading', { name: heading }), `the ${link} route`);
      expect(new URL(page.url()).pathname).toBe(path);
      expect(await pageLoadId()).toBe(loadId);
      expect(await connected()).toBe(true);
      await need(
        messagesRegion(page).getByText('¿Quedan plazas para Lisboa?'),
        `the conversation still on screen on ${path}`,
      );
    }
    await page.goBack();
    await need(page.getByRole('heading', { name: 'Ayuda' }), 'the Ayuda route after the back button');
    expect(await pageLoadId()).toBe(loadId);
    expect(Number(await page.locator('#nav-count').textContent())).toBeGreaterThanOrEqual(4);
    expect(
      await page.evaluate(() => (window as unknown as { spaWidget: { __mark?: string } }).spaWidget.__mark),
    ).toBe('first');
    expect(await page.locator('charla-widget').count()).toBe(1);
    await shot(page, J, 'after-navigation');
  });

  it('the booking form sends an EVENT message through the widget', async () => {
    await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Reserva' }).click();
    await page.getByLabel('Destino').selectOption('kioto');
    await page.getByLabel('Personas').fill('3');
    await page.getByRole('button', { name: 'Pedir presupuesto por el chat' }).click();
    await need(page.getByText('Enviado: te respondemos en el chat.'), 'the booking confirmation');
    const roomId = await until('the SPA user’s room', () => botRoomOf(service.app, userId));
    const event = await until('the EVENT stored', async () =>
      (await roomMessages(service.app, roomId)).find((m) => m['type'] === 'EVENT'),
    );
    expect(event).toMatchObject({
      slug: 'quote_requested',
      eventPayload: { destination: 'kioto', people: '3' },
    });
    expect(await pageLoadId()).toBe(loadId);
  });

  it('a reload on a deep route serves the app, and the conversation comes back from the service', async () => {
    await page.reload();
    await need(page.getByRole('heading', { name: 'Reserva' }), 'the Reserva route after a reload');
    expect(await pageLoadId()).not.toBe(loadId);
    await until(
      'the widget to reconnect after the reload',
      async () => ((await connected()) ? true : undefined),
      20_000,
    );
    await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Ayuda' }).click();
    await page.getByRole('button', { name: 'Abrir el chat' }).click();
    await enterBotConversation(page);
    // The same user, and the room's history from the service holds the question asked before the reload.
    expect(
      await page.evaluate(() => (window as unknown as { spaWidget: { userId: string } }).spaWidget.userId),
    ).toBe(userId);
    const texts = await page.evaluate(async () => {
      const w = (
        window as unknown as {
          spaWidget: {
            stores: { $currentRoomId: { get(): string | null } };
            getMessages(o: { roomId: string; limit: number }): Promise<Array<{ text?: string }>>;
          };
        }
      ).spaWidget;
      const roomId = w.stores.$currentRoomId.get();
      return roomId ? (await w.getMessages({ roomId, limit: 50 })).map((m) => m.text ?? '') : [];
    });
    expect(texts).toContain('¿Quedan plazas para Lisboa?');
    await shot(page, J, 'after-reload');
  });

  it('ran under the strict CSP without errors', async () => {
    expect(await cspViolations(page)).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });
});
