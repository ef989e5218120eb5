/**
 * Journey: a visitor past the hour's upload allowance (CHARLA_UPLOADS_PER_HOUR, here 1) on the
 * customer site, in Chromium against the service: the first file goes; the second is refused by
 * the service (429) before it is stored, and the widget says when it may go, with a retry.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  botRoomOf,
  closeAfterAll,
  enterBotConversation,
  messagesRegion,
  need,
  roomMessages,
  startService,
  until,
  visitorId,
  widgetAxeViolations,
  type Service,
} from './helpers.ts';

const pdf = (name: string) => ({
  name,
  mimeType: 'application/pdf',
  buffer: Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n'),
});

let service: Service;
let browser: Browser;
beforeAll(async () => {
  service = await startService({ uploadsPerHour: 1 });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
});
closeAfterAll(() => ({ browser, service }));

describe('journey: past the upload allowance', () => {
  it('the second file of the hour is refused: the widget says when it may go, with a retry; one is stored', async () => {
    // bypassCSP for axe only (csp.test.ts checks the widget under the strict policy).
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: 'es-ES',
      bypassCSP: true,
    });
    const page = await context.newPage();
    const statuses: number[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/v1/widget/uploads')) statuses.push(r.status());
    });
    await page.goto(`${service.base}/`);
    await enterBotConversation(page);
    await need(messagesRegion(page).getByRole('button', { name: /^Texto/ }), 'the demo bot’s tour options');
    const userId = await visitorId(page);
    const widget = page.locator('charla-widget');
    const input = widget.locator('input[type="file"]');

    await input.setInputFiles(pdf('primera.pdf'));
    await need(messagesRegion(page).getByText('primera.pdf', { exact: true }), 'the first document sent');

    await input.setInputFiles(pdf('segunda.pdf'));
    const alert = widget.getByRole('alert');
    await need(
      alert.getByText('Has enviado muchos archivos: podrás enviar «segunda.pdf» en 60 min.'),
      'the notice saying when the file may go',
    );
    await need(alert.getByRole('button', { name: 'Reintentar' }), 'a retry in the notice');
    expect(statuses).toEqual([200, 429]);
    expect(await messagesRegion(page).getByText('segunda.pdf', { exact: true }).count()).toBe(0);
    expect(await widgetAxeViolations(page)).toEqual([]);

    const roomId = await until('the visitor’s bot room', () => botRoomOf(service.app, userId));
    const documents = (await roomMessages(service.app, roomId)).filter(
      (m) => m['senderId'] === userId && m['type'] === 'DOCUMENT',
    );
    expect(documents.map((m) => m['caption'])).toEqual(['primera.pdf']);
    await context.close();
  });
});
