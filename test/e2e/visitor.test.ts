/**
 * Journey: a visitor on the customer site (`/`, the script tag with
 * data-init) opens the widget, gets the demo bot's greeting, picks an option,
 * sends a text and an image, and sees each of their messages marked
 * DELIVERED; the service holds exactly what the visitor sees. The page runs
 * under the demo's strict CSP with no violation and no error.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  ROOT,
  botRoomOf,
  chooseInList,
  cspViolations,
  enterBotConversation,
  launcher,
  messageInput,
  messagesRegion,
  need,
  openPage,
  ownMessage,
  roomMessages,
  shot,
  unexpected,
  until,
  visitorId,
  withServiceAndBrowser,
  type Service,
} from './helpers.ts';

const J = 'visitor';
const DELIVERED = /^(Enviado|Entregado|Leído)$/;

let service: Service;
let browser: Browser;

withServiceAndBrowser((started) => ({ service, browser } = started));

describe('journey: a visitor on the customer site', () => {
  it('opens the widget, gets the greeting, picks an option, sends text and an image, and sees DELIVERED marks', async () => {
    const { page, problems } = await openPage(browser, `${service.base}/`);
    await need(launcher(page), 'the launcher of the script-tag loader (/charla.js, issue 5)');
    await shot(page, J, 'site-closed');

    await enterBotConversation(page);
    const list = messagesRegion(page);
    await need(
      list.getByText(/Soy el bot de demostración de Charla/),
      'the demo bot greeting (live flows, issue 4)',
    );
    const textOption = list.getByRole('button', { name: /^Texto/ });
    await need(textOption, 'the tour options rendered as buttons (options renderer, issue 6)');
    await shot(page, J, 'greeting');

    // Who is this visitor? The loader made a user id and kept it.
    const userId = await visitorId(page);
    expect(userId).toBeTruthy();
    const roomId = await until('the visitor’s bot room', () => botRoomOf(service.app, userId));

    // Pick an option: it goes back as a POSTBACK, marked DELIVERED, and the bot answers it.
    await chooseInList(page, textOption.last(), 'Texto');
    await need(list.getByText(/Esto es un mensaje de texto/), 'the bot’s answer to the chosen option');
    await shot(page, J, 'option-chosen');
    await need(
      ownMessage(page, 'Texto').getByRole('img', { name: DELIVERED }),
      'a DELIVERED mark on the chosen option (POSTBACK)',
    );
    const afterOption = await roomMessages(service.app, roomId);
    const postback = afterOption.find((m) => m['type'] === 'POSTBACK' && m['senderId'] === userId);
    expect(postback, 'the chosen option is stored as a POSTBACK').toBeDefined();
    expect(postback!['payload']).toBeTypeOf('object');

    // Send a text: it shows at once, then gets its DELIVERED mark.
    const text = `¿Tenéis pan sin gluten? ${Date.now()}`;
    await messageInput(page).fill(text);
    await messageInput(page).press('Enter');
    await need(
      ownMessage(page, text).getByRole('img', { name: DELIVERED }),
      'a DELIVERED mark on the sent text',
    );

    // Send an image through the composer's file input.
    await page
      .locator('charla-widget')
      .locator('input[type="file"]')
      .setInputFiles(join(ROOT, 'demo', 'media', 'pan.png'));
    const image = list
      .locator('charla-message')
      .filter({ has: page.getByRole('button', { name: /Ver imagen en grande|Open image/ }) });
    await need(image, 'the uploaded image rendered in the list');
    await need(image.last().getByRole('img', { name: DELIVERED }), 'a DELIVERED mark on the sent image');
    await shot(page, J, 'conversation');

    // The service holds the three, DELIVERED, and nothing of the visitor's failed or waits.
    const stored = (await roomMessages(service.app, roomId)).filter((m) => m['senderId'] === userId);
    expect(stored.map((m) => m['type']).sort()).toEqual(['IMAGE', 'POSTBACK', 'TEXT']);
    expect(stored.every((m) => m['status'] !== 'FAILED' && m['status'] !== 'CREATED')).toBe(true);
    expect(stored.find((m) => m['type'] === 'TEXT')!['text']).toBe(text);
    expect(await list.getByRole('img', { name: /^(Enviando|No enviado)$/ }).count()).toBe(0);

    // Nothing doubled: one row per message id.
    const ids = (await roomMessages(service.app, roomId)).map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);

    expect(await cspViolations(page)).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });
});
