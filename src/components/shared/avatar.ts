/** An avatar: the picture when its address is safe, else initials. */
import { html, nothing, type TemplateResult } from 'lit';
import { initials } from './format.ts';
import { safeUrl } from './safe-url.ts';

export function avatar(
  name: string | null | undefined,
  url: string | null | undefined,
  size: 'sm' | 'md' = 'md',
): TemplateResult {
  const src = safeUrl(url);
  return html`<span class="avatar avatar--${size}" aria-hidden="true"
    >${
      src
        ? html`<img src=${src} alt="" loading="lazy" referrerpolicy="no-referrer" />`
        : html`<span class="avatar__initials">${initials(name)}</span>`
    }${nothing}</span
  >`;
}
