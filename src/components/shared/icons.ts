/** Inline SVG icons (24×24 viewBox, currentColor): no icon font, no network. */
import { html, svg, type SVGTemplateResult, type TemplateResult } from 'lit';

const icon = (content: SVGTemplateResult): TemplateResult =>
  html`<svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
    ${content}
  </svg>`;

const stroke = (d: string): SVGTemplateResult =>
  svg`<path d=${d} fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"></path>`;

export const icons = {
  chat: () =>
    icon(
      svg`<path d="M4 5.5A2.5 2.5 0 0 1 6.5 3h11A2.5 2.5 0 0 1 20 5.5v8a2.5 2.5 0 0 1-2.5 2.5H10l-4.2 3.6c-.5.4-1.3.1-1.3-.6V16A2.5 2.5 0 0 1 4 13.5z" fill="currentColor"></path>`,
    ),
  close: () => icon(stroke('M6 6l12 12M18 6L6 18')),
  back: () => icon(stroke('M15 5l-7 7 7 7')),
  send: () => icon(svg`<path d="M3.4 20.4 21 12 3.4 3.6 3.3 10l12.2 2-12.2 2z" fill="currentColor"></path>`),
  attach: () =>
    icon(
      stroke(
        'M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9',
      ),
    ),
  location: () =>
    icon(
      stroke('M12 21s-7-6.2-7-11.5a7 7 0 0 1 14 0C19 14.8 12 21 12 21zM12 12.5a3 3 0 1 0 0-6 3 3 0 0 0 0 6z'),
    ),
  mic: () => icon(stroke('M12 3a3 3 0 0 0-3 3v6a3 3 0 0 0 6 0V6a3 3 0 0 0-3-3zM5 11a7 7 0 0 0 14 0M12 18v3')),
  stop: () => icon(svg`<rect x="6" y="6" width="12" height="12" rx="2" fill="currentColor"></rect>`),
  check: () => icon(stroke('M5 12.5l4.5 4.5L19 7.5')),
  doubleCheck: () => icon(stroke('M2 12.5l4.5 4.5L16 7.5M9.5 16l1 1L22 7.5')),
  clock: () => icon(stroke('M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2')),
  error: () => icon(stroke('M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7.5v5.5M12 16.5v.01')),
  file: () => icon(stroke('M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8zM14 3v5h5')),
  download: () => icon(stroke('M12 4v11M7 10l5 5 5-5M5 20h14')),
  userPlus: () => icon(stroke('M15 19a6 6 0 0 0-12 0M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM19 8v6M16 11h6')),
  phone: () =>
    icon(
      stroke(
        'M5 4h3.5l1.5 4-2 1.5a11 11 0 0 0 6.5 6.5l1.5-2 4 1.5V19a2 2 0 0 1-2 2A16 16 0 0 1 3 6a2 2 0 0 1 2-2z',
      ),
    ),
  arrowDown: () => icon(stroke('M12 5v14M6 13l6 6 6-6')),
  user: () => icon(stroke('M20 21a8 8 0 0 0-16 0M12 13a5 5 0 1 0 0-10 5 5 0 0 0 0 10z')),
  group: () =>
    icon(
      stroke(
        'M15 19a6 6 0 0 0-12 0M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM21 19a5 5 0 0 0-4.5-5M15 3.5a4 4 0 0 1 0 7',
      ),
    ),
};
