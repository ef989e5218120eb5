import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import type { DocumentMessage, Message, MessageStatus, PostbackMessage } from '../../../types/index.ts';
import { MediaRefreshController } from '../../controllers/media-refresh.ts';
import { translator, type Translate } from '../../i18n/index.ts';
import type { WidgetActions } from '../../widget/context.ts';
import { formatTime, messageDate, plainName, summarize } from '../shared/format.ts';
import { focusComposer } from '../shared/focus.ts';
import { icons } from '../shared/icons.ts';
import { renderCall, renderContacts, renderOptions, renderQuickReplies } from '../messages/interactive.ts';
import { renderLocation } from '../messages/location.ts';
import { renderAudio, renderDocument, renderImage, renderVideo } from '../messages/media.ts';
import type { RenderContext } from '../messages/render-context.ts';
import { renderEvent, renderPostback, renderUnknown } from '../messages/system.ts';
import { renderText } from '../messages/text.ts';

/**
 * Another visitor's picture, sound or video at a host other than the service's: shown as a file card
 * whose link the user may open, never fetched unasked (the host would learn who reads the room, and
 * an address inside the reader's network would be requested from their browser).
 */
const linkOnly = (m: Message, r: RenderContext): boolean =>
  m.by === 'user' && !r.own && !(m as { mediaUrl?: string }).mediaUrl?.startsWith(`${r.actions?.baseUrl}/`);

/** A message's summary cut to a few words, to tell one Retry button from another. */
const short = (text: string) => {
  const chars = [...text];
  return chars.length > 40 ? `${chars.slice(0, 39).join('').trimEnd()}…` : text;
};

/** The renderer for a message's type; unknown types get a neutral placeholder. */
export function renderBody(m: Message, r: RenderContext): TemplateResult {
  switch (m.type) {
    case 'TEXT':
      return renderText(m);
    case 'IMAGE':
    case 'AUDIO':
    case 'VIDEO':
      if (linkOnly(m, r)) return renderDocument(m as unknown as DocumentMessage, r);
      return m.type === 'IMAGE'
        ? renderImage(m, r)
        : m.type === 'AUDIO'
          ? renderAudio(m, r)
          : renderVideo(m, r);
    case 'DOCUMENT':
    case 'FILE':
      return renderDocument(m, r);
    case 'LOCATION':
      return renderLocation(m, r);
    case 'POSTBACK':
      return renderPostback(m);
    case 'EVENT':
      return renderEvent(m);
    default:
      return renderUnknown(r);
  }
}

const STATUS_ICONS: Record<MessageStatus, () => TemplateResult> = {
  CREATED: icons.clock,
  DELIVERED: icons.check,
  DELIVERED_CHANNEL: icons.doubleCheck,
  DELIVERED_USER: icons.doubleCheck,
  FAILED: icons.error,
};

/**
 * @summary One message of the chat: sender name, bubble with the type's renderer, the bot's options, time and status.
 *
 * Renders without a shadow root of its own: it lives in `<charla-message-list>`'s shadow root,
 * which carries its styles (message.styles.ts), so scrolling a long room creates plain elements.
 * @tag charla-message
 * @csspart message - The row.
 * @csspart bubble - The bubble.
 * @csspart option - An option or call button.
 * @csspart chip - A quick reply chip.
 * @cssproperty --charla-color-bubble - Background of other people's bubbles.
 * @cssproperty --charla-color-primary - Background of the user's own bubbles.
 */
export class CharlaMessage extends LitElement {
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  @property({ attribute: false }) message?: Message;
  @property({ attribute: false }) actions?: WidgetActions;
  @property() language = 'es';
  /** Written by this widget's user: right-aligned, primary colour, status mark. */
  @property({ type: Boolean, reflect: true }) own = false;
  /** Follows a message of the same sender: tighter spacing. */
  @property({ type: Boolean, reflect: true }) grouped = false;
  /** Show the sender's name (group rooms). */
  @property({ type: Boolean, attribute: 'show-sender' }) showSender = false;
  /** Newest message of the room: quick replies are offered only here. */
  @property({ type: Boolean }) latest = false;
  @property({ type: Boolean }) disabled = false;
  /** The visitor's answer when the message asks for one (options, a call, a form): the list finds it in the room. */
  @property({ attribute: false }) answer?: PostbackMessage;
  /** A date separator shown above the message (the first of its day), or empty. */
  @property({ attribute: false }) dayLabel = '';
  /** Who wrote the message, as the list names its sender (senderName): said first to screen readers. */
  @property({ attribute: false }) senderLabel = '';

