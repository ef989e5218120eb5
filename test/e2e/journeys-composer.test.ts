/**
 * Journeys of the composer's less travelled paths, on the customer site (`/`)
 * against the real service, in Chromium with a fake microphone: a voice note
 * recorded, sent and played; a recording thrown away, or cut short by
 * disableInputs; a document that keeps its name; an upload in progress, an
 * upload that fails and its retry; location refused, then granted. axe-core
 * checks each of those states.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  botRoomOf,
  closeAfterAll,
  enterBotConversation,
  messageInput,
  messagesRegion,
  need,
  roomMessages,
  startService,
  until,
  visitorId,
  widgetAxeViolations,
  type Service,
} from './helpers.ts';

const UPLOADS = '**/v1/widget/uploads';
const PDF = {
  name: 'carta-de-panes.pdf',
  mimeType: 'application/pdf',
  buffer: Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n'),
};

let service: Service;
let browser: Browser;
beforeAll(async () => {
  service = await startService();
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
  });
});
closeAfterAll(() => ({ browser, service }));

interface Visit {
  context: BrowserContext;
  page: Page;
  userId: string;
  /** Upload requests the page made. */
  uploads: string[];
}

/** A visitor on the customer site, in the conversation with the bot; axe can be injected (CSP bypassed for it only). */
async function visit(permissions: string[] = []): Promise<Visit> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    locale: 'es-ES',
    bypassCSP: true,
    permissions,
    geolocation: { latitude: 40.4168, longitude: -3.7038 },
  });
  const page = await context.newPage();
  const uploads: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/v1/widget/uploads')) uploads.push(r.method());
  });
  await page.goto(`${service.base}/`);
  await enterBotConversation(page);
  await need(messagesRegion(page).getByRole('button', { name: /^Texto/ }), 'the demo bot’s tour options');
  const userId = await visitorId(page);
  return { context, page, userId, uploads };
}

function composerButton(page: Page, name: string | RegExp) {
  return page.locator('charla-widget').locator('charla-composer').getByRole('button', { name });
}

async function widgetCall(page: Page, method: 'disableInputs' | 'enableInputs'): Promise<void> {
  await page.evaluate(async (m) => {
    const charla = (
      window as unknown as { Charla: { widgets: Array<{ ready: Promise<Record<string, () => void>> }> } }
    ).Charla;
    (await charla.widgets[0]!.ready)[m]!();
  }, method);
}

async function stored(v: Visit, type: string): Promise<Array<Record<string, unknown>>> {
  const roomId = await until('the visitor’s bot room', () => botRoomOf(service.app, v.userId));
  return (await roomMessages(service.app, roomId)).filter(
    (m) => m['senderId'] === v.userId && m['type'] === type,
  );
}

/** Sends a text and waits until the service has it: whatever was sent before it has had its chance. */
async function sendAndWait(v: Visit, text: string): Promise<void> {
  await messageInput(v.page).fill(text);
  await messageInput(v.page).press('Enter');
  await until(`“${text}” stored`, async () =>
    (await stored(v, 'TEXT')).some((m) => m['text'] === text) ? true : undefined,
  );
}

