/**
 * WCAG 1.4.11 with the host's brand colour, in Chromium: the edges of the controls drawn in it
 * (options, chips, the send button, the contact form's submit button) stand at least 3:1 against
 * what is behind them, in the light and the dark scheme, however light or dark the colour is; the
 * words of the options and chips take the brand colour at 4.5:1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cdp, page } from 'vitest/browser';
import { contrast, themeProperties } from '../../src/styles/theme.ts';
import { makeContext, mountWidget, msg, waitFor } from './helpers.ts';

afterEach(async () => {
  document.body.replaceChildren();
  await cdp().send('Emulation.setEmulatedMedia', {
    features: [{ name: 'prefers-color-scheme', value: 'light' }],
  });
});

/** Elements matching a selector in the document and every shadow root under it. */
function deepAll(selector: string, root: ParentNode = document): HTMLElement[] {
  const out = [...root.querySelectorAll<HTMLElement>(selector)];
  for (const el of root.querySelectorAll('*'))
    if (el.shadowRoot) out.push(...deepAll(selector, el.shadowRoot));
  return out;
}

/** A computed rgb()/rgba() colour as #rrggbb (the edges and surfaces here are opaque). */
function hex(color: string): string {
  const [r, g, b, a = 1] = color.match(/[\d.]+/g)!.map(Number);
  expect(a, color).toBe(1);
  return `#${[r, g, b].map((c) => Math.round(c!).toString(16).padStart(2, '0')).join('')}`;
}

/** The background of the nearest ancestor that paints one, across shadow roots. */
function behind(el: Element): string {
  for (let n: Element | null = el; n; n = n.parentElement ?? ((n.getRootNode() as ShadowRoot).host || null)) {
    const bg = getComputedStyle(n).backgroundColor;
    if (n !== el && !bg.endsWith(', 0)') && bg !== 'transparent') return hex(bg);
  }
  return '#ffffff';
}

describe('control edges in the brand colour', () => {
  for (const scheme of ['light', 'dark'] as const) {
    for (const brand of ['#ffee00', '#ffffff', '#808080', '#1e3a8a', '#b45309']) {
      it(`are at least 3:1 against their surface, their words 4.5:1 in the brand colour, with ${brand} (${scheme})`, async () => {
        await cdp().send('Emulation.setEmulatedMedia', {
          features: [{ name: 'prefers-color-scheme', value: scheme }],
        });
        await page.viewport(1280, 900);
        const f = makeContext({
          ui: { open: true },
          config: { theme: { primaryColor: brand, colorScheme: 'auto' } as never },
        });
        f.stores.$currentMessages.set([
          msg({
            text: 'Elige',
            options: [{ type: 'postback', title: 'Planes', payload: {}, order: 0 }],
            interactive: { kind: 'voice_call', displayText: 'Llamar' },
          }),
          msg({ text: 'Tus datos', interactive: { kind: 'contact_info_request' } }),
          msg({ text: '¿Algo más?', QuickReplies: [{ title: 'Sí', payload: {}, contentType: 'text' }] }),
        ]);
        await mountWidget(f);
        await waitFor(() => deepAll('.pill-button, [part~=send-button]').length === 2, 'form');
        const controls = deepAll('.option, .chip, [part~=send-button], .pill-button');
        expect(controls.map((c) => c.className.split(' ')[0])).toEqual(
          expect.arrayContaining(['option', 'chip', 'icon-button', 'pill-button']),
        );
        for (const control of controls) {
          const style = getComputedStyle(control);
          expect(parseFloat(style.borderTopWidth), control.className).toBeGreaterThan(0);
          const edge = hex(style.borderTopColor);
          const ratio = contrast(edge, behind(control));
          expect(ratio, `${control.className} ${edge} on ${behind(control)}`).toBeGreaterThanOrEqual(3);
          // The empty composer's send button is disabled: faded in its colour, not to 45 % opacity
          // (that took its edge's contrast with it).
          if (control.matches('[part~=send-button]')) {
            expect((control as HTMLButtonElement).disabled, 'send button disabled').toBe(true);
            expect(style.opacity, control.className).toBe('1');
          }
        }
        // The words of the options and chips are in the brand colour too (they stayed the default
        // blue under an amber brand), darkened or lightened to 4.5:1 on their own surface.
        const words = themeProperties({ primaryColor: brand })[
          scheme === 'light' ? '--_text-light' : '--_text-dark'
        ];
        for (const control of deepAll('.option, .chip')) {
          const style = getComputedStyle(control);
          expect(hex(style.color), control.className).toBe(words);
          const ratio = contrast(hex(style.color), hex(style.backgroundColor));
          expect(ratio, `${control.className} words on its surface`).toBeGreaterThanOrEqual(4.5);
        }
      });
    }
  }
});
