/**
 * The README's screenshots, taken from the real demo: the customer site with
 * the widget closed and open, a conversation with the bot's rich messages,
 * a phone-sized screen, the group chat, the SPA and the QA console.
 * Written to test-results/e2e/docs/; with UPDATE_DOCS_SCREENSHOTS=1 to
 * docs/screenshots/ as well.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  DEMO_BOT_ID,
  ROOT,
  cspViolations,
  enterBotConversation,
  launcher,
  messageInput,
  messagesRegion,
  need,
  needInList,
  openPage,
  panel,
  shot,
  until,
  visitorBotRoom,
  withServiceAndBrowser,
  type Service,
} from './helpers.ts';

const J = 'docs';
const DOCS = join(ROOT, 'docs', 'screenshots');
const update = process.env['UPDATE_DOCS_SCREENSHOTS'] === '1';
let service: Service;
let browser: Browser;

/** Screenshot into the results, and into docs/screenshots/<name>.png when updating. */
async function capture(page: Page, name: string): Promise<void> {
  const path = await shot(page, J, name);
  if (update) {
    mkdirSync(DOCS, { recursive: true });
    copyFileSync(path, join(DOCS, `${name}.png`));
  }
}

withServiceAndBrowser((started) => ({ service, browser } = started));

describe('README screenshots', () => {
  it('the customer site, closed and open', async () => {
    const { page } = await openPage(browser, `${service.base}/`, { width: 1280, height: 800 });
    await need(launcher(page), 'the launcher');
    await page.waitForTimeout(500);
    await capture(page, 'site-closed');
    await enterBotConversation(page);
    await need(messagesRegion(page).getByRole('button', { name: /^Texto/ }), 'the tour options');
    await page.waitForTimeout(400);
    await capture(page, 'site-open');
    expect(await cspViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('a conversation with rich messages', async () => {
    const { page } = await openPage(browser, `${service.base}/`, { width: 1280, height: 800 });
    const { userId } = await visitorBotRoom(service, page);
    const api = service.api;
    const list = messagesRegion(page);
    await messageInput(page).fill('Hola, ¿a qué hora abrís el sábado?');
    await messageInput(page).press('Enter');
    // The demo bot still waits for a pick from its menu: it answers the text with "No te entendí"
    // and the menu again, whose ten options are taller than this list. The list shows that menu
    // from its start and stops following (by design), so the next message waits behind "new
    // messages", pressed once, as a reader would, on the wait for that message.
    await need(list.getByText(/^No te entendí/), 'the bot’s answer to the text');
    const menu = list.locator('charla-message').filter({ hasText: '¿Qué tipo de mensaje quieres ver?' });
    await until('the bot’s menu again, shown from its start', async () => {
      const [row, view] = await Promise.all([menu.last().boundingBox(), list.boundingBox()]);
      return row && view && Math.abs(row.y - view.y) <= 1 ? true : undefined;
    });
    await api.sendText(DEMO_BOT_ID, userId, 'Los sábados abrimos de 8:30 a 15:00. ¿Quieres reservar algo?');
    await needInList(page, list.getByText(/^Los sábados abrimos/), 'the answer about Saturdays', {
      catchUp: true,
    });
    await api.sendOptions(DEMO_BOT_ID, userId, 'Elige una opción:', {
      options: [
        { title: 'Reservar un roscón', description: 'Con nata, trufa o sin relleno', payload: 'roscon' },
        { title: 'Ver la carta', payload: 'menu' },
        { title: 'Hablar con alguien', payload: 'human' },
      ],
    });
    await needInList(page, list.getByRole('button', { name: /^Reservar un roscón/ }), 'the options');
    await page.waitForTimeout(400);
    await capture(page, 'conversation-options');

    await api.sendContacts(DEMO_BOT_ID, userId, [
      {
        name: { formatted_name: 'Obrador La Espiga' },
        phones: [{ phone: '+34910000000', type: 'WORK' }],
        emails: [{ email: 'obrador@laespiga.example' }],
        addresses: [{ street: 'Calle del Pez 12', city: 'Madrid' }],
      },
    ]);
    await needInList(page, list.getByText('Obrador La Espiga'), 'the contact card');
    await api.sendVoiceCall(DEMO_BOT_ID, userId, {
      header: 'Soporte',
      text: '¿Prefieres que te llamemos?',
      displayText: 'Llamar ahora',
    });
    await needInList(page, list.getByRole('button', { name: 'Llamar ahora' }), 'the call button');
    await page.waitForTimeout(400);
    await capture(page, 'conversation-contact-call');

    await api.sendVideo(
      DEMO_BOT_ID,
      userId,
      `${service.base}/media/charla-demo.mp4`,
      'Así se hace nuestro pan',
    );
    await needInList(page, list.locator('video'), 'the video');
    await api.sendContactInfoRequest(
      DEMO_BOT_ID,
      userId,
      '¿Nos dejas tus datos para avisarte cuando esté listo?',
    );
    await needInList(page, list.getByRole('form', { name: /Tus datos de contacto/ }), 'the contact form');
    await until('the video to load', async () =>
      (await list
        .locator('video')
        .last()
        .evaluate((v: HTMLVideoElement) => v.readyState)) >= 2
        ? true
        : undefined,
    );
    await page.waitForTimeout(400);
    await capture(page, 'conversation-video-form');
    await page.context().close();
  });

  it('a phone-sized screen', async () => {
    const { page } = await openPage(browser, `${service.base}/`, { width: 390, height: 780 });
    await enterBotConversation(page);
    await need(messagesRegion(page).getByRole('button', { name: /^Texto/ }), 'the tour options');
    await page.waitForTimeout(400);
    await capture(page, 'mobile');
    await page.context().close();
  });

  it('the group chat, the SPA and the QA console', async () => {
    const { page } = await openPage(browser, `${service.base}/group.html`, { width: 1400, height: 980 });
    const alice = page.frameLocator('iframe[name="alice"]');
    const bob = page.frameLocator('iframe[name="bob"]');
    await need(panel(alice).getByRole('button', { name: /Bob Ruiz/ }), 'Alice’s contacts');
    await panel(alice)
      .getByRole('button', { name: /Bob Ruiz/ })
      .first()
      .click();
    await messageInput(alice).fill('Hola Bob, ¿cerramos el pedido del viernes?');
    await messageInput(alice).press('Enter');
    await need(panel(bob).getByRole('button', { name: /Alice Martín/ }), 'the room on Bob’s side');
    await panel(bob)
      .getByRole('button', { name: /Alice Martín/ })
      .first()
      .click();
    await need(
      messagesRegion(bob).getByText('Hola Bob, ¿cerramos el pedido del viernes?'),
      'Alice’s message at Bob’s',
    );
    await messageInput(bob).fill('Sí, 40 barras y 12 hogazas. Te lo confirmo ahora.');
    await messageInput(bob).press('Enter');
    await need(messagesRegion(alice).getByText(/40 barras/), 'Bob’s answer at Alice’s');
    await page.waitForTimeout(400);
    await capture(page, 'group');
    await page.context().close();

    const spa = await openPage(browser, `${service.base}/spa/destinos`, { width: 1280, height: 800 });
    await need(spa.page.getByRole('button', { name: 'Preguntar por Kioto' }), 'the SPA');
    await until('the SPA widget to connect', async () =>
      (await spa.page.locator('#connection').textContent()) === 'connected' ? true : undefined,
    );
    await spa.page.getByRole('button', { name: 'Preguntar por Kioto' }).click();
    await need(
      messagesRegion(spa.page).getByText('¿Quedan plazas para Kioto?'),
      'the question in the SPA’s widget',
    );
    await spa.page.waitForTimeout(600);
    await capture(spa.page, 'spa');
    await spa.context.close();

    const qa = await openPage(browser, `${service.base}/console.html`, { width: 1400, height: 1000 });
    await until('the console widget', async () =>
      (await qa.page.locator('#state-connection').textContent()) === 'connected' ? true : undefined,
    );
    await need(
      qa.page.locator('#campaign-table tr[data-campaign-id="demo-campaign-completed"]'),
      'the seeded campaigns',
    );
    await capture(qa.page, 'console');
    await qa.page.locator('#http-title').scrollIntoViewIfNeeded();
    await qa.page.waitForTimeout(300);
    await capture(qa.page, 'console-http');
    await qa.context.close();
  });
});
