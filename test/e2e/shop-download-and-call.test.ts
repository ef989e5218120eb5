/**
 * Journeys on a customer's shop on another origin than the service (localhost beside its
 * 127.0.0.1), where the audit found two defects: a document's "Descargar" opened the file in a
 * tab (the `download` attribute is ignored across origins and the service answered inline), and
 * the demo bot took its own call button for an answer to the question pending and showed its menu
 * again, with no word about the call.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  chooseInList,
  deliveredMarks,
  enterBotConversation,
  messagesRegion,
  need,
  openPage,
  until,
} from './helpers.ts';
import { hostileSite, shopPage, themedWidget } from './host-page-site.ts';

const site = hostileSite();

async function shop(name: string) {
  const key = await themedWidget(site.service);
  const opened = await openPage(site.browser, site.page(name, shopPage(site.service, key)));
  await enterBotConversation(opened.page);
  await need(messagesRegion(opened.page).getByRole('button', { name: /^Texto/ }), 'the demo bot’s menu');
  return opened;
}

/** An option of the list not answered yet, by the start of its text. */
const unanswered = (page: Page, title: string) =>
  messagesRegion(page).locator('button:not([aria-disabled="true"])', {
    hasText: new RegExp(`^\\s*${title}`),
  });

describe('journey: a shop on another origin than the service', () => {
  it('"Descargar" on a document downloads it under its name, not opens it in a tab', async () => {
    const { page, context } = await shop('download');
    expect(new URL(page.url()).origin).not.toBe(site.service.base);
    // A text file: Chromium shows text/plain in a tab when it is not told to save it.
    const name = 'notas de la tienda.txt';
    await page
      .locator('charla-widget')
      .locator('input[type="file"]')
      .setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from('Pan sin gluten: 3 €\n') });
    const link = await need(
      messagesRegion(page).getByRole('link', { name: `Descargar: ${name}` }),
      'the document’s download link',
    );
    // The click lands where the link is: after the upload's bar has gone, the message is the
    // service's and the list has stopped moving (a bot's answer scrolls it; a click between the press
    // and the release on a moving list is no click, which failed this test on a loaded machine).
    await need(deliveredMarks(page).first(), 'the document’s delivered mark');
    await until(
      'no upload bar',
      async () => (await page.locator('charla-widget').getByRole('progressbar').count()) === 0 || undefined,
    );
    let box = JSON.stringify(await link.boundingBox());
    await until('the link to stay put for 600 ms', async () => {
      await page.waitForTimeout(600);
      const now = JSON.stringify(await link.boundingBox());
      const still = now === box;
      box = now;
      return still || undefined;
    });
    // Whichever comes first: a download (on this page or the tab the link opens), or the file shown.
    // A tab the link opens may start its download before its events are watched (a loaded machine):
    // the file's response telling the browser to save it, under its name, counts as the download.
    const outcome = new Promise<string>((resolve) => {
      const watch = (p: Page) => {
        p.on('download', (d) => resolve(`downloaded as ${d.suggestedFilename()}`));
        p.on('load', () => {
          void p
            .evaluate(() => document.contentType)
            .then((type) => type === 'text/plain' && resolve('shown in a tab'))
            .catch(() => undefined);
        });
      };
      watch(page);
      context.on('page', watch);
      context.on('response', (r) => {
        const saved = /^attachment;.*filename\*=UTF-8''([^;]+)/i.exec(
          r.headers()['content-disposition'] ?? '',
        );
        if (saved) resolve(`downloaded as ${decodeURIComponent(saved[1]!)}`);
      });
      setTimeout(() => resolve('neither downloaded nor shown within 30 s'), 30_000);
    });
    // A press and release that Chromium did not take as a click on the link (seen 2 times in 10 with
    // three journeys side by side: no request at all followed) is clicked once more; what is checked is
    // where the file goes once the link is followed.
    let followed = false;
    context.on('request', (r) => {
      if (r.url().includes('/v1/media/')) followed = true;
    });
    await link.click();
    await until('the link to be followed', () => followed || undefined, 5_000).catch(() => link.click());
    expect(await outcome).toBe(`downloaded as ${name}`);
    await context.close();
  });

  it('the demo bot acknowledges its call button, and its menu does not come back for it', async () => {
    const { page, context } = await shop('call');
    const list = messagesRegion(page);
    await chooseInList(page, unanswered(page, 'Llamada').first(), 'Llamada');
    await need(list.getByText('¿Quieres ver otro tipo de mensaje?'), 'the question after the call sample');
    await chooseInList(page, list.getByRole('button', { name: 'Llamar' }), 'Llamar');
    await need(list.getByText(/^Listo, pediste una llamada\./), 'the acknowledgement of the call');
    // Then the question again (the flow went on past the acknowledgement), and no menu.
    await until('the question asked again', async () =>
      (await list.getByText('¿Quieres ver otro tipo de mensaje?').count()) === 2 ? true : undefined,
    );
    expect(await unanswered(page, 'Texto').count()).toBe(0);
    await context.close();
  });
});
