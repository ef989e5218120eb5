/**
 * Journey: a business system (the `charla/api` client, as a backend would use
 * it) sends each of the six bot-message variants to a visitor and posts into
 * their room over HTTP. The visitor, on the customer site, sees each one
 * rendered as what it is and acts on it: picks an option, presses the call
 * button, fills the contact form. Every action reaches the service.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  DEMO_BOT_ID,
  chooseInList,
  closeJourney,
  cspViolations,
  launchBrowser,
  messagesRegion,
  need,
  openPage,
  roomMessages,
  shot,
  startService,
  unexpected,
  until,
  visitorBotRoom,
  type Service,
} from './helpers.ts';

const J = 'business';
let service: Service;
let browser: Browser;
let page: Page;
let problems: string[];
let userId: string;
let roomId: string;

/** Messages the visitor sent after `since` (seq), as stored. */
async function visitorMessagesAfter(since: number) {
  return (await roomMessages(service.app, roomId)).filter(
    (m) => m['senderId'] === userId && Number(m['seq']) > since,
  );
}
async function lastSeq(): Promise<number> {
  const all = await roomMessages(service.app, roomId);
  return all.length ? Number(all[all.length - 1]!['seq']) : 0;
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, `${service.base}/`));
  ({ userId, roomId } = await visitorBotRoom(service, page));
});

closeJourney(J, () => ({ page, browser, service }));

