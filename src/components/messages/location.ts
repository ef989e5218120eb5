/** LOCATION: the coordinates, with a link that opens a map. */
import { html, type TemplateResult } from 'lit';
import type { LocationMessage } from '../../../types/index.ts';
import { icons } from '../shared/icons.ts';
import { coordinates, mapHref } from '../shared/safe-url.ts';
import type { RenderContext } from './render-context.ts';

export function renderLocation(m: LocationMessage, r: RenderContext): TemplateResult {
  const c = coordinates(m.lat, m.lng);
  return html`<div class="card">
    <span class="card__icon">${icons.location()}</span>
    <span class="card__body">
      <span class="card__title">${r.t('location')}</span>
      <span class="card__secondary">${c ? `${c.lat}, ${c.lng}` : `${m.lat}, ${m.lng}`}</span>
      ${
        c
          ? html`<a class="card__link" href=${mapHref(c.lat, c.lng)} target="_blank" rel="noopener noreferrer"
              >${r.t('openMap')}</a
            >`
          : ''
      }
    </span>
  </div>`;
}
