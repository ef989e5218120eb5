/**
 * The message list under a host page's `html { zoom }` (CSS zoom, not the browser's). Chromium's
 * standardized zoom gives getBoundingClientRect in the page's zoomed pixels while scrollTop,
 * scrollHeight, clientHeight and the rows' transforms stay in the list's own (unzoomed) pixels:
 * the virtualizer measured rows and the view one way and placed them the other, so at zoom 2 it
 * spread the rows twice as far apart as they are tall and showed none of them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { listOf, makeContext, manyMessages, mountWidget, msg, nextFrame, waitFor } from './helpers.ts';

afterEach(() => {
  document.body.replaceChildren();
  document.documentElement.style.zoom = '';
});

async function frames(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await nextFrame();
}

/**
 * Six messages by default: at zoom 2 the list's view is about 180 of its own pixels, and all six
 * rows fit in it and the layout's overhang, so every row is measured before the keys are
 * pressed. (With rows still unmeasured above the view, the virtualizer's corrections as they
 * render can stop a keyboard's smooth scroll short of the top, zoomed or not: another matter.)
 */
async function mountZoomed(zoom: number, messages = manyMessages(6)) {
  await page.viewport(1280, 800);
  document.documentElement.style.zoom = String(zoom);
  const f = makeContext();
  f.stores.$currentMessages.set(messages);
  const widget = await mountWidget(f);
  const { rows, scroller } = listOf(widget);
  const el = scroller!;
  await waitFor(() => rows().length > 0, 'rows');
  await frames(8);
  /** The ids of the rows whose box is (at least partly) inside the list's view. */
  const visible = () => {
    const view = el.getBoundingClientRect();
    return rows()
      .filter((r) => {
        const box = r.getBoundingClientRect();
        return box.height > 0 && box.bottom > view.top + 1 && box.top < view.bottom - 1;
      })
      .map((r) => r.getAttribute('data-id'));
  };
  /** A row's box entirely inside the list's view. */
  const inside = (id: string) => {
    const view = el.getBoundingClientRect();
    const row = rows().find((r) => r.getAttribute('data-id') === id);
    const box = row?.getBoundingClientRect();
    return !!box && box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
  };
  /** The largest gap or overlap between consecutive rendered rows, in the page's pixels. */
  const worstGap = () => {
    const boxes = rows()
      .map((r) => r.getBoundingClientRect())
      .sort((a, b) => a.top - b.top);
    let worst = 0;
    for (let i = 1; i < boxes.length; i++)
      worst = Math.max(worst, Math.abs(boxes[i]!.top - boxes[i - 1]!.bottom));
    return worst;
  };
  return { el, rows, visible, inside, worstGap };
}

describe('<charla-message-list> under html { zoom }', () => {
  for (const zoom of [1.5, 2]) {
    it(`zoom ${zoom}: a room of 3 messages shows all three, end to end`, async () => {
      const three = [
        msg({ id: 'z1', seq: 1, senderId: 'bot1', by: 'bot', text: 'Hola, ¿en qué puedo ayudarte?' }),
        msg({ id: 'z2', seq: 2, senderId: 'me', by: 'user', text: 'Quiero saber el horario' }),
        msg({ id: 'z3', seq: 3, senderId: 'bot1', by: 'bot', text: 'Elige una opción' }),
      ];
      const l = await mountZoomed(zoom, three);
      await waitFor(() => l.visible().length === 3, 'three rows in view').catch(() => undefined);
      expect(l.visible()).toEqual(['z1', 'z2', 'z3']);
      expect(l.worstGap(), 'rows follow each other without gaps').toBeLessThan(2);
    });

    it(`zoom ${zoom}: opens on the newest message; Home reaches the first, End the last`, async () => {
      const l = await mountZoomed(zoom);
      await waitFor(() => l.inside('h5'), 'the newest row in view').catch(() => undefined);
      expect(l.inside('h5'), 'the newest row in view on open').toBe(true);
      expect(l.worstGap(), 'rows follow each other without gaps').toBeLessThan(2);

      l.el.focus();
      await userEvent.keyboard('{Home}');
      await waitFor(() => l.inside('h0'), 'the first row in view').catch(() => undefined);
      await frames(4);
      expect(l.inside('h0'), 'Home shows the first message').toBe(true);
      expect(l.visible().length).toBeGreaterThan(1);
      expect(l.worstGap()).toBeLessThan(2);

      await userEvent.keyboard('{End}');
      await waitFor(() => l.inside('h5'), 'the last row in view').catch(() => undefined);
      await frames(4);
      expect(l.inside('h5'), 'End shows the last message').toBe(true);
      expect(l.visible().length).toBeGreaterThan(1);
    });
  }

  it('zoom 1 (control): Home and End still reach both ends', async () => {
    const l = await mountZoomed(1);
    await waitFor(() => l.inside('h5'), 'the newest row in view');
    l.el.focus();
    await userEvent.keyboard('{Home}');
    await waitFor(() => l.inside('h0'), 'the first row in view');
    await userEvent.keyboard('{End}');
    await waitFor(() => l.inside('h5'), 'the last row in view');
  });
});