describe('journey: the composer’s voice notes', () => {
  it('records with the microphone, sends the note as AUDIO, and it plays in the list', async () => {
    const v = await visit(['microphone']);
    await composerButton(v.page, 'Grabar audio').click();
    const stop = composerButton(v.page, 'Detener y enviar audio');
    await need(stop, 'the stop button while recording');
    expect(await widgetAxeViolations(v.page)).toEqual([]);
    await stop.click();
    const audio = messagesRegion(v.page).locator('audio');
    await need(audio, 'the voice note in the list');
    const notes = await until('the AUDIO message stored', async () => {
      const found = await stored(v, 'AUDIO');
      return found.length ? found : undefined;
    });
    expect(notes).toHaveLength(1);
    const played = await audio.last().evaluate(async (el: HTMLAudioElement) => {
      el.muted = true;
      await el.play();
      return !el.error;
    });
    expect(played).toBe(true);
    await v.context.close();
  });

  it('throws a recording away with its discard button: nothing is uploaded or sent', async () => {
    const v = await visit(['microphone']);
    await composerButton(v.page, 'Grabar audio').click();
    const discard = composerButton(v.page, 'Descartar grabación');
    await need(discard, 'a discard button while recording');
    await discard.click();
    await need(composerButton(v.page, 'Grabar audio'), 'the record button back after discarding');
    await sendAndWait(v, 'después de descartar');
    expect(v.uploads).toEqual([]);
    expect(await stored(v, 'AUDIO')).toEqual([]);
    await v.context.close();
  });

  it('disableInputs while recording ends the recording and sends nothing; enableInputs offers a new one', async () => {
    const v = await visit(['microphone']);
    await composerButton(v.page, 'Grabar audio').click();
    await need(composerButton(v.page, 'Detener y enviar audio'), 'the stop button while recording');
    await widgetCall(v.page, 'disableInputs');
    await need(composerButton(v.page, 'Grabar audio'), 'the record button (disabled), the recording over');
    expect(await composerButton(v.page, 'Grabar audio').isDisabled()).toBe(true);
    await widgetCall(v.page, 'enableInputs');
    expect(await composerButton(v.page, 'Grabar audio').isEnabled()).toBe(true);
    await sendAndWait(v, 'tras desactivar');
    expect(v.uploads).toEqual([]);
    expect(await stored(v, 'AUDIO')).toEqual([]);
    await v.context.close();
  });

  it('a refused microphone says so, and the page can still be used', async () => {
    const v = await visit([]);
    await v.context.clearPermissions();
    // The fake UI accepts every prompt: refuse it the way a visitor's "Block" does.
    await v.page.evaluate(() => {
      navigator.mediaDevices.getUserMedia = () =>
        Promise.reject(new DOMException('blocked', 'NotAllowedError'));
    });
    await composerButton(v.page, 'Grabar audio').click();
    await need(
      v.page
        .locator('charla-widget')
        .getByRole('alert')
        .getByText('No se pudo usar el micrófono: permiso denegado.'),
      'the refused-microphone notice',
    );
    expect(await widgetAxeViolations(v.page)).toEqual([]);
    await v.context.close();
  });
});

describe('journey: the composer’s files', () => {
  it('a document keeps the name it was picked with, in the list and on its download link', async () => {
    const v = await visit();
    await v.page.locator('charla-widget').locator('input[type="file"]').setInputFiles(PDF);
    const list = messagesRegion(v.page);
    await need(list.getByText(PDF.name, { exact: true }), 'the document’s card named after the file');
    await need(
      list.getByRole('link', { name: `Descargar: ${PDF.name}` }),
      'its download link named after the file',
    );
    const docs = await until('the DOCUMENT stored', async () => {
      const found = await stored(v, 'DOCUMENT');
      return found.length ? found : undefined;
    });
    expect(docs).toHaveLength(1);
    await v.context.close();
  });

  it('shows an upload in progress as an indeterminate bar until the service answers', async () => {
    const v = await visit();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await v.page.route(UPLOADS, async (route) => {
      await held;
      await route.continue();
    });
    await v.page.locator('charla-widget').locator('input[type="file"]').setInputFiles(PDF);
    const bar = v.page.locator('charla-widget').getByRole('progressbar', { name: `Subiendo ${PDF.name}` });
    await need(bar, 'the upload’s progress bar');
    // Nothing is known of its progress yet: an empty bar would say "0 %, stuck".
    expect(await bar.getAttribute('value')).toBeNull();
    expect(await bar.getAttribute('aria-valuenow')).toBeNull();
    expect(await widgetAxeViolations(v.page)).toEqual([]);
    release();
    await need(messagesRegion(v.page).getByText(PDF.name, { exact: true }), 'the document once uploaded');
    expect(await bar.count()).toBe(0);
    await v.context.close();
  });

  it('shows how much of a large file is sent, on a slow line', async () => {
    const v = await visit();
    // 3 MB at 1 MB/s: the browser reports the upload's progress as it goes.
    const cdp = await v.context.newCDPSession(v.page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 1_000_000,
    });
    const big = {
      name: 'catalogo-completo.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.concat([PDF.buffer, Buffer.alloc(3 * 1024 * 1024, 0x20)]),
    };
    await v.page.locator('charla-widget').locator('input[type="file"]').setInputFiles(big);
    const bar = v.page.locator('charla-widget').getByRole('progressbar', { name: `Subiendo ${big.name}` });
    await need(bar, 'the upload’s progress bar');
    const seen = new Set<number>();
    await until('a part of the file sent, shown on the bar', async () => {
      const value = Number((await bar.getAttribute('value').catch(() => null)) ?? Number.NaN);
      if (value > 0 && value < 1) seen.add(Math.round(value * 100));
      return seen.size >= 2 ? true : undefined;
    });
    await need(messagesRegion(v.page).getByText(big.name, { exact: true }), 'the document once uploaded');
    expect(await bar.count()).toBe(0);
    expect(await stored(v, 'DOCUMENT')).toHaveLength(1);
    await v.context.close();
  });

  it('an upload that fails names the file and offers a retry, which sends it once', async () => {
    const v = await visit();
    await v.page.route(UPLOADS, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          status: 0,
          statusMessage: 'failed',
          message: 'upstream storage unavailable',
          error: { code: 'E0000', key: 'UNKNOWN_ERROR', description: 'upstream storage unavailable' },
        }),
      }),
    );
    const widget = v.page.locator('charla-widget');
    await widget.locator('input[type="file"]').setInputFiles(PDF);
    const alert = widget.getByRole('alert');
    await need(alert.getByText(`No se pudo enviar «${PDF.name}».`), 'a notice naming the file that failed');
    // The service's own words (in English, for developers) are not the visitor's.
    expect(await widget.locator('charla-composer').innerText()).not.toContain('upstream');
    const retry = alert.getByRole('button', { name: 'Reintentar' });
    await need(retry, 'a retry button in the notice');
    expect(await widgetAxeViolations(v.page)).toEqual([]);

    await v.page.unroute(UPLOADS);
    await retry.click();
    await need(messagesRegion(v.page).getByText(PDF.name, { exact: true }), 'the document sent by the retry');
    expect(await alert.count()).toBe(0);
    expect(await widget.getByRole('progressbar').count()).toBe(0);
    const docs = await until('the DOCUMENT stored', async () => {
      const found = await stored(v, 'DOCUMENT');
      return found.length ? found : undefined;
    });
    expect(docs).toHaveLength(1);
    await v.context.close();
  });
});