describe('journey: a business system writes to a visitor over HTTP', () => {
  it('text: shown as text', async () => {
    const sent = await service.api.sendText(DEMO_BOT_ID, userId, 'Tu pedido #4521 está listo para recoger.');
    expect(sent.success).toBe(true);
    await need(
      messagesRegion(page).getByText('Tu pedido #4521 está listo para recoger.'),
      'the text bot message',
    );
  });

  it('text with options: buttons under the text; the visitor picks one and the payload reaches the service', async () => {
    const since = await lastSeq();
    await service.api.sendOptions(DEMO_BOT_ID, userId, '¿Cuándo quieres recogerlo?', {
      buttonText: { type: 'text', text: 'Horarios' },
      options: [
        { title: 'Hoy por la tarde', description: 'De 17:00 a 20:30', payload: 'pickup_today' },
        { title: 'Mañana', description: 'De 8:00 a 14:00', payload: 'pickup_tomorrow' },
      ],
    });
    const list = messagesRegion(page);
    const tomorrow = list.getByRole('button', { name: /^Mañana/ });
    await need(tomorrow, 'the options as buttons (with their descriptions)');
    await need(list.getByText('De 8:00 a 14:00'), 'the accompanying text');
    await shot(page, J, 'options');
    await chooseInList(page, tomorrow.last(), 'Mañana');
    const postback = await until('the chosen option as a POSTBACK', async () =>
      (await visitorMessagesAfter(since)).find((m) => m['type'] === 'POSTBACK'),
    );
    expect(JSON.stringify(postback['payload'])).toContain('pickup_tomorrow');
  });

  it('contacts: a card with the name, a tel: link and a mailto: link', async () => {
    await service.api.sendContacts(DEMO_BOT_ID, userId, [
      {
        name: { formatted_name: 'Obrador La Espiga' },
        phones: [{ phone: '+34910000000', type: 'WORK' }],
        emails: [{ email: 'obrador@laespiga.example', type: 'WORK' }],
        addresses: [{ street: 'Calle del Pez 12', city: 'Madrid', country: 'España' }],
      },
    ]);
    const list = messagesRegion(page);
    await need(list.getByText('Obrador La Espiga'), 'the contact card');
    const tel = list.getByRole('link', { name: /\+34910000000/ });
    await need(tel, 'the phone as a link');
    expect(await tel.last().getAttribute('href')).toMatch(/^tel:\+34910000000$/);
    const mail = list.getByRole('link', { name: 'obrador@laespiga.example' });
    expect(await mail.last().getAttribute('href')).toBe('mailto:obrador@laespiga.example');
    await need(list.getByText(/Calle del Pez 12, Madrid/), 'the accompanying text');
    await shot(page, J, 'contacts');
  });

  it('call button: shown with its display text; pressing it tells the bot', async () => {
    const since = await lastSeq();
    await service.api.sendVoiceCall(DEMO_BOT_ID, userId, {
      header: 'Soporte',
      text: '¿Prefieres que hablemos?',
      displayText: 'Llamar a soporte',
    });
    const list = messagesRegion(page);
    const call = list.getByRole('button', { name: 'Llamar a soporte' });
    await need(call, 'the call button (voice_call)');
    await need(list.getByText('Soporte', { exact: true }), 'the accompanying text');
    await shot(page, J, 'call');
    await call.last().click();
    const pressed = await until('the call button press to reach the service', async () =>
      (await visitorMessagesAfter(since)).find((m) => m['type'] === 'POSTBACK'),
    );
    expect(JSON.stringify(pressed['payload'])).toContain('voice_call');
  });

  it('video: a player whose file loads', async () => {
    await service.api.sendVideo(
      DEMO_BOT_ID,
      userId,
      `${service.base}/media/charla-demo.mp4`,
      'Así se hace nuestro pan',
    );
    const list = messagesRegion(page);
    const video = list.locator('video');
    await need(video, 'the video player');
    await until('the video’s metadata to load (a real, reachable file)', async () =>
      (await video.last().evaluate((v: HTMLVideoElement) => v.readyState)) >= 1 ? true : undefined,
    );
    await need(list.getByText('Así se hace nuestro pan'), 'the accompanying text');
    await shot(page, J, 'video');
  });

  it('contact information request: a form whose answer goes back to the bot', async () => {
    const since = await lastSeq();
    await service.api.sendContactInfoRequest(DEMO_BOT_ID, userId, '¿Nos dejas tus datos para avisarte?');
    const list = messagesRegion(page);
    const form = list.getByRole('form', { name: /Tus datos de contacto/ });
    await need(form, 'the contact form (contact_info_request)');
    await form
      .last()
      .getByLabel(/Nombre/)
      .fill('Lucía Gil');
    await form
      .last()
      .getByLabel(/Teléfono/)
      .fill('+34600111222');
    await form
      .last()
      .getByLabel(/Correo/)
      .fill('lucia@example.com');
    await shot(page, J, 'contact-form');
    await form
      .last()
      .getByRole('button', { name: /Enviar datos/ })
      .click();
    const answer = await until('the contact details to reach the service', async () =>
      (await visitorMessagesAfter(since)).find((m) => JSON.stringify(m).includes('lucia@example.com')),
    );
    // The form is answered: no unanswered form is left, and wherever the request is still on
    // screen it shows the confirmation (the bot's next turn may have scrolled it away already).
    await until('the form to turn into its confirmation', async () =>
      (await list.getByRole('form', { name: /Tus datos de contacto/ }).count()) === 0 ? true : undefined,
    );
    const stillShown = await list
      .locator('charla-message')
      .filter({ hasText: '¿Nos dejas tus datos para avisarte?' })
      .count();
    if (stillShown > 0) await need(list.getByText('Datos enviados'), 'the form’s confirmation');
    expect(JSON.stringify(answer)).toContain('+34600111222');
  });

  it('room post: external text and image land in the open room, once each', async () => {
    const text = { id: randomUUID(), type: 'TEXT' as const, text: 'Aviso del almacén: tu pedido ha salido.' };
    const image = {
      id: randomUUID(),
      type: 'IMAGE' as const,
      mediaUrl: `${service.base}/media/pan.png`,
      caption: 'Tu pan, recién hecho',
    };
    const result = await service.api.postRoomMessages(roomId, {
      senderId: 'warehouse-system',
      messages: [text, image],
    });
    expect(result.data.messageIds).toEqual([text.id, image.id]);
    const list = messagesRegion(page);
    await need(list.getByText('Aviso del almacén: tu pedido ha salido.'), 'the posted text');
    await need(list.getByText('Tu pan, recién hecho'), 'the posted image’s caption');
    await need(list.getByRole('button', { name: /Ver imagen en grande/ }), 'the posted image');
    // Posting the same ids again changes nothing, in the service or on screen.
    const again = await service.api.postRoomMessages(roomId, {
      senderId: 'warehouse-system',
      messages: [text],
    });
    expect(again.data.duplicates).toEqual([text.id]);
    await page.waitForTimeout(500);
    expect(await list.getByText('Aviso del almacén: tu pedido ha salido.').count()).toBe(1);
    await shot(page, J, 'room-post');
  });

  it('ran under the strict CSP without errors', async () => {
    expect(await cspViolations(page)).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });
});
