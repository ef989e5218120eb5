/**
 * Journey: a visitor whose system forces its colours (Windows high contrast,
 * emulated with forced-colors: active) still sees where the launcher and
 * each message bubble are: backgrounds are dropped in that mode, so their
 * shapes must come from a border or an outline, which the system then paints.
 */
import { describe, expect, it } from 'vitest';
import type { Browser, Locator } from 'playwright-core';
import {
  enterBotConversation,
  launcher,
  messageInput,
  messagesRegion,
  need,
  openPage,
  withServiceAndBrowser,
  type Service,
} from './helpers.ts';

let service: Service;
let browser: Browser;
withServiceAndBrowser((started) => ({ service, browser } = started));

/** The edge the system paints around an element in forced colours: a visible border or outline, or null. */
async function paintedEdge(el: Locator, closest = '*'): Promise<string | null> {
  return el.evaluate((start, selector) => {
    const cs = getComputedStyle(start.closest(selector)!);
    const visible = (style: string, width: string, color: string) =>
      style !== 'none' && parseFloat(width) > 0 && !/rgba\(.*, 0\)$|transparent/.test(color);
    if (visible(cs.borderTopStyle, cs.borderTopWidth, cs.borderTopColor))
      return `border ${cs.borderTopColor}`;
    if (visible(cs.outlineStyle, cs.outlineWidth, cs.outlineColor)) return `outline ${cs.outlineColor}`;
    return null;
  }, closest);
}

describe('journey: forced colours (high contrast)', () => {
  it('the launcher and the bubbles, own and others’, keep a visible edge', async () => {
    const { page, context } = await openPage(browser, `${service.base}/`, { width: 480, height: 800 });
    await page.emulateMedia({ forcedColors: 'active' });
    await enterBotConversation(page);
    const greeting = messagesRegion(page).getByText(/Soy el bot de demostración de Charla/);
    await need(greeting, 'the bot’s greeting');
    await messageInput(page).fill('Alto contraste');
    await messageInput(page).press('Enter');
    const own = messagesRegion(page).getByText('Alto contraste', { exact: true });
    await need(own, 'the visitor’s own message');

    const answer = messagesRegion(page).getByText(/No te entendí/);
    await need(answer, 'the bot’s answer');
    expect(await paintedEdge(answer.last(), '.bubble')).not.toBeNull();
    expect(await paintedEdge(own, '.bubble')).not.toBeNull();

    // The full widget's launcher (the panel is full screen at 480 px: close it first).
    await page.keyboard.press('Escape');
    const button = page.locator('charla-widget').getByRole('button', { name: /^Abrir chat/ });
    await need(button, 'the widget’s launcher');
    expect(await paintedEdge(button)).not.toBeNull();
    expect(await launcher(page).count()).toBeGreaterThan(0);
    await context.close();
  });

  it('the loader’s launcher (before the full widget is there) keeps a visible edge too', async () => {
    const { page, context } = await openPage(browser, 'about:blank');
    // The full bundle never arrives: what the visitor sees is the loader's own launcher.
    await page.route('**/charla.iife.js', (route) => route.abort());
    await page.emulateMedia({ forcedColors: 'active' });
    await page.goto(`${service.base}/`);
    const button = page.locator('charla-loader').getByRole('button');
    await need(button, 'the loader’s launcher');
    expect(await paintedEdge(button)).not.toBeNull();
    await context.close();
  });
});
