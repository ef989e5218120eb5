import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { Contact, Room } from '../../../types/index.ts';
import { ContextStoresController } from '../../controllers/context-stores.ts';
import { translator, type Translate } from '../../i18n/index.ts';
import { base } from '../../styles/base.ts';
import { views } from '../../styles/views.ts';
import type { WidgetContext } from '../../widget/context.ts';
import { isGroupRoom, roomAvatarOf } from '../shared/avatar.ts';
import { contactItem, contactMatches, contactName } from '../shared/contact-item.ts';
import { ListPagesController, SEARCH_FROM } from '../../controllers/list-pages.ts';
import { roomName, searchStatus, summarize, widgetName } from '../shared/format.ts';
import { icons } from '../shared/icons.ts';
import { closeButton, loader, moreButton, searchField } from '../shared/parts.ts';
import { roomAvatar } from '../../stores/rooms.ts';
import { styles } from './home-menu.styles.ts';

/** `group` widgets list contacts to start chats with. */
export function isGroupWidget(config: { properties?: Record<string, unknown> } | null | undefined): boolean {
  return config?.properties?.['type'] === 'group';
}

/**
 * @summary The home menu: the user's rooms and, for group widgets, the contacts to start a chat with.
 * @tag charla-home-menu
 * @csspart header - The header bar.
 * @csspart room - A room button.
 * @csspart contact - A contact button.
 * @csspart search - The contacts' search field (more than ten contacts).
 * @csspart more-button - Shows the next entries of a long list.
 * @csspart close-button - The close button.
 * @cssproperty --charla-color-primary - Header background and unread counts.
 */
export class CharlaHomeMenu extends LitElement {
  static override styles = [base, views, styles];
  static override shadowRootOptions = { ...LitElement.shadowRootOptions, delegatesFocus: true };

  @property({ attribute: false }) context?: WidgetContext;
  /** The contact whose chat could not be opened, said in the view (cleared by the next choice). */
  @state() private failed = '';
  /** What the contacts' search field holds. */
  @state() private query = '';

  readonly #pages = new ListPagesController(this);

