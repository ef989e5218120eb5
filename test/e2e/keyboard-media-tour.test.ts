/**
 * Keyboard only, on the demo site against the real service: the demo bot's tour sends each media
 * kind, and each is reached and operated with Tab / Shift+Tab, Enter and Esc, with a visible focus
 * ring on every stop: the audio and video players (the native controls play and pause), the
 * image viewer (focus in, Esc, focus back), a document's download, a location's map link and the
 * links inside a text bubble. The players are named after the file and the sender, and a video's
 * caption describes it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  DEMO_BOT_ID,
  closeJourney,
  cspViolations,
  launchBrowser,
  openPage,
  startService,
  unexpected,
  until,
  visitorId,
  type Service,
} from './helpers.ts';

const J = 'keyboard-media';
let service: Service;
let browser: Browser;
let page: Page;
let problems: string[];

/** What holds focus, through shadow roots, and how its focus shows. */
interface Focused {
  tag: string;
  name: string;
  text: string;
  href: string | null;
  focusVisible: boolean;
  outline: string;
  inOpenDialog: boolean;
  /** An option of a message already answered (it stays focusable, and sends nothing). */
  answered: boolean;
}

function focused(): Promise<Focused> {
  return page.evaluate(() => {
    let el: Element | null = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    const e = el as HTMLElement;
    const cs = getComputedStyle(e);
    return {
      tag: e.localName,
      name: e.getAttribute('aria-label') ?? '',
      text: (e.textContent ?? '').trim(),
      href: e.getAttribute('href'),
      focusVisible: e.matches(':focus-visible'),
      outline: cs.outlineStyle === 'none' ? 'none' : `${cs.outlineStyle} ${cs.outlineWidth}`,
      inOpenDialog: !!e.closest('dialog')?.open,
      answered: e.getAttribute('aria-disabled') === 'true',
    };
  });
}

/** Presses `key` until focus is on what `match` accepts; every stop on the way shows its focus. */
async function press(
  key: 'Tab' | 'Shift+Tab',
  match: (f: Focused) => boolean,
  what: string,
): Promise<Focused> {
  const seen: string[] = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press(key);
    const f = await focused();
    seen.push(`${f.tag}[${f.name || f.text.slice(0, 20)}]`);
    if (f.tag !== 'body' && f.tag !== 'audio' && f.tag !== 'video') {
      // Native players draw the ring of their inner controls themselves (a closed UA shadow root).
      expect(f.focusVisible && f.outline !== 'none', `visible focus on ${seen.at(-1)}`).toBe(true);
    }
    if (match(f)) return f;
  }
  throw new Error(`e2e: ${key} never reached ${what}; focus went through ${seen.join(' → ')}`);
}

/** The newest <audio>/<video> of the list (in the message list's shadow root). */
function player(tag: 'audio' | 'video') {
  return page.locator('charla-widget').locator(`${tag}`).last();
}

async function mediaState(tag: 'audio' | 'video') {
  return player(tag).evaluate((m: HTMLMediaElement) => ({
    paused: m.paused,
    ended: m.ended,
  }));
}

/**
 * From the composer, back up to the newest menu's option and choose it with Enter. The earlier
 * menus' options are answered and send nothing, so the newest menu must have arrived first.
 */
async function chooseOption(title: string): Promise<void> {
  const open = page.locator('charla-widget').locator('button:not([aria-disabled="true"])', {
    hasText: new RegExp(`^\\s*${title}`),
  });
  await until(`an unanswered option "${title}"`, async () => ((await open.count()) > 0 ? true : undefined));
  if ((await focused()).tag !== 'textarea') await press('Tab', (f) => f.tag === 'textarea', 'the composer');
  await press(
    'Shift+Tab',
    (f) => f.tag === 'button' && f.text.startsWith(title) && !f.answered,
    `the unanswered option "${title}"`,
  );
  await page.keyboard.press('Enter');
  // Choosing hands focus to the composer (test/browser/focus.test.ts).
  await until('focus back in the composer', async () =>
    (await focused()).tag === 'textarea' ? true : undefined,
  );
}

