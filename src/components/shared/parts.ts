/** Small template parts several views render the same way. */
import { html, type TemplateResult } from 'lit';
import type { WidgetActions } from '../../widget/context.ts';
import { icons } from './icons.ts';

/** The header's close button (part `close-button`): closes the widget. */
export function closeButton(label: string, actions: WidgetActions | undefined): TemplateResult {
  return html`<button
    type="button"
    class="icon-button"
    part="close-button"
    aria-label=${label}
    @click=${() => actions?.close()}
  >
    ${icons.close()}
  </button>`;
}

/** A list's loading line, announced politely. */
export function loader(label: string): TemplateResult {
  return html`<p class="loader" role="status"><span class="spinner" aria-hidden="true"></span>${label}</p>`;
}
