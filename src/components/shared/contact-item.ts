/** One contact as a list button (home menu contacts and room contacts). */
import { html, type TemplateResult } from 'lit';
import type { Contact } from '../../../types/index.ts';
import { avatar } from './avatar.ts';
import { plainName } from './format.ts';

export function contactName(c: Contact): string {
  return plainName(c.names) || plainName(String(c.id));
}

/**
 * The button's name comes from its content (an unseen verb, then the visible name), so what a
 * speech-input user reads is part of what they can say.
 */
export function contactItem(
  c: Contact,
  verb: string,
  onChoose: (c: Contact) => void,
  disabled = false,
): TemplateResult {
  const name = contactName(c);
  return html`<li>
    <button type="button" class="item" part="contact" ?disabled=${disabled} @click=${() => onChoose(c)}>
      ${avatar(name, c.avatar)}
      <span class="item__text"
        ><span class="item__name"><span class="visually-hidden">${verb} </span><bdi>${name}</bdi></span
        >${c.type ? html`<span class="item__secondary">${c.type}</span>` : ''}</span
      >
    </button>
  </li>`;
}
