/**
 * The send button, empty composer and with text, in Chromium's light and dark schemes and with a
 * dark and a light brand colour: enabled, its icon stands out on its fill (3:1, WCAG 1.4.11) and its
 * edge on the composer; disabled, the fill and the icon both fade, the icon under 3:1 on its fill,
 * which no enabled control's icon is. (The icon's colour rule used to outrank the disabled one, so
 * the disabled button kept a crisp icon: white on navy, 10:1, in the dark scheme.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cdp, page, userEvent } from 'vitest/browser';
import { contrast } from '../../src/styles/theme.ts';
import { deep, makeContext, mountWidget, nextFrame, waitFor } from './helpers.ts';

afterEach(async () => {
  document.body.replaceChildren();
  await cdp().send('Emulation.setEmulatedMedia', {
    features: [{ name: 'prefers-color-scheme', value: 'light' }],
  });
});

/** A computed colour (rgb(), or color(srgb …) from color-mix) as an opaque #rrggbb. */
function hex(color: string): string {
  const srgb = color.startsWith('color(');
  const [r, g, b, a = 1] = color
    .replace(/^color\(srgb/, '')
    .match(/[\d.]+/g)!
    .map(Number);
  expect(a, color).toBe(1);
  const byte = (c: number) =>
    Math.round(srgb ? c * 255 : c)
      .toString(16)
      .padStart(2, '0');
  return `#${byte(r!)}${byte(g!)}${byte(b!)}`;
}

describe('<charla-composer> send button', () => {
  for (const scheme of ['light', 'dark'] as const) {
    for (const brand of [undefined, '#ffee00']) {
      it(`looks disabled when empty and enabled with text (${scheme}, brand ${brand ?? 'default'})`, async () => {
        await cdp().send('Emulation.setEmulatedMedia', {
          features: [{ name: 'prefers-color-scheme', value: scheme }],
        });
        await page.viewport(1280, 800);
        const theme = { colorScheme: 'auto', ...(brand ? { primaryColor: brand } : {}) };
        const widget = await mountWidget(makeContext({ ui: { open: true }, config: { theme } as never }));
        const composer = await waitFor(() => deep(widget, 'charla-chat', 'charla-composer'), 'composer');
        const send = composer.shadowRoot!.querySelector<HTMLButtonElement>('[part=send-button]')!;
        const surface = hex(getComputedStyle(composer).backgroundColor);
        const look = () => {
          const s = getComputedStyle(send);
          const fill = hex(s.backgroundColor);
          return { fill, icon: hex(s.color), edge: hex(s.borderTopColor), opacity: s.opacity };
        };

        expect(send.disabled).toBe(true);
        const off = look();
        const area = composer.shadowRoot!.querySelector('textarea')!;
        area.focus();
        await userEvent.keyboard('Hola');
        await waitFor(() => !send.disabled, 'the send button enabled');
        await nextFrame();
        const on = look();

        const offIcon = contrast(off.icon, off.fill);
        const onIcon = contrast(on.icon, on.fill);
        const report = JSON.stringify({ surface, off, on, offIcon, onIcon });
        // Enabled: a control one can see and read.
        expect(onIcon, report).toBeGreaterThanOrEqual(3);
        expect(contrast(on.edge, surface), report).toBeGreaterThanOrEqual(3);
        // Disabled: a faded fill and an icon that fades with it; the edge keeps its shape in view.
        expect(off.fill, report).not.toBe(on.fill);
        expect(offIcon, report).toBeLessThan(3);
        expect(offIcon, report).toBeLessThan(onIcon / 1.5);
        expect(off.opacity).toBe('1');
        expect(contrast(off.edge, surface), report).toBeGreaterThanOrEqual(3);
      });
    }
  }
});
