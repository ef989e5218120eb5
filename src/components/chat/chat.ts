import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { property } from 'lit/decorators.js';
import { keyed } from 'lit/directives/keyed.js';
import type { Room } from '../../../types/index.ts';
import { ContextStoresController } from '../../controllers/context-stores.ts';
import { translator, type Translate } from '../../i18n/index.ts';
import { base } from '../../styles/base.ts';
import { views } from '../../styles/views.ts';
import type { WidgetContext } from '../../widget/context.ts';
import { isGroupWidget } from '../home-menu/home-menu.ts';
import { roomAvatar } from '../../stores/rooms.ts';
import { isGroupRoom, roomAvatarOf } from '../shared/avatar.ts';
import { plainName, roomName } from '../shared/format.ts';
import { icons } from '../shared/icons.ts';
import { closeButton } from '../shared/parts.ts';
import { styles } from './chat.styles.ts';

/**
 * Errors already said aloud: the panel's view is made again each time it opens, and an alert
 * still showing from before is not news (it stays on screen, without the alert role).
 */
const alerted = new WeakSet<object>();

/**
 * How long the connection must have been lost (or the service unable to store) before the chat
 * says so: the blip of a reconnect (a phone waking, a balancer's restart, a rolling deploy) is not
 * news, and the message clocks cover it.
 */
export const LOST_NOTICE_MS = 2_000;

/** A device whose only pointers are coarse: a phone or a tablet without a mouse. */
const touchOnly = (): boolean =>
  typeof matchMedia === 'function' &&
  matchMedia('(pointer: coarse)').matches &&
  !matchMedia('(any-pointer: fine)').matches;

/**
 * @summary The chat view: header with the room's avatar, name and members, the message list and the composer.
 * @tag charla-chat
 * @csspart header - The header bar.
 * @csspart back-button - Back to the home menu (group widgets).
 * @csspart add-button - Opens the room contacts (group widgets).
 * @csspart close-button - The close button.
 * @csspart connection-notice - What has kept messages from going for 2 s: "El servicio no responde…" (the service could not store), or "Sin conexión…" (the connection lost; the header says it instead with theme.status).
 * @csspart message-list - The scrolling list (forwarded).
 * @csspart message - Each message row (forwarded).
 * @csspart bubble - Each bubble (forwarded).
 * @csspart composer - The composer bar (forwarded).
 * @csspart send-button - The send button (forwarded).
 * @cssproperty --charla-color-primary - Header background.
 */
export class CharlaChat extends LitElement {
  static override styles = [base, views, styles];

  @property({ attribute: false }) context?: WidgetContext;

