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

/**
 * The end of a list cut short (ListPagesController): shows its next entries, saying how many are
 * left; with `auto`, also when scrolled into view.
 */
export function moreButton(list: string, label: string, onMore: () => void, auto = true): TemplateResult {
  return html`<button
    type="button"
    class="more"
    part="more-button"
    data-more=${list}
    ?data-auto=${auto}
    @click=${onMore}
  >
    ${label}
  </button>`;
}

/** A list's search field (part `search`), named by its label. */
export function searchField(label: string, value: string, onInput: (value: string) => void): TemplateResult {
  return html`<div class="search">
    <input
      type="search"
      part="search"
      aria-label=${label}
      placeholder=${label}
      autocomplete="off"
      .value=${value}
      @input=${(e: Event) => onInput((e.target as HTMLInputElement).value)}
      @keydown=${(e: KeyboardEvent) => {
        // Esc empties a search first, as a search field does; on an empty one it closes the panel.
        const input = e.target as HTMLInputElement;
        if (e.key !== 'Escape' || e.isComposing || !input.value) return;
        e.preventDefault();
        input.value = '';
        onInput('');
      }}
    />
  </div>`;
}
