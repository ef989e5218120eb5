/** An avatar: the picture when its address is safe and loads, else initials. */
import { html, nothing, type TemplateResult } from 'lit';
import { Directive, directive, type ElementPart } from 'lit/directive.js';
import { safeColor, textOn } from '../../styles/theme.ts';
import { initials } from './format.ts';
import { safeUrl } from './safe-url.ts';
import { icons } from './icons.ts';
import type { Room } from '../../../types/index.ts';

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

/**
 * A contact's colour behind its initials, with black or white text, whichever reads better (at
 * least 4.5:1 for any colour). Only a #rgb or #rrggbb colour, set through the CSSOM (allowed under
 * style-src 'self'); anything else leaves the theme's avatar colours.
 */
class Tint extends Directive {
  render(_color: unknown) {
    return nothing;
  }
  override update(part: ElementPart, [color]: [unknown]) {
    const style = (part.element as HTMLElement).style;
    const bg = safeColor(color);
    for (const [name, value] of [
      ['--charla-color-avatar', bg],
      ['--charla-color-avatar-text', bg && textOn(bg)],
    ] as const)
      if (value) style.setProperty(name, value);
      else style.removeProperty(name);
    return nothing;
  }
}
const tint = directive(Tint);

export function avatar(
  name: string | null | undefined,
  url: string | null | undefined,
  size: 'sm' | 'md' = 'md',
  color?: unknown,
): TemplateResult {
  const src = safeUrl(url);
  return html`<span class="avatar avatar--${size}" aria-hidden="true" ${tint(color)}
    >${
      src && !failed.has(src)
        ? html`<img src=${src} alt="" loading="lazy" referrerpolicy="no-referrer" @error=${showInitials} />`
        : html`<span class="avatar__initials">${initials(name)}</span>`
    }${nothing}</span
  >`;
}

/** Whether a room is a conversation of more than two (a direct one with a third person is one too). */
export const isGroupRoom = (room: Room | undefined): boolean =>
  room?.type === 'group' || (room?.members.length ?? 0) > 2;

/**
 * A room's avatar: its picture, else for a group a group glyph (the initials of a group named
 * after one long name read as a chat with that person alone), else the initials of its name.
 */
export function roomAvatarOf(name: string, url: string | null | undefined, group: boolean): TemplateResult {
  const src = safeUrl(url);
  if (!group || (src && !failed.has(src))) return avatar(name, url);
  return html`<span class="avatar avatar--md avatar--group" aria-hidden="true">${icons.group()}</span>`;
}