  readonly #stores = new ContextStoresController(this, [
    '$rooms',
    '$currentRoomId',
    '$user',
    '$unreadByRoom',
    '$contacts',
    '$contactsLoading',
    '$config',
    '$language',
  ]);

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('context')) this.#stores.use(this.context);
  }

  /** Focus goes to the current room's entry (the room just left), else the first room, else the first control. */
  override focus(options?: FocusOptions): void {
    const current = (this.#stores.get('$rooms') ?? []).findIndex(
      (r) => r.id === this.#stores.get('$currentRoomId'),
    );
    const entries = this.renderRoot.querySelectorAll<HTMLElement>('[part=room]');
    const entry = entries[current] ?? entries[0];
    if (entry) entry.focus(options);
    else super.focus(options);
  }

  #handleContactChoose = (contact: Contact): void => {
    this.failed = '';
    // The action reports the failure (the `error` event); the view says it to the user.
    this.context?.actions.openRoomWithUser(contact).catch(() => (this.failed = contactName(contact)));
  };

  #handleSearch = (query: string): void => {
    this.query = query;
    this.#pages.reset('contacts');
  };

  #renderRoom(room: Room, t: Translate) {
    const unread = this.#stores.get('$unreadByRoom')?.[room.id] ?? room.unread ?? 0;
    const preview = summarize(room.lastMessage ?? null, t);
    const name = roomName(room, this.#stores.get('$user')?.id, t);
    const group = isGroupRoom(room);
    return html`<li>
      <button
        type="button"
        class="item"
        part="room"
        data-entry="rooms"
        @click=${() => this.context?.actions.selectRoom(room.id)}
      >
        ${roomAvatarOf(name, roomAvatar(room, this.#stores.get('$user')?.id, this.#stores.get('$contacts')), group)}
        <span class="item__text">
          <span class="item__name"
            ><bdi>${name}</bdi>${
              group && name !== t('groupConversation')
                ? html`<span class="visually-hidden">, ${t('groupConversation')}</span>`
                : nothing
            }</span
          >
          ${preview ? html`<span class="item__secondary"><bdi>${preview}</bdi></span>` : nothing}
        </span>
        ${
          unread > 0
            ? html`<span class="count" aria-hidden="true">${unread > 99 ? '99+' : unread}</span
                ><span class="visually-hidden">, ${t('unread', { count: unread })}</span>`
            : nothing
        }
      </button>
    </li>`;
  }

  override render(): unknown {
    const t = translator(this.#stores.get('$language'));
    const config = this.#stores.get('$config');
    const rooms = this.#stores.get('$rooms') ?? [];
    const group = isGroupWidget(config);
    const allContacts = this.#stores.get('$contacts') ?? [];
    const query = this.query.trim();
    const contacts = query ? allContacts.filter((c) => contactMatches(c, query)) : allContacts;
    // A long list gets a search field (kept while it holds a search), and a line saying what it found.
    const searching = allContacts.length > SEARCH_FROM || query !== '';
    // The current room (the one Back just left, which takes focus) is always among those shown.
    const current = rooms.findIndex((r) => r.id === this.#stores.get('$currentRoomId'));
    const roomsShown = Math.max(this.#pages.limit('rooms'), current + 1);
    const contactsShown = this.#pages.limit('contacts');
    const loading = this.#stores.get('$contactsLoading') ?? false;
    // The business's name for its widget, as any name: without direction controls.
    const title = widgetName(config) || t('home');
    return html`
      <header class="header" part="header">
        <span class="brand" aria-hidden="true">${icons.chat()}</span>
        <div class="header__text"><h2 id="title">${title}</h2></div>
        ${closeButton(t('closeChat'), this.context?.actions)}
      </header>
      <div class="body">
        ${this.failed ? html`<p class="failure" role="alert">${t('openChatFailed', { name: this.failed })}</p>` : nothing}
        <section aria-labelledby="rooms-title">
          <h3 class="section-title" id="rooms-title">${t('rooms')}</h3>
          ${
            rooms.length
              ? html`<ul class="list">
                    ${rooms.slice(0, roomsShown).map((room) => this.#renderRoom(room, t))}
                  </ul>
                  ${
                    rooms.length > roomsShown
                      ? moreButton(
                          'rooms',
                          t('showMore', { count: rooms.length - roomsShown }),
                          () => this.#pages.more('rooms'),
                          // Only when chosen: scrolling on past the rooms reaches the contacts.
                          !group,
                        )
                      : nothing
                  }`
              : html`<p class="empty">${t('noRooms')}</p>`
          }
        </section>
        ${
          group
            ? html`<section aria-labelledby="contacts-title" aria-busy=${loading ? 'true' : 'false'}>
                <h3 class="section-title" id="contacts-title">${t('contacts')}</h3>
                ${loading ? loader(t('loading')) : nothing}
                ${searching ? searchField(t('searchContacts'), this.query, this.#handleSearch) : nothing}
                ${
                  contacts.length
                    ? html`<ul class="list">
                          ${contacts
                            .slice(0, contactsShown)
                            .map((c) => contactItem(c, t('startChatWith'), this.#handleContactChoose))}
                        </ul>
                        ${
                          contacts.length > contactsShown
                            ? moreButton(
                                'contacts',
                                t('showMore', { count: contacts.length - contactsShown }),
                                () => this.#pages.more('contacts'),
                              )
                            : nothing
                        }`
                    : loading
                      ? nothing
                      : html`<p class="empty">${query ? t('noMatch', { query }) : t('noContacts')}</p>`
                }
                ${
                  searching
                    ? html`<p class="visually-hidden" role="status">
                        ${searchStatus(t, query, contacts.length)}
                      </p>`
                    : nothing
                }
              </section>`
            : nothing
        }
      </div>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-home-menu': CharlaHomeMenu;
  }
}
