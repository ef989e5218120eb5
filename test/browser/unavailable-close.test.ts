/**
 * A widget that could not start, on a phone: the full-screen panel covers the launcher and a
 * touch user has no Esc, so the panel has its own close button (a reviewer was left on a blank
 * screen with nothing to tap). It closes the panel and gives focus back to the launcher.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { axeViolations, deepActive, makeContext, mountWidget, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

describe('<charla-widget> that could not start', () => {
  for (const [w, h] of [
    [375, 667],
    [1280, 800],
  ] as const)
    it(`has a close button in view at ${w} × ${h} that closes the panel`, async () => {
      await page.viewport(w, h);
      const f = makeContext({ ui: { open: true } });
      f.stores.$config.set(null);
      f.stores.$connection.set('error');
      f.stores.$lastError.set({
        message: 'Unknown key',
        code: 'E0401',
        key: 'UNAUTHORIZED',
        transient: false,
      });
      const widget = await mountWidget(f);
      const close = await waitFor(
        () => widget.shadowRoot!.querySelector<HTMLButtonElement>('[part=unavailable] [part=close-button]'),
        'the close button',
      );
      const box = close.getBoundingClientRect();
      expect(box.width).toBeGreaterThanOrEqual(24);
      expect(box.height).toBeGreaterThanOrEqual(24);
      expect(box.top).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(w);
      // What the visitor taps is the button itself, not something over it.
      const hit = widget.shadowRoot!.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      expect(close.contains(hit)).toBe(true);
      expect(close.getAttribute('aria-label')).toBe('Cerrar chat');
      // Not a blank panel: the chat's mark (hidden from screen readers) above the words.
      const mark = widget.shadowRoot!.querySelector('[part=unavailable] .unavailable__icon')!;
      const words = widget.shadowRoot!.querySelector('[part=unavailable] p')!;
      expect(mark.getAttribute('aria-hidden')).toBe('true');
      expect(mark.querySelector('svg')).not.toBeNull();
      expect(mark.getBoundingClientRect().bottom).toBeLessThanOrEqual(words.getBoundingClientRect().top);
      expect(mark.getBoundingClientRect().height).toBeGreaterThan(40);
      expect(await axeViolations()).toEqual([]);
      // As a tap or click does: focus on the button, then the click.
      close.focus();
      close.click();
      await waitFor(() => f.stores.$ui.get().open === false || null, 'closed');
      await waitFor(
        () => deepActive()?.getAttribute('part')?.includes('launcher') || null,
        'focus on the launcher',
      );
    });
});