  readonly #media = new MediaRefreshController(this, () =>
    this.actions ? (url: string) => this.actions!.refreshMediaUrl(url) : undefined,
  );

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('message') && this.message) this.dataset['id'] = String(this.message.id);
  }

  #handleRetryClick(event: Event): void {
    if (this.message && this.actions) this.actions.retry(String(this.message.id)).catch(() => undefined);
    // The button goes away as the message is sent again.
    if ((event.currentTarget as Element).matches(':focus')) focusComposer(this);
  }

  #renderMeta(m: Message, t: Translate): TemplateResult {
    const when = messageDate(m);
    const status = m.status;
    const statusIcon = (Object.hasOwn(STATUS_ICONS, status) && STATUS_ICONS[status]) || icons.clock;
    const statusLabel = t(`status${status}`);
    return html`<div class="meta">
      <time datetime=${when.toISOString()}>${formatTime(when, this.language)}</time>
      ${
        this.own
          ? html`<span class="status status--${status}" role="img" aria-label=${statusLabel}
              >${statusIcon()}</span
            >`
          : nothing
      }
      ${
        this.own && status === 'FAILED'
          ? html`<button
              type="button"
              class="retry"
              aria-label=${t('retryMessage', { what: short(summarize(m, t)) })}
              @click=${this.#handleRetryClick}
            >
              ${t('retry')}
            </button>`
          : nothing
      }
    </div>`;
  }

  #renderExtras(m: Message, r: RenderContext): TemplateResult {
    const i = m.interactive;
    return html`${renderOptions(m, r)}${renderQuickReplies(m, r)}${i?.kind === 'voice_call' ? renderCall(m, i, r) : nothing}${
      i?.kind === 'contact_info_request'
        ? html`<charla-contact-form
            .message=${m}
            .actions=${this.actions}
            language=${this.language}
            ?disabled=${this.disabled}
            ?answered=${!!this.answer}
          ></charla-contact-form>`
        : nothing
    }`;
  }

  override render(): unknown {
    const m = this.message;
    if (!m) return nothing;
    // A separator's children are presentational: the day is its name, or it is read as "separator".
    const day = this.dayLabel;
    let row: unknown;
    try {
      row = this.#renderRow(m);
    } catch (error) {
      // A shape the renderers do not expect (deep inside a contact card, say): the neutral
      // placeholder in its bubble, with its time, status and Retry, and the list goes on.
      console.warn('Charla: a message could not be shown', m.id, error);
      const t = translator(this.language);
      let meta: unknown = nothing;
      try {
        meta = this.#renderMeta(m, t);
      } catch {
        // Its time or status are not usable either: the placeholder alone.
      }
      row = html`<div class="row" part="message">
        <div class="bubble" part="bubble">${renderUnknown({ t } as RenderContext)}</div>
        ${meta}
      </div>`;
    }
    return html`${
      day ? html`<div class="day" role="separator" aria-label=${day}><span>${day}</span></div>` : nothing
    }${row}`;
  }

  #renderRow(m: Message) {
    const t = translator(this.language);
    const r: RenderContext = {
      t,
      language: this.language,
      actions: this.actions,
      media: this.#media,
      own: this.own,
      latest: this.latest,
      answer: this.answer,
    };
    // Only the user's own events and the service's or bot's are system lines: another visitor's is
    // theirs, in a bubble under their name (it could otherwise pass for a notice of the service).
    if (m.type === 'EVENT' && (this.own || m.by !== 'user')) {
      return html`<div class="row"><div class="system" part="message system">${renderEvent(m)}</div></div>`;
    }
    const media = (m.type === 'IMAGE' || m.type === 'VIDEO') && !linkOnly(m, r);
    const contacts = m.interactive?.kind === 'contacts' ? m.interactive.contacts : null;
    // A contact card's text is the service's one-line summary of it (for previews): the card says it all.
    const hasText = !(m.type === 'TEXT' && contacts);
    // A call button's header heads the whole message, above its text.
    const header = m.interactive?.kind === 'voice_call' ? m.interactive.header : undefined;
    // Who wrote it, said first to screen readers (the eye has the bubble's side and colour).
    const sender = this.own ? t('you') : this.senderLabel || plainName(m.senderNames);
    return html`<div class="row" part="message">
      ${
        // Shown as it is said: a member named only by whoever added them, a room post credited to
        // the company, have no senderNames but a name all the same.
        this.showSender && !this.own && sender
          ? html`<p class="sender" dir="auto">${sender}</p>`
          : html`<span class="visually-hidden">${`${sender}: `}</span>`
      }
      ${header ? html`<h3 class="message-header" dir="auto">${header}</h3>` : nothing}
      <div class="bubble ${media ? 'bubble--media' : ''}" part="bubble">
        ${hasText ? renderBody(m, r) : nothing}${contacts ? renderContacts(contacts, r) : nothing}
      </div>
      ${this.#renderExtras(m, r)} ${this.#renderMeta(m, t)}
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-message': CharlaMessage;
  }
}
