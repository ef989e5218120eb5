/**
 * Opening the chat on a touch screen (no fine pointer): focus goes to the messages, not the
 * text field, whose focus raises the on-screen keyboard over half of them (a reviewer's phone
 * runs had the field focused at 320 × 568 and 667 × 375, not at 375 × 667). With a mouse or a
 * keyboard, the text field as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cdp, page } from 'vitest/browser';
import { deep, deepActive, listOf, makeContext, manyMessages, mountWidget, waitFor } from './helpers.ts';

afterEach(async () => {
  document.body.replaceChildren();
  await cdp().send('Emulation.setTouchEmulationEnabled', { enabled: false });
});

async function openFromLauncher() {
  const f = makeContext({ ui: { open: false } });
  f.stores.$currentMessages.set(manyMessages(30));
  const widget = await mountWidget(f);
  const launcher = await waitFor(
    () => widget.shadowRoot!.querySelector<HTMLButtonElement>('[part~=launcher]'),
    'the launcher',
  );
  launcher.focus();
  launcher.click();
  await waitFor(() => deep(widget, 'charla-chat', 'charla-composer'), 'the composer');
  // Where focus settles once the panel is open and its views have rendered.
  await waitFor(() => deepActive() !== launcher || null, 'focus leaves the launcher', 2000);
  await new Promise((r) => setTimeout(r, 100));
  return { active: deepActive(), scroller: listOf(widget).scroller };
}

describe('<charla-widget> opened from the launcher', () => {
  for (const [w, h] of [
    [320, 568],
    [375, 667],
    [667, 375],
  ] as const)
    it(`on a touch screen at ${w} × ${h}: focus on the messages, no keyboard raised`, async () => {
      await page.viewport(w, h);
      await cdp().send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
      const { active, scroller } = await openFromLauncher();
      expect(active?.tagName).not.toBe('TEXTAREA');
      expect(active).toBe(scroller);
    });

  it('with a mouse and keyboard: focus in the text field', async () => {
    await page.viewport(1280, 800);
    const { active } = await openFromLauncher();
    expect(active?.tagName).toBe('TEXTAREA');
  });
});
