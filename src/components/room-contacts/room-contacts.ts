import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { Contact } from '../../../types/index.ts';
import { ContextStoresController } from '../../controllers/context-stores.ts';
import { translator } from '../../i18n/index.ts';
import { base } from '../../styles/base.ts';
import { views } from '../../styles/views.ts';
import type { WidgetContext } from '../../widget/context.ts';
import { contactItem, contactMatches, contactName } from '../shared/contact-item.ts';
import { ListPagesController, SEARCH_FROM } from '../../controllers/list-pages.ts';
import { focusLost } from '../shared/focus.ts';
import { searchStatus } from '../shared/format.ts';
import { icons } from '../shared/icons.ts';
import { closeButton, loader, moreButton, searchField } from '../shared/parts.ts';

/**
 * @summary The contacts that can be added to the current room, with their loader.
 * @tag charla-room-contacts
 * @csspart header - The header bar.
 * @csspart contact - A contact button.
 * @csspart search - The search field (more than ten contacts).
 * @csspart more-button - Shows the next contacts of a long list.
 * @csspart back-button - Back to the chat.
 * @csspart close-button - The close button.
 * @cssproperty --charla-color-primary - Header background.
 */
export class CharlaRoomContacts extends LitElement {
  static override styles = [base, views];
  static override shadowRootOptions = { ...LitElement.shadowRootOptions, delegatesFocus: true };

  @property({ attribute: false }) context?: WidgetContext;
  /** Ids being added right now (their buttons are disabled meanwhile). */
  @state() private adding = new Set<string>();
  /** Who was added last, said in the view's status line (the contact leaves the list). */
  @state() private added = '';
  /** Who could not be added last, said in the view (cleared by the next choice). */
  @state() private failed = '';
  /** What the search field holds. */
  @state() private query = '';

  readonly #pages = new ListPagesController(this);

  #handleSearch = (query: string): void => {
    this.query = query;
    this.#pages.reset('roomContacts');
  };

  readonly #stores = new ContextStoresController(this, [
    '$roomContacts',
    '$roomContactsLoading',
    '$rooms',
    '$currentRoomId',
    '$language',
  ]);

  /** The room this view was opened for: a choice adds to it, whatever the current room has become. */
  #roomId: string | null | undefined;

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('context')) this.#stores.use(this.context);
    const current = this.#stores.get('$currentRoomId');
    if (current === undefined) return;
    this.#roomId ??= current;
    // The room changed under the list (the user was taken out of it): the list was not for the new one.
    if (current !== this.#roomId) this.context?.actions.hideHomeMenu();
  }

  /** Focus goes to the view's heading: it says where the user is, and the contacts follow it. */
  override focus(options?: FocusOptions): void {
    this.renderRoot.querySelector<HTMLElement>('h2')?.focus(options);
  }

  #handleBackClick(): void {
    this.context?.actions.hideHomeMenu();
  }

  #handleChoose = (contact: Contact): void => {
    const id = String(contact.id);
    if (!this.context || this.adding.has(id)) return;
    // Its button is disabled while adding, which drops focus: it is put back afterwards.
    const button = this.shadowRoot?.activeElement as HTMLElement | null;
    this.adding = new Set(this.adding).add(id);
    this.failed = '';
    // The action reports a failure (the `error` event); the view says it to the user.
    this.context.actions
      .addMember(contact, this.#roomId ?? undefined)
      .then(
        () => (this.added = contactName(contact)),
        () => (this.failed = contactName(contact)),
      )
      .finally(async () => {
        const next = new Set(this.adding);
        next.delete(id);
        this.adding = next;
        await this.updateComplete;
        if (button && focusLost(this)) (button.isConnected ? button : this).focus();
      });
  };

  override render(): unknown {
    const t = translator(this.#stores.get('$language'));
    // Who is in the room already is not addable: the list offers the others only.
    const room = this.#stores.get('$rooms')?.find((r) => r.id === this.#roomId);
    const members = new Set((room?.members ?? []).map(String));
    const addable = (this.#stores.get('$roomContacts') ?? []).filter((c) => !members.has(String(c.id)));
    const query = this.query.trim();
    const contacts = query ? addable.filter((c) => contactMatches(c, query)) : addable;
    const shown = this.#pages.limit('roomContacts');
    const loading = this.#stores.get('$roomContactsLoading') ?? false;
    return html`
      <header class="header" part="header">
        <button
          type="button"
          class="icon-button"
          part="back-button"
          aria-label=${t('back')}
          @click=${this.#handleBackClick}
        >
          ${icons.back()}
        </button>
        <div class="header__text"><h2 id="title" tabindex="-1">${t('roomContacts')}</h2></div>
        ${closeButton(t('closeChat'), this.context?.actions)}
      </header>
      <div class="body" aria-busy=${loading ? 'true' : 'false'}>
        ${this.failed ? html`<p class="failure" role="alert">${t('addFailed', { name: this.failed })}</p>` : nothing}
        ${loading ? loader(t('loading')) : nothing}
        ${
          addable.length > SEARCH_FROM || query
            ? searchField(t('searchContacts'), this.query, this.#handleSearch)
            : nothing
        }
        ${
          contacts.length
            ? html`<ul class="list">
                  ${contacts
                    .slice(0, shown)
                    .map((c) =>
                      contactItem(
                        c,
                        t('addToRoom'),
                        this.#handleChoose,
                        this.adding.has(String(c.id)),
                        'roomContacts',
                      ),
                    )}
                </ul>
                ${
                  contacts.length > shown
                    ? moreButton('roomContacts', t('showMore', { count: contacts.length - shown }), () =>
                        this.#pages.more('roomContacts'),
                      )
                    : nothing
                }`
            : loading
              ? nothing
              : html`<p class="empty">${query ? t('noMatch', { query }) : t('noContacts')}</p>`
        }
        <p class="visually-hidden" role="status">
          ${this.added ? t('addedToRoom', { name: this.added }) : searchStatus(t, query, contacts.length)}
        </p>
      </div>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-room-contacts': CharlaRoomContacts;
  }
}
