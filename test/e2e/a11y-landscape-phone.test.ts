/**
 * The visitor's widget on the demo site, on a landscape phone (320 × 256 CSS px, also 1280 px at
 * 400 % zoom), against the real service: the composer stays usable (1.4.10, 2.4.11) and the
 * message log announces the bot's answers once each, never the user's own message nor the
 * history a reload brings back (4.1.3).
 */
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  enterBotConversation,
  messageInput,
  messageLog,
  messagesRegion,
  need,
  openPage,
  until,
  withServiceAndBrowser,
  type Service,
} from './helpers.ts';

let service: Service;
let browser: Browser;
withServiceAndBrowser((o) => ({ service, browser } = o));

describe('journey: the widget on a 320 × 256 screen', () => {
  it('the composer is not covered, nothing scrolls sideways, and the log reads each answer once', async () => {
    const { page, context } = await openPage(browser, `${service.base}/`, { width: 320, height: 256 });
    await enterBotConversation(page);
    const input = messageInput(page);
    // A click's actionability check fails when another element (the message list) would take it.
    await input.click({ trial: true, timeout: 5_000 });
    await page
      .getByRole('button', { name: 'Enviar' })
      .click({ trial: true, force: false, timeout: 5_000 })
      .catch(() => {
        // Disabled while the field is empty: its box is checked below instead.
      });
    // The list keeps to its box: the virtualizer's inline min-height of 150 px ran it over the composer.
    const listBottom = await page
      .locator('charla-message-list .scroller')
      .evaluate((el) => el.getBoundingClientRect().bottom);
    const composerTop = await page
      .locator('charla-composer')
      .evaluate((el) => el.getBoundingClientRect().top);
    expect(listBottom - 1).toBeLessThanOrEqual(composerTop);
    const box = await input.boundingBox();
    expect(box && box.y + box.height).toBeLessThanOrEqual(256);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);

    const log = messageLog(page).locator('p');
    await need(messagesRegion(page).getByText('¿Qué tipo de mensaje quieres ver?'), 'the greeting');
    // The greeting is read or not depending on whether it came before the list was there.
    const before = await log.count();
    await input.fill('Hola');
    await input.press('Enter');
    const read = await until('the bot’s answers in the log', async () => {
      const texts = (await log.allTextContents()).slice(before);
      return texts.length >= 2 ? texts : undefined;
    });
    expect(read.every((t) => t.startsWith('Nuevo mensaje de Charla: '))).toBe(true);
    expect(read.some((t) => t.includes('No te entendí'))).toBe(true);
    expect(new Set(read).size, 'each answer once').toBe(read.length);
    expect(read.some((t) => t.includes('Hola'))).toBe(false);

    await page.reload();
    await enterBotConversation(page);
    await until('the history after the reload', async () =>
      (await page.locator('charla-message').count()) > 0 ? true : undefined,
    );
    expect(await log.count(), 'history brought back by a reload is not announced').toBe(0);
    await input.click({ trial: true, timeout: 5_000 });
    await context.close();
  });
});
