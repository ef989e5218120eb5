/**
 * The image viewer ("Ver imagen en grande") in Chromium: the picture as large as the viewport
 * allows, its shape kept, a small one at up to twice its size (so larger than its thumbnail); the
 * close button beside the picture, never over it; a click on the dimmed area around it closes it,
 * as Esc and the button do, and focus goes back to the thumbnail.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { deepActive, listOf, makeContext, mountWidget, msg, nextFrame, waitFor } from './helpers.ts';

afterEach(async () => {
  document.body.replaceChildren();
  await page.viewport(1280, 800);
});

/** The demo's picture (96 × 96, server/live/assets.ts makePng) and a 480 × 320 photo. */
const SMALL = '/test/browser/fixtures/charla-96.png';
const PHOTO = '/demo/media/pan.png';

async function openViewer(width: number, height: number, path: string) {
  await page.viewport(width, height);
  const f = makeContext({ ui: { open: true } });
  f.stores.$currentMessages.set([
    msg({ id: 'pic', type: 'IMAGE', mediaUrl: `${location.origin}${path}?v=${Math.random()}` }),
  ]);
  const widget = await mountWidget(f);
  const { rows, list } = listOf(widget);
  const row = await waitFor(() => rows()[0], 'row');
  const thumb = await waitFor(() => row.querySelector<HTMLImageElement>('.image__open img'), 'thumbnail');
  const dialog = row.querySelector('dialog')!;
  const picture = dialog.querySelector('img')!;
  await waitFor(() => thumb.naturalWidth > 0 && picture.naturalWidth > 0, 'pictures loaded');
  for (let i = 0; i < 3; i++) await nextFrame();
  const open = row.querySelector<HTMLButtonElement>('.image__open')!;
  open.focus();
  await userEvent.keyboard('{Enter}');
  await waitFor(() => dialog.open, 'viewer open');
  await nextFrame();
  const close = dialog.querySelector<HTMLButtonElement>('.lightbox__close')!;
  const root = list!.shadowRoot!;
  return { open, thumb, dialog, picture, close, root };
}

const centre = (r: DOMRect) => [r.left + r.width / 2, r.top + r.height / 2] as const;
const overlap = (a: DOMRect, b: DOMRect) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('image viewer', () => {
  it('shows a 96 px picture at twice its size, larger than its thumbnail, with the close button clear of it', async () => {
    const { thumb, picture, close, root } = await openViewer(1280, 800, SMALL);
    const t = thumb.getBoundingClientRect();
    const p = picture.getBoundingClientRect();
    expect([t.width, t.height]).toEqual([96, 96]);
    expect([p.width, p.height]).toEqual([192, 192]);
    // Centred in the viewport, side to side.
    expect(Math.abs(p.left + p.width / 2 - 640)).toBeLessThanOrEqual(1);
    const c = close.getBoundingClientRect();
    expect(overlap(c, p), `button ${JSON.stringify(c)} over picture ${JSON.stringify(p)}`).toBe(false);
    expect(root.elementFromPoint(...centre(p))).toBe(picture);
    expect(root.elementFromPoint(...centre(c))?.closest('.lightbox__close')).toBe(close);
  });

  for (const [w, h] of [
    [1280, 800],
    [568, 320],
    [320, 568],
  ] as const) {
    it(`at ${w} × ${h} shows a 480 × 320 photo as large as fits, its shape kept, the button clear of it`, async () => {
      const { picture, close } = await openViewer(w, h, PHOTO);
      const p = picture.getBoundingClientRect();
      const c = close.getBoundingClientRect();
      expect(p.width / p.height).toBeCloseTo(1.5, 1);
      expect(p.left).toBeGreaterThanOrEqual(0);
      expect(p.top).toBeGreaterThanOrEqual(0);
      expect(p.right).toBeLessThanOrEqual(w);
      expect(p.bottom).toBeLessThanOrEqual(h);
      expect(overlap(c, p)).toBe(false);
      expect(c.top).toBeGreaterThanOrEqual(0);
      expect(c.right).toBeLessThanOrEqual(w);
      // As large as fits (within a margin for the button), and never past twice its own size.
      expect(p.width).toBeLessThanOrEqual(960);
      expect(p.width === 960 || p.width >= w - 48 || p.height >= h - 80, JSON.stringify(p)).toBe(true);
    });
  }

  it('closes on a click outside the picture, not on one on it, and gives focus back to the thumbnail', async () => {
    const { open, dialog, picture, root } = await openViewer(568, 320, SMALL);
    await userEvent.click(picture);
    expect(dialog.open, 'a click on the picture keeps it open').toBe(true);
    // The bottom left corner of the viewport: the dimmed area around the picture.
    const at = root.elementFromPoint(8, 312);
    expect(at).toBe(dialog);
    await userEvent.click(dialog, { position: { x: 8, y: 312 } });
    await waitFor(() => !dialog.open, 'viewer closed by the click outside the picture');
    expect(deepActive()).toBe(open);
  });

  it('still closes with Esc and with its button, focus back on the thumbnail each time', async () => {
    const { open, dialog, close } = await openViewer(1280, 800, SMALL);
    expect(deepActive()).toBe(close);
    await userEvent.keyboard('{Escape}');
    await waitFor(() => !dialog.open, 'closed by Esc');
    expect(deepActive()).toBe(open);
    await userEvent.keyboard('{Enter}');
    await waitFor(() => dialog.open, 'open again');
    await userEvent.click(close);
    await waitFor(() => !dialog.open, 'closed by its button');
    expect(deepActive()).toBe(open);
  });
});
