/**
 * The contact lists in Chromium: a contact's colour really paints its initials' circle (set
 * through the CSSOM, so a strict CSP allows it), with text at 4.5:1 at least, in the light and
 * the dark scheme; a refused choice's message passes axe. The context is the test fixture's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cdp } from 'vitest/browser';
import { CharlaError } from '../../src/transport/errors.ts';
import { contrast } from '../../src/styles/theme.ts';
import { errorBody } from '../../types/index.ts';
import { axeViolations, makeContext, mountWidget, waitFor } from './helpers.ts';

afterEach(async () => {
  document.body.replaceChildren();
  await cdp().send('Emulation.setEmulatedMedia', { features: [] });
});

/** rgb(…) as #rrggbb. */
const hex = (rgb: string) =>
  '#' +
  (rgb.match(/\d+/g) ?? [])
    .slice(0, 3)
    .map((n) => Number(n).toString(16).padStart(2, '0'))
    .join('');

const COLORS = ['#1d4ed8', '#fd0', '#777777', '#00ff00', '#000', '#ffffff'];

describe('contacts in <charla-home-menu>', () => {
  for (const scheme of ['light', 'dark'])
    it(`paint each contact’s colour behind its initials, text at 4.5:1 at least (${scheme})`, async () => {
      await cdp().send('Emulation.setEmulatedMedia', {
        features: [{ name: 'prefers-color-scheme', value: scheme }],
      });
      const f = makeContext({
        ui: { view: 'home' },
        config: { properties: { type: 'group' }, theme: { colorScheme: 'auto' } },
      });
      f.stores.$contacts.set([
        ...COLORS.map((color, i) => ({ id: `c${i}`, names: `Persona ${i}`, color })),
        { id: 'x', names: 'Sin Color', color: 'url(https://evil.example/x)' },
      ]);
      const widget = await mountWidget(f);
      const home = await waitFor(() => widget.shadowRoot?.querySelector('charla-home-menu'), 'the home menu');
      const avatars = [...home.shadowRoot!.querySelectorAll<HTMLElement>('[part=contact] .avatar')];
      expect(avatars).toHaveLength(COLORS.length + 1);
      avatars.slice(0, COLORS.length).forEach((a, i) => {
        const style = getComputedStyle(a);
        const bg = hex(style.backgroundColor);
        expect(bg).toBe(expandHex(COLORS[i]!));
        expect(contrast(bg, hex(style.color))).toBeGreaterThanOrEqual(4.5);
      });
      // A value that is not a colour leaves the theme's avatar colours.
      const plain = getComputedStyle(avatars[COLORS.length]!);
      expect(hex(plain.backgroundColor)).toBe(scheme === 'dark' ? '#3a4556' : '#dbe4f0');
    });

  for (const scheme of ['light', 'dark'])
    it(`say a refused choice in the view, in the scheme's colours, and the view passes axe (WCAG 2.2 AA; ${scheme})`, async () => {
      await cdp().send('Emulation.setEmulatedMedia', {
        features: [{ name: 'prefers-color-scheme', value: scheme }],
      });
      const f = makeContext({
        ui: { view: 'home' },
        config: { properties: { type: 'group' }, theme: { colorScheme: 'auto' } },
      });
      f.stores.$contacts.set([{ id: 'me', names: 'Yo Mismo', color: '#1d4ed8' }]);
      f.context.actions.openRoomWithUser = () =>
        Promise.reject(new CharlaError(errorBody('VALIDATION_ERROR'), 400)) as never;
      const widget = await mountWidget(f);
      const home = await waitFor(() => widget.shadowRoot?.querySelector('charla-home-menu'), 'the home menu');
      home.shadowRoot!.querySelector<HTMLButtonElement>('[part=contact]')!.click();
      const alert = await waitFor(() => home.shadowRoot!.querySelector('[role=alert]'), 'the alert');
      expect(alert.textContent?.trim()).toBe('No se pudo abrir la conversación con Yo Mismo.');
      // A dark panel has a dark notice (it was a pale pink patch on it), its text at 4.5:1 at least.
      const style = getComputedStyle(alert);
      expect(hex(style.backgroundColor)).toBe(scheme === 'dark' ? '#3b1f1f' : '#fdecea');
      expect(contrast(hex(style.backgroundColor), hex(style.color))).toBeGreaterThanOrEqual(4.5);
      expect(await axeViolations()).toEqual([]);
    });
});

function expandHex(c: string): string {
  return c.length === 4 ? `#${[...c.slice(1)].map((x) => x + x).join('')}` : c;
}
