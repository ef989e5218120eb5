/** One contact as a list button (home menu contacts and room contacts). */
import { html, type TemplateResult } from 'lit';
import type { Contact } from '../../../types/index.ts';
import { avatar } from './avatar.ts';
import { plainName, searchable } from './format.ts';
import { nameToSend } from '../../util/validate.ts';

/** A contact's name as shown: as it is sent (one line, at most 1,024 characters), else its id. */
export function contactName(c: Contact): string {
  return nameToSend(c.names ?? '') ?? plainName(String(c.id));
}

/** Whether a contact's shown name holds what was searched (any case, with or without accents). */
export function contactMatches(c: Contact, query: string): boolean {
  let name = searched.get(c);
  if (name === undefined) searched.set(c, (name = searchable(contactName(c))));
  if (query !== lastQuery) [lastQuery, lastSearched] = [query, searchable(query.trim())];
  return name.includes(lastSearched);
}

let lastQuery = '';
let lastSearched = '';

/** Each contact's name as searched, made once (a key typed in a search of 5,000 took 45-77 ms). */
const searched = new WeakMap<Contact, string>();

/**
 * The button's name comes from its content (an unseen verb, then the visible name), so what a
 * speech-input user reads is part of what they can say. The contact's `type` is not shown: it is
 * the host's own label (the interface gives it no values), so it would stand untranslated in the
 * widget's language ("user" in a Spanish list) and in every button's name.
 */
export function contactItem(
  c: Contact,
  verb: string,
  onChoose: (c: Contact) => void,
  disabled = false,
  list = 'contacts',
): TemplateResult {
  const name = contactName(c);
  return html`<li>
    <button
      type="button"
      class="item"
      part="contact"
      data-entry=${list}
      ?disabled=${disabled}
      @click=${() => onChoose(c)}
    >
      ${avatar(name, c.avatar, 'md', c.color)}
      <span class="item__text"
        ><span class="item__name"><span class="visually-hidden">${verb} </span><bdi>${name}</bdi></span></span
      >
    </button>
  </li>`;
}