/** Waits for the bot's answer (the "another one?" chips come after every sample), then one more menu. */
async function tour(title: string, arrived: () => Promise<boolean>): Promise<void> {
  await chooseOption(title);
  await until(`the bot's ${title} sample`, async () => ((await arrived()) ? true : undefined));
}

async function nextMenu(): Promise<void> {
  await chooseOption('Sí, otro');
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, `${service.base}/`));
  // External addresses (the map, the text's links) answer locally: the test needs no network.
  await page
    .context()
    .route(/^https:\/\/(www\.openstreetmap\.org|example\.(com|org))\//, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<title>fuera</title>' }),
    );
  // The full widget's launcher (focus on the loader's launcher is lost when the full widget replaces it).
  await until('the full widget', () =>
    page.evaluate(() => (document.querySelector('charla-widget') ? true : undefined)),
  );
  await press('Tab', (f) => /^Abrir chat/.test(f.name), 'the launcher');
  await page.keyboard.press('Enter');
  await until('focus in the composer of the open panel', async () =>
    (await focused()).tag === 'textarea' ? true : undefined,
  );
  await until('the tour menu', () =>
    page
      .locator('charla-widget')
      .getByRole('button', { name: /^Audio/ })
      .count()
      .then((n) => (n > 0 ? true : undefined)),
  );
}, 60_000);

closeJourney(J, () => ({ page, browser, service }));

