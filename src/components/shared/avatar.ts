/** An avatar: the picture when its address is safe and loads, else initials. */
import { html, nothing, type TemplateResult } from 'lit';
import { initials } from './format.ts';
import { safeUrl } from './safe-url.ts';

/**
 * Avatar addresses that failed to load on this page. They show initials from
 * then on, as an unsafe address does, instead of the browser's broken-image
 * glyph; and since no <img> names them again, they are not fetched again.
 */
const failed = new Set<string>();

/** An avatar image's `error`. Lit calls it with the element that rendered the avatar as `this`. */
function showInitials(this: { requestUpdate?: () => void } | undefined, event: Event): void {
  failed.add((event.currentTarget as HTMLImageElement).getAttribute('src') ?? '');
  this?.requestUpdate?.();
}

export function avatar(
  name: string | null | undefined,
  url: string | null | undefined,
  size: 'sm' | 'md' = 'md',
): TemplateResult {
  const src = safeUrl(url);
  return html`<span class="avatar avatar--${size}" aria-hidden="true"
    >${
      src && !failed.has(src)
        ? html`<img src=${src} alt="" loading="lazy" referrerpolicy="no-referrer" @error=${showInitials} />`
        : html`<span class="avatar__initials">${initials(name)}</span>`
    }${nothing}</span
  >`;
}
