import { LitElement, html, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { Message } from '../../../types/index.ts';
import { translator } from '../../i18n/index.ts';
import type { WidgetActions } from '../../widget/context.ts';
import { focusComposer, focusLost } from '../shared/focus.ts';
import { isEmail } from '../shared/safe-url.ts';
import { base } from '../../styles/base.ts';
import { styles } from './contact-form.styles.ts';

const PHONE = /^\+?[0-9 ().-]{6,20}$/;
const FIELDS = ['name', 'phone', 'email'] as const;
/**
 * What has been typed in forms not sent yet: by widget (its actions, one object per instance,
 * gone with it) and by room and message; an answered form's entry goes.
 */
const typed = new WeakMap<object, Map<string, Record<string, string>>>();

/**
 * @summary The answer form of a bot's contact-information request: name, phone and email.
 * @tag charla-contact-form
 * @csspart form - The form.
 * @cssproperty --charla-color-primary - Background of the submit button.
 */
export class CharlaContactForm extends LitElement {
  static override styles = [base, styles];

  /** The request message the answer refers to. */
  @property({ attribute: false }) message?: Message;
  @property({ attribute: false }) actions?: WidgetActions;
  @property() language = 'es';
  @property({ type: Boolean }) disabled = false;
  /**
   * Already answered (an answer to this request is in the room). Rows of a
   * virtualized list are made anew as they scroll in, so the element's own
   * `sent` flag alone would show the form again.
   */
  @property({ type: Boolean }) answered = false;

  @state() private error = '';
  @state() private sending = false;
  @state() private sent = false;

  /** This widget's drafts (see {@link typed}). */
  get #typed(): Map<string, Record<string, string>> {
    const owner = this.actions ?? typed;
    let drafts = typed.get(owner);
    if (!drafts) typed.set(owner, (drafts = new Map()));
    return drafts;
  }

  /** This form's key in its widget's drafts. */
  get #key(): string {
    return `${this.message?.roomId}\u0000${this.message?.id}`;
  }

  /** Keeps what is typed (a closed panel or a row scrolled away and back shows it again). */
  #handleInput(event: Event): void {
    const data = new FormData(event.currentTarget as HTMLFormElement);
    this.#typed.set(this.#key, Object.fromEntries(FIELDS.map((f) => [f, String(data.get(f) ?? '')])));
  }

  async #handleSubmit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const t = translator(this.language);
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const name = String(data.get('name') ?? '').trim();
    const phone = String(data.get('phone') ?? '').trim();
    const email = String(data.get('email') ?? '').trim();
    if (!name && !phone && !email) return this.#fail(t('requiredField'), 'name');
    if (phone && !PHONE.test(phone)) return this.#fail(t('invalidPhone'), 'phone');
    if (email && !isEmail(email)) return this.#fail(t('invalidEmail'), 'email');
    if (!this.message || !this.actions) return;
    // The controls are disabled while sending, which drops focus: it is put back afterwards.
    const focused = this.matches(':focus-within');
    this.error = '';
    this.sending = true;
    try {
      await this.actions.submitContactInfo(this.message, { name, phone, email });
      this.sent = true;
    } catch {
      await this.#fail(t('sendFailed'));
    } finally {
      this.sending = false;
    }
    if (!focused || !focusLost(this)) return;
    // Sent: the form gives way to its confirmation and the conversation goes on in the composer.
    if (this.sent) return focusComposer(this);
    await this.updateComplete;
    this.renderRoot.querySelector('button')?.focus();
  }

  /**
   * The field the error is about is marked invalid, described by the error (read again whenever
   * the field is reached, not only once by the alert) and given focus.
   */
  async #fail(message: string, field?: string): Promise<void> {
    this.error = message;
    await this.updateComplete;
    for (const input of this.renderRoot.querySelectorAll('input')) {
      const invalid = input.name === field;
      input.setAttribute('aria-invalid', String(invalid));
      if (invalid) input.setAttribute('aria-describedby', 'error');
      else input.removeAttribute('aria-describedby');
      if (invalid) input.focus();
    }
  }

  override willUpdate(): void {
    // Answered (here, in another tab, before a reload): nothing typed is kept for it.
    if (this.sent || this.answered) this.#typed.delete(this.#key);
  }

  override render(): unknown {
    const t = translator(this.language);
    if (this.sent || this.answered) return html`<p class="done" role="status">${t('submitted')}</p>`;
    const off = this.disabled || this.sending;
    const kept = this.#typed.get(this.#key) ?? {};
    return html`<form
      part="form"
      novalidate
      @submit=${this.#handleSubmit}
      @input=${this.#handleInput}
      aria-label=${t('contactFormTitle')}
    >
      <p class="title">${t('contactFormTitle')}</p>
      <label
        >${t('name')}<input
          name="name"
          autocomplete="name"
          maxlength="200"
          .value=${kept['name'] ?? ''}
          ?disabled=${off}
      /></label>
      <label
        >${t('phone')}<input
          name="phone"
          type="tel"
          autocomplete="tel"
          maxlength="20"
          .value=${kept['phone'] ?? ''}
          ?disabled=${off}
      /></label>
      <label
        >${t('email')}<input
          name="email"
          type="email"
          autocomplete="email"
          maxlength="254"
          .value=${kept['email'] ?? ''}
          ?disabled=${off}
      /></label>
      ${this.error ? html`<p class="error" id="error" role="alert">${this.error}</p>` : nothing}
      <button type="submit" class="pill-button" ?disabled=${off}>${t('submit')}</button>
    </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-contact-form': CharlaContactForm;
  }
}