describe('journey: the composer’s location', () => {
  it('refused: says so; granted afterwards: the location is sent and shown with a map link', async () => {
    const v = await visit([]);
    const widget = v.page.locator('charla-widget');
    await composerButton(v.page, 'Compartir ubicación').click();
    await need(
      widget.getByRole('alert').getByText('No se pudo obtener tu ubicación: permiso denegado.'),
      'the refused-location notice',
    );
    expect(await widgetAxeViolations(v.page)).toEqual([]);

    await v.context.grantPermissions(['geolocation']);
    await composerButton(v.page, 'Compartir ubicación').click();
    await need(messagesRegion(v.page).getByRole('link', { name: /mapa/i }), 'the location with a map link');
    expect(await widget.getByRole('alert').count()).toBe(0);
    const [location] = await until('the LOCATION stored', async () => {
      const found = await stored(v, 'LOCATION');
      return found.length ? found : undefined;
    });
    expect(Number(location!['lat'])).toBeCloseTo(40.4168, 3);
    expect(Number(location!['lng'])).toBeCloseTo(-3.7038, 3);
    await v.context.close();
  });

  it('disableInputs while the position is on its way: nothing is sent', async () => {
    const v = await visit(['geolocation']);
    // The browser takes its time to answer: hold the answer until inputs are disabled.
    await v.page.evaluate(() => {
      const real = navigator.geolocation.getCurrentPosition.bind(navigator.geolocation);
      navigator.geolocation.getCurrentPosition = (ok, fail, options) => {
        (window as unknown as { __answer: () => Promise<void> }).__answer = () =>
          new Promise((answered) =>
            real(
              (position) => answered(ok(position)),
              (error) => answered(fail?.(error)),
              options,
            ),
          );
      };
    });
    await composerButton(v.page, 'Compartir ubicación').click();
    await widgetCall(v.page, 'disableInputs');
    await v.page.evaluate(() => (window as unknown as { __answer: () => Promise<void> }).__answer());
    await widgetCall(v.page, 'enableInputs');
    await sendAndWait(v, 'sin ubicación');
    expect(await stored(v, 'LOCATION')).toEqual([]);
    await v.context.close();
  });
});
