/**
 * Journey: a business asks the visitor one question with options ("¿Confirmas el pedido de 40 €?":
 * Sí, pagar / No). The visitor answers; the options then show the answer (the chosen one pressed,
 * all of them inert) and cannot send a second, contradicting one, by mouse or keyboard. Focus
 * stays in the widget. After a reload, the answer read from the room's messages shows again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  DEMO_BOT_ID,
  chooseInList,
  closeJourney,
  enterBotConversation,
  launchBrowser,
  messagesRegion,
  need,
  openPage,
  ownMessage,
  roomMessages,
  startService,
  unexpected,
  until,
  visitorBotRoom,
  type Service,
} from './helpers.ts';

const J = 'render-options';
let service: Service;
let browser: Browser;
let page: Page;
let problems: string[];
let roomId: string;
let questionId: string;

/** The stored answers to the question. */
async function answers() {
  return (await roomMessages(service.app, roomId)).filter(
    (m) => m['type'] === 'POSTBACK' && (m['payload'] as { replyTo?: string })?.replyTo === questionId,
  );
}

/** The deepest focused element, across shadow roots: its tag and text. */
function focused(): Promise<string> {
  return page.evaluate(() => {
    let el: Element | null = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return `${el?.localName}:${(el?.textContent ?? '').trim()}`;
  });
}

/** The question's option (exactly named: the demo bot's menu has "Una nota de voz"). */
const option = (name: string): Locator =>
  messagesRegion(page).getByRole('button', { name, exact: true }).last();

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, `${service.base}/`));
  const visitor = await visitorBotRoom(service, page);
  roomId = visitor.roomId;
  const sent = await service.api.sendOptions(DEMO_BOT_ID, visitor.userId, '¿Confirmas el pedido de 40 €?', {
    title: 'Confirmación',
    options: [
      { title: 'Sí, pagar', payload: 'pay' },
      { title: 'No', payload: 'cancel' },
    ],
  });
  questionId = String(sent.messageId);
  await need(option('Sí, pagar'), 'the options of the question');
});

closeJourney(J, () => ({ page, browser, service }));

describe('journey: one answer to one question', () => {
  it('the chosen option shows pressed and the others inert; focus goes on to the composer', async () => {
    await chooseInList(page, option('Sí, pagar'), 'Sí, pagar');
    await until('the options to show the answer', async () =>
      (await option('Sí, pagar').getAttribute('aria-pressed')) === 'true' ? true : undefined,
    );
    expect(await option('No').getAttribute('aria-pressed')).toBe('false');
    for (const name of ['Sí, pagar', 'No'])
      expect(await option(name).getAttribute('aria-disabled'), name).toBe('true');
    expect(await focused()).toMatch(/^textarea:/);
    await until('the answer stored', async () => ((await answers()).length === 1 ? true : undefined));
  });

  it('a second choice, by mouse or by keyboard, sends nothing and keeps focus where it was', async () => {
    // Real pointer clicks; forced, as Playwright would otherwise wait for an aria-disabled button to be enabled.
    await option('No').click({ force: true });
    await option('Sí, pagar').click({ force: true });
    await option('No').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Space');
    expect(await focused()).toBe('button:No');
    await page.waitForTimeout(1_000);
    expect((await answers()).map((m) => m['text'])).toEqual(['Sí, pagar']);
    expect(await ownMessage(page, 'No').count()).toBe(0);
  });

  it('after a reload the answer shows again, read from the room’s messages', async () => {
    await page.reload();
    await enterBotConversation(page);
    await need(option('Sí, pagar'), 'the question again');
    await until('the answer after the reload', async () =>
      (await option('Sí, pagar').getAttribute('aria-pressed')) === 'true' ? true : undefined,
    );
    expect(await option('No').getAttribute('aria-pressed')).toBe('false');
    for (const name of ['Sí, pagar', 'No'])
      expect(await option(name).getAttribute('aria-disabled'), name).toBe('true');
    expect(unexpected(problems)).toEqual([]);
  });
});
