/**
 * The panel on a short viewport (a phone held sideways, and that phone with its on-screen keyboard
 * up): full screen like on a narrow one, modal, with the header and the whole composer on screen and
 * the message list taking what is left. A tall window keeps the floating panel.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { nextFrame, openChatAt } from './helpers.ts';

afterEach(async () => {
  document.body.replaceChildren();
  await page.viewport(1280, 800);
});

describe('<charla-widget> on a short viewport', () => {
  for (const [w, h] of [
    [568, 320],
    [667, 375],
    [568, 300],
    [568, 200],
    [320, 200],
  ] as const) {
    it(`at ${w} × ${h} the panel fills the screen, with the header, the list and the whole composer in it`, async () => {
      const { widget, panel, header, composer, scroller } = await openChatAt(w, h);
      const p = panel.getBoundingClientRect();
      expect([p.left, p.top, p.width, p.height]).toEqual([0, 0, w, h]);
      // Full screen is modal (the JS side agrees with the CSS), and the launcher is out of the way.
      expect(panel.getAttribute('aria-modal')).toBe('true');
      const launcher = widget.shadowRoot!.querySelector<HTMLElement>('[part=launcher]')!;
      expect(launcher.getClientRects()).toHaveLength(0);

      const hd = header.getBoundingClientRect();
      const list = scroller.getBoundingClientRect();
      const cp = composer.getBoundingClientRect();
      expect(hd.top).toBe(0);
      expect(cp.bottom).toBeLessThanOrEqual(h);
      // Stacked without overlap, and together exactly the panel's height: the list takes the rest.
      expect(list.top).toBeGreaterThanOrEqual(hd.bottom - 0.5);
      expect(cp.top).toBeGreaterThanOrEqual(list.bottom - 0.5);
      expect(list.height, `list ${list.height} px`).toBeGreaterThan(0);
      expect(Math.abs(hd.height + list.height + cp.height - h)).toBeLessThanOrEqual(1);
      // Every control of the composer is whole and is what a tap at its centre reaches.
      for (const control of composer.shadowRoot!.querySelectorAll<HTMLElement>('textarea, button')) {
        if (control.getClientRects().length === 0) continue;
        const r = control.getBoundingClientRect();
        expect(r.top, control.className).toBeGreaterThanOrEqual(cp.top);
        expect(r.bottom, control.className).toBeLessThanOrEqual(h);
        const hit = composer.shadowRoot!.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        expect(hit && control.contains(hit), `${control.className} reachable`).toBe(true);
      }
      // Every header button too.
      for (const button of header.querySelectorAll<HTMLElement>('button')) {
        const r = button.getBoundingClientRect();
        expect(r.top).toBeGreaterThanOrEqual(0);
        expect(r.bottom).toBeLessThanOrEqual(hd.bottom);
      }
    });
  }

  it('at 568 × 200 a message of many lines grows the field no further than leaves the list some room', async () => {
    const { header, composer, scroller } = await openChatAt(568, 200);
    const area = composer.shadowRoot!.querySelector('textarea')!;
    const one = area.getBoundingClientRect().height;
    area.focus();
    await userEvent.keyboard('a{Shift>}{Enter}{Enter}{Enter}{Enter}{Enter}{Enter}{/Shift}z');
    await nextFrame();
    // It grew, then stopped and scrolls (five lines would be 130 px: the composer ran 7 px off screen).
    expect(area.getBoundingClientRect().height).toBeGreaterThan(one);
    expect(area.scrollHeight).toBeGreaterThan(area.clientHeight);
    const cp = composer.getBoundingClientRect();
    const hd = header.getBoundingClientRect();
    const list = scroller.getBoundingClientRect();
    expect(hd.top).toBe(0);
    expect(cp.bottom).toBeLessThanOrEqual(200);
    expect(cp.top).toBeGreaterThanOrEqual(hd.bottom);
    // At least the height of a short message row (a bubble and its time: about 50 px) stays for the list.
    expect(list.height).toBeGreaterThanOrEqual(50);
  });

  it('at 1280 × 800 the panel still floats above the launcher, not modal', async () => {
    const { widget, panel } = await openChatAt(1280, 800);
    const p = panel.getBoundingClientRect();
    expect(p.width).toBe(380);
    expect(p.height).toBe(640);
    expect(panel.hasAttribute('aria-modal')).toBe(false);
    const launcher = widget.shadowRoot!.querySelector<HTMLElement>('[part=launcher]')!;
    expect(p.bottom).toBeLessThanOrEqual(launcher.getBoundingClientRect().top);
  });
});
