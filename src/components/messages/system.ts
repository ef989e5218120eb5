/** POSTBACK (the chosen text), EVENT (a system line) and the placeholder for unknown types. */
import { html, type TemplateResult } from 'lit';
import type { EventMessage, PostbackMessage } from '../../../types/index.ts';
import type { RenderContext } from './render-context.ts';

export function renderPostback(m: PostbackMessage): TemplateResult {
  return html`<p class="text" dir="auto">${m.text ?? ''}</p>`;
}

export function renderEvent(m: EventMessage): TemplateResult {
  return html`<p class="event" dir="auto">${m.description || m.slug || ''}</p>`;
}

export function renderUnknown(r: RenderContext): TemplateResult {
  return html`<p class="unknown">${r.t('unsupported')}</p>`;
}
