import { describe, expect, it } from 'vitest';
import { contrast, edgeOn, themeProperties } from '../../../src/styles/theme.ts';

/** Brand colours from white to near black, light yellow and the default blue among them. */
const BRANDS = ['#ffee00', '#ffffff', '#808080', '#1e3a8a', '#2563eb', '#000000', '#e11d48', '#9fe870'];
/** The light and the dark scheme's surfaces (base.ts tokens). */
const LIGHT = ['#ffffff', '#f6f7f9'];
const DARK = ['#16181c', '#1f2227'];

describe('theme: control edges in the brand colour', () => {
  it('stand at least 3:1 against every surface of their scheme', () => {
    for (const brand of BRANDS) {
      const props = themeProperties({ primaryColor: brand });
      const light = props['--_edge-light']!;
      const dark = props['--_edge-dark']!;
      for (const s of LIGHT)
        expect(contrast(light, s), `${brand} edge ${light} on ${s}`).toBeGreaterThanOrEqual(3);
      for (const s of DARK)
        expect(contrast(dark, s), `${brand} edge ${dark} on ${s}`).toBeGreaterThanOrEqual(3);
    }
  });

  it('and their words 4.5:1 against the panel’s surfaces, the hover’s included', () => {
    for (const brand of BRANDS) {
      const props = themeProperties({ primaryColor: brand });
      // On the surface and on the hover's (options turn to the second under the pointer).
      for (const surface of LIGHT)
        expect(contrast(props['--_text-light']!, surface), `${brand} on ${surface}`).toBeGreaterThanOrEqual(
          4.5,
        );
      for (const surface of DARK)
        expect(contrast(props['--_text-dark']!, surface), `${brand} on ${surface}`).toBeGreaterThanOrEqual(
          4.5,
        );
    }
    // A brand colour that reads already is kept as it is.
    expect(themeProperties({ primaryColor: '#b45309' })['--_text-light']).toBe('#b45309');
  });

  it('keep the brand colour when it already stands out, and its hue when it does not', () => {
    expect(edgeOn('#2563eb', '#f6f7f9')).toBe('#2563eb');
    expect(edgeOn('#1e3a8a', '#1f2227')).not.toBe('#1e3a8a');
    // Light yellow becomes a dark yellow (red and green ahead of blue), not grey or black.
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(edgeOn('#ffee00', '#f6f7f9').slice(i, i + 2), 16));
    expect(r! > b! && g! > b!).toBe(true);
    // Well clear of grey: red and green each a quarter of the range above blue (#998f00 today).
    expect(Math.min(r!, g!) - b!).toBeGreaterThan(0x40);
  });
});