  get #composer(): (HTMLElement & { updateComplete: Promise<unknown> }) | null {
    return (
      this.renderRoot?.querySelector<HTMLElement & { updateComplete: Promise<unknown> }>('charla-composer') ??
      null
    );
  }

  readonly #stores = new ContextStoresController(this, [
    '$rooms',
    '$currentRoomId',
    '$user',
    '$config',
    '$connection',
    '$lastError',
    '$serviceBusy',
    '$language',
    '$contacts',
  ]);

  /**
   * What has kept messages from going for LOST_NOTICE_MS, which the chat says: the service
   * (reached, but it cannot store for now: a send or a catch-up refused), or the connection
   * (reconnecting or offline). A connection that could not be made at all (`error`) has the
   * error banner instead.
   */
  #lost: 'connectionLost' | 'serviceBusy' | null = null;
  #lostTimer: ReturnType<typeof setTimeout> | undefined;

  #trouble(): 'connectionLost' | 'serviceBusy' | null {
    const state = this.#stores.get('$connection');
    if (state === 'idle' || state === 'error') return null;
    if (this.#stores.get('$serviceBusy')) return 'serviceBusy';
    return state === 'reconnecting' || state === 'offline' ? 'connectionLost' : null;
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('context')) this.#stores.use(this.context);
    const trouble = this.#trouble();
    if (!trouble) {
      clearTimeout(this.#lostTimer);
      this.#lostTimer = undefined;
      this.#lost = null;
    } else if (this.#lost) {
      // Still kept from sending, maybe for the other reason now.
      this.#lost = trouble;
    } else if (this.#lostTimer === undefined && this.isConnected) {
      this.#lostTimer = setTimeout(() => {
        this.#lostTimer = undefined;
        this.#lost = this.#trouble();
        this.requestUpdate();
      }, LOST_NOTICE_MS);
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#lostTimer);
    this.#lostTimer = undefined;
    this.#lost = null;
  }

  /**
   * Focus goes to the composer: where a user opening a chat wants to be. On a touch screen
   * (no fine pointer at all) it goes to the messages instead: a focused field raises the
   * on-screen keyboard over half of them before the user has asked to write.
   */
  override focus(options?: FocusOptions): void {
    void this.updateComplete.then(async () => {
      if (touchOnly()) {
        this.renderRoot.querySelector<HTMLElement>('charla-message-list')?.focus(options);
        return;
      }
      const composer = this.#composer;
      if (!composer) return;
      await composer.updateComplete;
      composer.focus(options);
    });
  }

  #handleBackClick(): void {
    this.context?.actions.showHomeMenu();
  }

  #handleAddClick(): void {
    this.context?.actions.showRoomContacts();
  }

  #handleDismissClick(event: Event): void {
    this.context?.actions.dismissError();
    // The alert goes away with its button.
    if ((event.currentTarget as Element).matches(':focus')) this.focus();
  }

  #subtitle(room: Room | undefined, name: string, t: Translate, status: boolean): string {
    if (status) {
      const state = this.#stores.get('$connection') ?? 'idle';
      const line = t(`connection${state}`);
      if (line) return line;
    }
    const members = room?.membersInfo ?? [];
    if (members.length > 2) {
      const names = members.map((m) => plainName(m.names)).filter(Boolean);
      return names.length === members.length && names.join(', ').length <= 60
        ? names.join(', ')
        : t('members', { count: members.length });
    }
    const bot = plainName(room?.bot?.name);
    return bot !== name ? bot : '';
  }

  /** Errors this element said aloud: they keep role=alert for as long as it shows them. */
  readonly #alerting = new WeakSet<object>();

  override updated(): void {
    const error = this.#stores.get('$lastError');
    if (error && !alerted.has(error)) {
      alerted.add(error);
      this.#alerting.add(error);
    }
  }

  override render(): unknown {
    const t = translator(this.#stores.get('$language'));
    const roomId = this.#stores.get('$currentRoomId');
    const room = this.#stores.get('$rooms')?.find((r) => r.id === roomId);
    const group = isGroupWidget(this.#stores.get('$config'));
    const error = this.#stores.get('$lastError');
    const name = roomName(room, this.#stores.get('$user')?.id, t);
    const status = this.#stores.get('$config')?.theme['status'] === true;
    const sub = this.#subtitle(room, name, t, status);
    // What keeps messages from going. The status region is there from the start (empty, it takes
    // no room), so that its words are read when they come; with theme.status the header says the
    // connection's state already.
    const notice = this.#lost && !(this.#lost === 'connectionLost' && status) ? t(this.#lost) : nothing;
    return html`
      <header class="header" part="header">
        ${
          group
            ? html`<button
                type="button"
                class="icon-button"
                part="back-button"
                aria-label=${t('back')}
                @click=${this.#handleBackClick}
              >
                ${icons.back()}
              </button>`
            : nothing
        }
        ${roomAvatarOf(
          name,
          roomAvatar(room, this.#stores.get('$user')?.id, this.#stores.get('$contacts')),
          isGroupRoom(room),
        )}
        <div class="header__text">
          <h2 id="title" dir="auto">${name}</h2>
          ${
            sub
              ? // With theme.status it is the connection's state: "Sin conexión" is read when it changes.
                html`<span class="header__sub" dir="auto" role=${status ? 'status' : nothing}>${sub}</span>`
              : nothing
          }
        </div>
        ${
          group
            ? html`<button
                type="button"
                class="icon-button"
                part="add-button"
                aria-label=${t('addPeople')}
                @click=${this.#handleAddClick}
              >
                ${icons.userPlus()}
              </button>`
            : nothing
        }
        ${closeButton(t('closeChat'), this.context?.actions)}
      </header>
      ${
        error
          ? // One element per error: a second error, even in the same words, is inserted anew (and said).
            keyed(
              error,
              html`<div
                class="error"
                role=${alerted.has(error) && !this.#alerting.has(error) ? nothing : 'alert'}
              >
                <p>${error.message}</p>
                <button
                  type="button"
                  class="icon-button"
                  aria-label=${t('dismiss')}
                  @click=${this.#handleDismissClick}
                >
                  ${icons.close()}
                </button>
              </div>`,
            )
          : nothing
      }
      <p class="lost" role="status" part="connection-notice">${notice}</p>
      <charla-message-list
        .context=${this.context}
        exportparts="message-list, message, bubble, option, chip, system, new-messages-button"
      ></charla-message-list>
      <charla-composer
        .context=${this.context}
        exportparts="composer, input, send-button, attach-button, location-button, mic-button, notice"
      ></charla-composer>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-chat': CharlaChat;
  }
}
