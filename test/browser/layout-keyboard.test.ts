/**
 * The full-screen panel follows what shows of the page (the visual viewport): a phone's on-screen
 * keyboard shrinks that, not the layout viewport, so a panel of 100% height kept its composer under
 * the keyboard or its header above the screen. Chromium shows no keyboard headless: the visual
 * viewport is played by a stand-in with the keyboard's sizes, and the layout is Chromium's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { nextFrame, openChatAt } from './helpers.ts';

/** A visual viewport whose sizes the test sets, then announces as the browser would. */
class StandIn extends EventTarget {
  offsetTop = 0;
  offsetLeft = 0;
  scale = 1;
  constructor(
    public width: number,
    public height: number,
  ) {
    super();
  }
  async set(sizes: Partial<Pick<StandIn, 'height' | 'offsetTop' | 'scale'>>, event: 'resize' | 'scroll') {
    Object.assign(this, sizes);
    this.dispatchEvent(new Event(event));
    for (let i = 0; i < 2; i++) await nextFrame();
  }
}

afterEach(async () => {
  document.body.replaceChildren();
  delete (window as { visualViewport?: unknown }).visualViewport;
  await page.viewport(1280, 800);
});

async function openChat(width: number, height: number) {
  const viewport = new StandIn(width, height);
  Object.defineProperty(window, 'visualViewport', { configurable: true, value: viewport });
  const { panel, header, composer } = await openChatAt(width, height);
  const rect = (el: Element) => {
    const r = el.getBoundingClientRect();
    return { top: Math.round(r.top), bottom: Math.round(r.bottom), height: Math.round(r.height) };
  };
  return { viewport, panel: () => rect(panel), header: () => rect(header), composer: () => rect(composer) };
}

describe('the full-screen panel and an on-screen keyboard', () => {
  it('fits what shows above the keyboard, follows its scroll, and ignores a pinch zoom', async () => {
    const { viewport, panel, header, composer } = await openChat(390, 700);
    expect(panel()).toEqual({ top: 0, bottom: 700, height: 700 });

    // The keyboard takes the lower 330 px: header at the top, composer just above the keyboard.
    await viewport.set({ height: 370 }, 'resize');
    expect(panel()).toEqual({ top: 0, bottom: 370, height: 370 });
    expect(header().top).toBe(0);
    expect(composer().bottom).toBeLessThanOrEqual(370);
    expect(composer().bottom).toBeGreaterThan(340);

    // The browser scrolled the page under it (as iOS does to show the field): the panel goes along.
    await viewport.set({ offsetTop: 120 }, 'scroll');
    expect(panel()).toEqual({ top: 120, bottom: 490, height: 370 });
    expect(header().top).toBe(120);

    // A pinch zoom is no keyboard: the panel is the whole layout viewport again.
    await viewport.set({ scale: 2, offsetTop: 0, height: 350 }, 'resize');
    expect(panel()).toEqual({ top: 0, bottom: 700, height: 700 });

    // The keyboard gone: the whole screen.
    await viewport.set({ scale: 1, height: 700 }, 'resize');
    expect(panel()).toEqual({ top: 0, bottom: 700, height: 700 });
  });

  it('leaves the floating panel of a large window as it is', async () => {
    const { viewport, panel } = await openChat(1280, 800);
    const before = panel();
    await viewport.set({ height: 500 }, 'resize');
    expect(panel()).toEqual(before);
  });
});
