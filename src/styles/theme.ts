/**
 * Turns the widget configuration's `theme` into CSS custom properties of the
 * widget's `:host` (a constructable stylesheet of its shadow root, allowed
 * under `style-src 'self'`, which the host page's own CSS on `charla-widget`
 * still overrides). Values come from the network, so each is validated before
 * it is written into the rule.
 */
import { WIDGET_POSITIONS, type WidgetPosition } from '../../types/enums.ts';

export type PanelPosition = 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left';

const CODES: Record<string, PanelPosition> = {
  br: 'bottom-right',
  bl: 'bottom-left',
  tr: 'top-right',
  tl: 'top-left',
};

/** A position name or code, normalised; bottom-right when absent or unknown. */
export function panelPosition(value: unknown): PanelPosition {
  if (typeof value !== 'string' || !(WIDGET_POSITIONS as readonly string[]).includes(value))
    return 'bottom-right';
  const v = value as WidgetPosition;
  return CODES[v] ?? (v as PanelPosition);
}

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** A #rgb / #rrggbb colour, or null. Only hex: simple to validate and to measure. */
export function safeColor(value: unknown): string | null {
  return typeof value === 'string' && HEX.test(value.trim()) ? value.trim().toLowerCase() : null;
}

function channels(hex: string): [number, number, number] {
  const h = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join('') : hex.slice(1);
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255) as [number, number, number];
}

function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two hex colours. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** White or near-black, whichever reads better on the given colour. */
export function textOn(background: string): string {
  return contrast(background, '#ffffff') >= contrast(background, '#000000') ? '#ffffff' : '#000000';
}

/** The light and dark schemes' surfaces that controls sit on, the darker of the light pair and the lighter of the dark. */
const LIGHT_SURFACE = '#f6f7f9';
const DARK_SURFACE = '#1f2227';

/**
 * A colour for control edges (WCAG 1.4.11): the given colour when it stands 3:1 (or `ratio`: 4.5
 * for text, 1.4.3) against the surface, else the first of its mixes towards black (on a light surface) or white (on a dark
 * one) that does. The brand colour keeps its hue: a light yellow's edge is a dark olive.
 */
export function edgeOn(color: string, surface: string, ratio = 3): string {
  const end = textOn(surface);
  const towards = end === '#ffffff' ? 1 : 0;
  const rgb = channels(color);
  for (let step = 0; step <= 20; step++) {
    const edge = `#${rgb
      .map((c) =>
        Math.round((c + (towards - c) * (step / 20)) * 255)
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')}`;
    if (contrast(edge, surface) >= ratio) return edge;
  }
  return end;
}

const FONT_NAME = /^[A-Za-z0-9 _-]{1,100}$/;
export function safeFontName(value: unknown): string | null {
  return typeof value === 'string' && FONT_NAME.test(value.trim()) ? value.trim() : null;
}

const SYSTEM_STACK = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

/** The primary colour from the places a configuration may carry it. */
function primaryOf(theme: Record<string, unknown>): string | null {
  const colors = theme['colors'];
  const nested =
    colors && typeof colors === 'object' ? (colors as Record<string, unknown>)['primary'] : undefined;
  return safeColor(theme['primaryColor']) ?? safeColor(theme['color']) ?? safeColor(nested);
}

/** Custom properties for a theme (only validated values; absent ones are left to the defaults). */
export function themeProperties(theme: Record<string, unknown> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!theme) return out;
  const primary = primaryOf(theme);
  if (primary) {
    out['--charla-color-primary'] = primary;
    out['--charla-color-on-primary'] = textOn(primary);
    // base.ts's tokens pick one of these for --charla-color-primary-edge by colour scheme.
    out['--_edge-light'] = edgeOn(primary, LIGHT_SURFACE);
    out['--_edge-dark'] = edgeOn(primary, DARK_SURFACE);
    // And for the words of the controls drawn in it (options, chips): 4.5:1 on the surface they
    // sit on or turn to under the pointer, whichever is worse (the hover's, as for the edges).
    out['--_text-light'] = edgeOn(primary, LIGHT_SURFACE, 4.5);
    out['--_text-dark'] = edgeOn(primary, DARK_SURFACE, 4.5);
  }
  const font = theme['font'];
  const name =
    font && typeof font === 'object' ? safeFontName((font as Record<string, unknown>)['name']) : null;
  if (name) out['--charla-font-family'] = `'${name}', ${SYSTEM_STACK}`;
  return out;
}

/** The family a theme asks Google Fonts for (validated), or null. */
export function googleFontName(theme: unknown): string | null {
  const font = (theme as Record<string, unknown> | null | undefined)?.['font'];
  if (!font || typeof font !== 'object') return null;
  const f = font as Record<string, unknown>;
  return f['googlefont'] === true ? safeFontName(f['name']) : null;
}

const fontLink = (doc: Document, name: string) =>
  doc.head.querySelector<HTMLLinkElement>(`link[data-charla-font="${CSS.escape(name)}"]`);

/**
 * Loads a Google Fonts stylesheet into the page head for a widget. Fonts declared inside a shadow
 * root are not used by browsers, so the stylesheet has to live in the document. The host's CSP
 * must allow `style-src https://fonts.googleapis.com` and `font-src https://fonts.gstatic.com`,
 * otherwise the browser refuses it and the system font stack is used. One link per family,
 * counting the widgets that use it (on the link, so two copies of the library agree):
 * releaseGoogleFont by the last of them takes it away.
 */
export function holdGoogleFont(doc: Document, name: string): void {
  let link = fontLink(doc, name);
  if (!link) {
    link = doc.createElement('link');
    link.rel = 'stylesheet';
    link.href = `https://fonts.googleapis.com/css2?family=${encodeURIComponent(name).replace(/%20/g, '+')}:wght@400;600&display=swap`;
    link.dataset['charlaFont'] = name;
    doc.head.append(link);
  }
  link.dataset['charlaUsers'] = String((Number(link.dataset['charlaUsers']) || 0) + 1);
}

export function releaseGoogleFont(doc: Document, name: string): void {
  const link = fontLink(doc, name);
  if (!link) return;
  const users = (Number(link.dataset['charlaUsers']) || 1) - 1;
  if (users > 0) link.dataset['charlaUsers'] = String(users);
  else link.remove();
}
