import { LitElement, html, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import { charCount, type Message } from '../../../types/index.ts';
import { translator } from '../../i18n/index.ts';
import type { WidgetActions } from '../../widget/context.ts';
import { focusComposer, focusLost } from '../shared/focus.ts';
import { isEmail } from '../shared/safe-url.ts';
import { typedName } from '../../util/validate.ts';
import { base } from '../../styles/base.ts';
import { styles } from './contact-form.styles.ts';

/**
 * A phone as people write it: an optional leading +, then 6 to 15 digits, each with at most two of
 * space, dash, dot or bracket before it (and after the last). 15 is E.164's most digits; 6 lets
 * short local numbers through (several countries have 6-digit subscriber numbers) and refuses what
 * is no number ('((((((', '12-34'). It is not forced into E.164: a local number has no country
 * code, and the business gets the number as typed, in ASCII digits. No maxlength on the field: a longer paste is
 * refused with the error, never cut silently (the pattern itself allows at most 48 characters).
 */
const PHONE = /^\+?(?:[ ().-]{0,2}[0-9]){6,15}[ ().-]{0,2}$/;
const DIGIT = /\p{Nd}/u;
/**
 * A phone typed with another script's digits (Arabic-Indic ٠١٢, Persian ۰۱۲, Devanagari: a phone
 * keyboard in those languages gives them) in ASCII digits, as E.164 writes them (full-width ０１２,
 * ＋, －, （ and its spaces are ASCII already, by NFKC, before this). Unicode
 * assigns decimal digits only in runs of ten from 0 to 9, so a digit's value is how many digits run
 * before it, modulo 10.
 */
const asciiDigits = (text: string): string =>
  text.replace(/\p{Nd}/gu, (d) => {
    let code = d.codePointAt(0)!;
    let value = 0;
    while (DIGIT.test(String.fromCodePoint(--code))) value++;
    return String(value % 10);
  });
const FIELDS = ['name', 'phone', 'email'] as const;
/** The most characters of a name the form sends. */
const NAME_MAX = 200;
type Field = (typeof FIELDS)[number];
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

  /**
   * Each invalid field's error, shown under it; `required` (nothing typed: every field is invalid)
   * and `form` (a failed send) are about the whole form, shown under the fields.
   */
  @state() private errors: Partial<Record<Field | 'required' | 'form', string>> = {};
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
    const name = typedName(String(data.get('name') ?? ''));
    const phone = asciiDigits(
      String(data.get('phone') ?? '')
        .normalize('NFKC')
        .trim(),
    );
    const email = String(data.get('email') ?? '').trim();
    // Every invalid field at once, each under its own field: fixing one should not reveal the next.
    const errors: typeof this.errors = {};
    if (!name && !phone && !email) errors.required = t('requiredField');
    // Counted in characters as every limit is (a maxlength counts UTF-16 units: 100 emoji were 200),
    // and refused with the error, never cut silently.
    if (charCount(name) > NAME_MAX) errors.name = t('nameTooLong', { max: NAME_MAX });
    if (phone && !PHONE.test(phone)) errors.phone = t('invalidPhone');
    if (email && !isEmail(email)) errors.email = t('invalidEmail');
    if (Object.keys(errors).length) return this.#fail(errors, FIELDS.find((f) => errors[f]) ?? 'name');
    if (!this.message || !this.actions) return;
    // The controls are disabled while sending, which drops focus: it is put back afterwards.
    const focused = this.matches(':focus-within');
    this.errors = {};
    this.sending = true;
    try {
      await this.actions.submitContactInfo(this.message, { name, phone, email });
      this.sent = true;
    } catch {
      await this.#fail({ form: t('sendFailed') });
    } finally {
      this.sending = false;
    }
    if (!focused || !focusLost(this)) return;
    // Sent: the form gives way to its confirmation and the conversation goes on in the composer.
    if (this.sent) return focusComposer(this);
    await this.updateComplete;
    this.renderRoot.querySelector('button')?.focus();
  }

  /** Shows the errors; focus goes to `field` (the first invalid one) when one is named. */
  async #fail(errors: typeof this.errors, field?: Field): Promise<void> {
    this.errors = errors;
    await this.updateComplete;
    if (field) this.renderRoot.querySelector<HTMLInputElement>(`input[name=${field}]`)?.focus();
  }

  override willUpdate(): void {
    // Answered (here, in another tab, before a reload): nothing typed is kept for it.
    if (this.sent || this.answered) this.#typed.delete(this.#key);
  }

  /**
   * A field with its label and, under it, its own error, which describes it. Nothing typed at all
   * marks every field invalid, described by the form's error.
   */
  #field(field: Field, type: string, max: number | undefined, kept: Record<string, string>, off: boolean) {
    const error = this.errors[field];
    const described = error ? `${field}-error` : this.errors.required ? 'error' : undefined;
    return html`<label
        >${translator(this.language)(field)}<input
          name=${field}
          type=${type}
          autocomplete=${field === 'phone' ? 'tel' : field}
          maxlength=${max ?? nothing}
          aria-invalid=${described ? 'true' : 'false'}
          aria-describedby=${described ?? nothing}
          .value=${kept[field] ?? ''}
          ?disabled=${off}
      /></label>
      ${error ? html`<p class="error" id=${`${field}-error`} role="alert">${error}</p>` : nothing}`;
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
      ${this.#field('name', 'text', undefined, kept, off)}
      ${this.#field('phone', 'tel', undefined, kept, off)} ${this.#field('email', 'email', 254, kept, off)}
      ${
        this.errors.required || this.errors.form
          ? html`<p class="error" id="error" role="alert">${this.errors.required || this.errors.form}</p>`
          : nothing
      }
      <button type="submit" class="pill-button" ?disabled=${off}>${t('submit')}</button>
    </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-contact-form': CharlaContactForm;
  }
}