describe('keyboard only: every media message of the demo bot', () => {
  it('AUDIO: Shift+Tab reaches the player; Enter plays and pauses it; it names the file and the sender', async () => {
    await tour('Audio', async () => (await player('audio').count()) > 0);
    const audio = player('audio');
    expect(await audio.getAttribute('aria-label')).toBe('Audio de Charla: charla.wav');
    // A slow rate, so the half-second sample is still playing when the second Enter comes.
    await audio.evaluate((m: HTMLMediaElement) => {
      m.defaultPlaybackRate = 0.0625;
      m.playbackRate = 0.0625;
    });
    // From below, Shift+Tab enters the player at its last control; past its first one lies the bot's
    // previous message. Tab once forward: the player itself, where Enter plays and pauses.
    await press('Shift+Tab', (f) => f.tag === 'audio', 'the audio player');
    await press('Shift+Tab', (f) => f.tag !== 'audio', 'out of the audio player, above it');
    const onPlayer = await press('Tab', (f) => f.tag === 'audio', 'the audio player again');
    expect(onPlayer, 'the player shows its focus').toMatchObject({ focusVisible: true });
    expect(onPlayer.outline).not.toBe('none');
    await page.keyboard.press('Enter');
    await until('the audio to play', async () => {
      const s = await mediaState('audio');
      return !s.paused ? true : undefined;
    });
    await page.keyboard.press('Enter');
    await until('the audio to pause (not end)', async () => {
      const s = await mediaState('audio');
      return s.paused && !s.ended ? true : undefined;
    });
  });

  it('VIDEO: Enter plays and pauses it; named after the file and the sender, described by its caption', async () => {
    await nextMenu();
    await tour('Video', async () => (await player('video').count()) > 0);
    const video = player('video');
    expect(await video.getAttribute('aria-label')).toBe('Vídeo de Charla: charla.mp4');
    const description = await video.evaluate((v) => {
      const id = v.getAttribute('aria-describedby');
      return id ? ((v.getRootNode() as ShadowRoot).getElementById(id)?.textContent ?? null) : null;
    });
    expect(description).toBe('Un video corto (MP4).');
    await video.evaluate((m: HTMLMediaElement) => {
      m.defaultPlaybackRate = 0.0625;
      m.playbackRate = 0.0625;
    });
    await press('Shift+Tab', (f) => f.tag === 'video', 'the video player');
    await press('Shift+Tab', (f) => f.tag !== 'video', 'out of the video player, above it');
    await press('Tab', (f) => f.tag === 'video', 'the video player again');
    await page.keyboard.press('Enter');
    await until('the video to play', async () => (!(await mediaState('video')).paused ? true : undefined));
    await page.keyboard.press('Enter');
    await until('the video to pause (not end)', async () => {
      const s = await mediaState('video');
      return s.paused && !s.ended ? true : undefined;
    });
  });

  it('IMAGE: Enter opens the viewer with focus on its close button; Esc closes it and focus is back', async () => {
    await nextMenu();
    const openButtons = page.locator('charla-widget').getByRole('button', { name: 'Ver imagen en grande' });
    await tour('Imagen', async () => (await openButtons.count()) > 0);
    await press('Shift+Tab', (f) => f.name.startsWith('Ver imagen en grande'), 'the image’s open button');
    await page.keyboard.press('Enter');
    const inViewer = await until('focus in the open viewer', async () => {
      const f = await focused();
      return f.inOpenDialog ? f : undefined;
    });
    expect(inViewer.name).toBe('Cerrar imagen');
    expect(inViewer.focusVisible && inViewer.outline !== 'none').toBe(true);
    await page.keyboard.press('Escape');
    const back = await until('focus back on the image', async () => {
      const f = await focused();
      return !f.inOpenDialog && f.name.startsWith('Ver imagen en grande') ? f : undefined;
    });
    expect(back.focusVisible).toBe(true);
    // Esc closed the viewer only, not the chat.
    expect(await page.locator('charla-widget').getByRole('dialog').first().isVisible()).toBe(true);
  });

  it('DOCUMENT: Enter on its download link downloads it', async () => {
    await nextMenu();
    const link = page.locator('charla-widget').getByRole('link', { name: 'Descargar: charla.pdf' });
    await tour('Documento', async () => (await link.count()) > 0);
    await press('Shift+Tab', (f) => f.name === 'Descargar: charla.pdf', 'the download link');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toMatch(/charla\.pdf$/);
  });

  it('LOCATION: Enter on "Abrir en el mapa" opens the map', async () => {
    await nextMenu();
    const link = page.locator('charla-widget').getByRole('link', { name: 'Abrir en el mapa' });
    await tour('Ubicación', async () => (await link.count()) > 0);
    await press('Shift+Tab', (f) => f.text === 'Abrir en el mapa', 'the map link');
    const [map] = await Promise.all([page.context().waitForEvent('page'), page.keyboard.press('Enter')]);
    await map.waitForLoadState();
    expect(map.url()).toMatch(/^https:\/\/www\.openstreetmap\.org\/\?mlat=19\.4326&mlon=-99\.1332/);
    await map.close();
  });

  it('TEXT: each link in a bubble is a Tab stop and Enter opens it', async () => {
    const userId = await visitorId(page);
    await service.api.sendText(
      DEMO_BOT_ID,
      userId,
      'Lee https://example.com/guia y https://example.org/precios.',
    );
    const links = page.locator('charla-widget').getByRole('link', { name: /^https:\/\/example\./ });
    await until('the text with links', async () => ((await links.count()) === 2 ? true : undefined));
    await page.bringToFront();
    await press('Tab', (f) => f.tag === 'textarea', 'the composer');
    for (const href of ['https://example.org/precios', 'https://example.com/guia']) {
      await press('Shift+Tab', (f) => f.href === href, `the link ${href}`);
      const [opened] = await Promise.all([page.context().waitForEvent('page'), page.keyboard.press('Enter')]);
      await opened.waitForLoadState();
      expect(opened.url()).toBe(href);
      await opened.close();
      await page.bringToFront();
    }
  });

  it('nothing in the message list is reachable only by mouse', async () => {
    const mouseOnly = await page.locator('charla-widget').evaluate((host) => {
      const found: string[] = [];
      const visit = (root: ParentNode) => {
        for (const el of root.querySelectorAll<HTMLElement>('*')) {
          if (el.shadowRoot) visit(el.shadowRoot);
          const interactive = el.matches(
            'a[href], button, audio[controls], video[controls], input, select, textarea',
          );
          // The composer's file input is opened by its attach button.
          if (el.matches('input[type=file]')) continue;
          // Answered options not chosen leave the Tab order: inert (aria-disabled), a click does nothing either.
          const inert = el.getAttribute('aria-disabled') === 'true';
          if (interactive && el.tabIndex < 0 && !inert && !el.closest('dialog:not([open])'))
            found.push(el.outerHTML.slice(0, 80));
        }
      };
      visit(host.shadowRoot!);
      return found;
    });
    expect(mouseOnly).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(unexpected(problems)).toEqual([]);
  });
});
