/**
 * The composer's field at 320 px (a small phone, the panel full screen): attach and location go
 * behind one "more" toggle there (the microphone stays), so the field gets a usable width; at
 * 1280 px (the 380 px panel) the bar is as it was, every button beside the field.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { axeViolations, deep, deepActive, makeContext, mountWidget, nextFrame } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

const SECONDARY = ['attach-button', 'location-button'];

async function composerAt(width: number, language: 'es' | 'en' = 'es') {
  await page.viewport(width, 700);
  const f = makeContext({ ui: { open: true } });
  f.stores.$language.set(language);
  const widget = await mountWidget(f);
  const root = deep(widget, 'charla-chat', 'charla-composer')!.shadowRoot!;
  const part = (name: string) => root.querySelector<HTMLButtonElement>(`[part=${name}]`);
  const area = root.querySelector('textarea')!;
  return { root, part, area, box: (el: Element) => el.getBoundingClientRect() };
}

/** Rendered with a box (display: none and [hidden] have none). */
const shown = (el: Element | null) => !!el && el.getClientRects().length > 0;

describe('<charla-composer> at 320 px and 1280 px', () => {
  it('gives the field at least 180 px at 320 px, and leaves the 1280 px bar as it was', async () => {
    const narrow = await composerAt(320);
    // 128 px before, beside four 40 px buttons.
    expect(narrow.box(narrow.area).width).toBeGreaterThanOrEqual(180);
    expect(getComputedStyle(narrow.area).fontSize).toBe('16px');
    for (const name of SECONDARY) expect(shown(narrow.part(name)), name).toBe(false);
    expect(shown(narrow.part('more-button'))).toBe(true);
    expect(narrow.part('more-button')!.getAttribute('aria-label')).toBe('Más opciones');
    expect(narrow.part('more-button')!.getAttribute('aria-expanded')).toBe('false');
    // The microphone, the toggle and send stay beside the field, all of it within the screen.
    const row = narrow.box(narrow.area);
    for (const name of ['more-button', 'mic-button', 'send-button']) {
      const b = narrow.box(narrow.part(name)!);
      expect(b.bottom, `${name} on the field's row`).toBeGreaterThan(row.top);
      expect(Math.min(b.width, b.height), `${name} target`).toBeGreaterThanOrEqual(24);
      expect(b.right).toBeLessThanOrEqual(320);
    }
    expect(await axeViolations()).toEqual([]);
    document.body.replaceChildren();

    const wide = await composerAt(1280, 'en');
    // The 380 px panel's field: 188 px, as before, with every button beside it and no toggle.
    expect(wide.box(wide.area).width).toBeGreaterThanOrEqual(188);
    expect(shown(wide.part('more-button'))).toBe(false);
    const field = wide.box(wide.area);
    for (const name of [...SECONDARY, 'mic-button']) {
      const b = wide.box(wide.part(name)!);
      expect(shown(wide.part(name)), name).toBe(true);
      expect(b.right, `${name} left of the field`).toBeLessThanOrEqual(field.left);
      expect(b.bottom, `${name} on the field's row`).toBeGreaterThan(field.top);
    }
    expect(await axeViolations()).toEqual([]);
  });

  it('opens and closes the other buttons by keyboard, on a row above the field, named', async () => {
    const { root, part, area, box } = await composerAt(320, 'en');
    const more = part('more-button')!;
    area.focus();
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}{Shift>}{Tab}{/Shift}');
    expect(deepActive()).toBe(more);
    expect(more.getAttribute('aria-label')).toBe('More options');
    await userEvent.keyboard('{Enter}');
    await nextFrame();
    expect(more.getAttribute('aria-expanded')).toBe('true');
    // It names what it opened (only then: an id of nothing is no reference).
    expect(root.getElementById(more.getAttribute('aria-controls')!)?.contains(part('attach-button'))).toBe(
      true,
    );
    // Tab goes through them, in order, then to the field.
    const names: string[] = [];
    for (const name of SECONDARY) {
      await userEvent.keyboard('{Tab}');
      expect(deepActive()).toBe(part(name));
      names.push(part(name)!.getAttribute('aria-label')!);
    }
    expect(names).toEqual(['Attach an image or document', 'Share location']);
    await userEvent.keyboard('{Tab}');
    expect(deepActive()).toBe(part('mic-button'));
    await userEvent.keyboard('{Tab}');
    expect(deepActive()).toBe(area);
    // Their own row, above the field, which keeps its width; nothing wider than the screen.
    for (const name of SECONDARY) {
      expect(shown(part(name)), name).toBe(true);
      expect(box(part(name)!).bottom).toBeLessThanOrEqual(box(area).top);
      expect(box(part(name)!).right).toBeLessThanOrEqual(320);
    }
    expect(box(area).width).toBeGreaterThanOrEqual(180);
    expect(await axeViolations()).toEqual([]);
    // Closed again from the toggle.
    more.focus();
    await userEvent.keyboard(' ');
    await nextFrame();
    expect(more.getAttribute('aria-expanded')).toBe('false');
    for (const name of SECONDARY) expect(shown(part(name)), name).toBe(false);
    expect(deepActive()).toBe(more);
  });

  it('puts the row away with Esc, back on the toggle, and leaves the panel open', async () => {
    const { part } = await composerAt(320, 'en');
    const more = part('more-button')!;
    more.focus();
    await userEvent.keyboard('{Enter}');
    await nextFrame();
    await userEvent.keyboard('{Tab}');
    expect(deepActive()).toBe(part('attach-button'));
    await userEvent.keyboard('{Escape}');
    await nextFrame();
    expect(more.getAttribute('aria-expanded')).toBe('false');
    for (const name of SECONDARY) expect(shown(part(name)), name).toBe(false);
    expect(deepActive()).toBe(more);
    const panel = document.querySelector('charla-widget')!.shadowRoot!.querySelector('[part=panel]');
    expect(shown(panel)).toBe(true);
    // Esc again, the row already away: the panel's (it closes).
    await userEvent.keyboard('{Escape}');
    await nextFrame();
    expect(shown(panel)).toBe(false);
  });

  it('never leaves focus on a button the new width takes away', async () => {
    const { part } = await composerAt(320, 'en');
    // A height changed inside the observer's callback would be an error on the host page.
    const errors: string[] = [];
    const onError = (event: ErrorEvent) => errors.push(event.message);
    window.addEventListener('error', onError);
    // Narrow to wide with the toggle focused: the toggle goes, attach (what it opened) takes focus.
    part('more-button')!.focus();
    await page.viewport(1280, 700);
    await expect.poll(() => shown(part('more-button'))).toBe(false);
    await expect.poll(() => deepActive()).toBe(part('attach-button'));
    // Wide to narrow with location focused: the row stays open around it.
    part('location-button')!.focus();
    await page.viewport(320, 700);
    await expect.poll(() => shown(part('more-button'))).toBe(true);
    expect(part('more-button')!.getAttribute('aria-expanded')).toBe('true');
    expect(deepActive()).toBe(part('location-button'));
    expect(shown(part('location-button'))).toBe(true);
    await nextFrame();
    window.removeEventListener('error', onError);
    expect(errors).toEqual([]);
  });
});
