/**
 * The bot's rich variants: options as outlined buttons under their button
 * text, QuickReplies as chips, a contact card, a call button and the
 * contact-information form.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { canonicalJson } from '../../../types/canonical-json.ts';
import { DEFAULT_BUTTON_TEXT } from '../../../types/limits.ts';
import type { BotContact, Message, MessageOption, QuickReply } from '../../../types/index.ts';
import { focusComposer } from '../shared/focus.ts';
import { botContactName, plainName } from '../shared/format.ts';
import { icons } from '../shared/icons.ts';
import { mailtoHref, safeUrl, telHref } from '../shared/safe-url.ts';
import type { RenderContext } from './render-context.ts';

/** Messages this page has sent an answer to: their rows learn of it only as the list renders them again. */
const answering = new WeakSet<Message>();

/**
 * The user's choice goes to the bot, once: a message already answered (in this tab or another)
 * sends nothing more, nor does a second click before its row renders the answer. The
 * conversation goes on in the composer, so focus goes there.
 */
function answer(event: Event, m: Message, r: RenderContext, send: () => Promise<unknown> | undefined): void {
  if (r.answer || answering.has(m)) return;
  answering.add(m);
  // The core records failures in $lastError; the rejection is handled there, not lost here, and
  // a choice that was not sent may be made again.
  send()?.catch(() => answering.delete(m));
  const control = event.currentTarget as HTMLElement;
  if (control.matches(':focus')) focusComposer(control);
}

/**
 * Attributes of a choice once the message is answered: the chosen one pressed, all of them
 * aria-disabled (inert but still focusable, so an answer arriving never drops focus to the page).
 * The options not chosen leave the Tab order (tabindex -1, which keeps focus where it is): a
 * conversation of many answered menus is not a long Tab path to the composer.
 */
const pressed = (r: RenderContext, chosen: boolean) => (r.answer ? String(chosen) : nothing);
const inert = (r: RenderContext) => (r.answer ? 'true' : nothing);

/**
 * Which option the answer chose: the first whose title and payload it carries; when none
 * carries both (options that share a title, answered by the payload's bot), the first of
 * its title. One option only, so two options titled "Sí" never both show chosen.
 */
function chosenOption(options: MessageOption[], r: RenderContext): MessageOption | undefined {
  const a = r.answer;
  if (!a) return undefined;
  const titled = options.filter((o) => o.title === a.text);
  // The answer's payload is the option's with replyTo added (which it may have overwritten).
  const payloadOf = (p: Record<string, unknown> | undefined) => canonicalJson({ ...p, replyTo: undefined });
  const payload = payloadOf(a.payload);
  return titled.find((o) => payloadOf(o.payload) === payload) ?? titled[0];
}

export function renderOptions(m: Message, r: RenderContext): TemplateResult | typeof nothing {
  const options = [...(m.options ?? [])].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  if (options.length === 0) return nothing;
  const chosen = chosenOption(options, r);
  const spec = m.interactive?.kind === 'options' ? m.interactive : undefined;
  // The service stores its default, `Opciones`, when the bot gave none: in English it reads "Options".
  const given = spec?.buttonText;
  const buttonText =
    given && !(given === DEFAULT_BUTTON_TEXT && r.language !== 'es') ? given : r.t('options');
  return html`<div class="options" role="group" aria-label=${buttonText}>
    <p class="options__label" dir="auto">${buttonText}</p>
    ${spec?.title ? html`<p class="options__title" dir="auto">${spec.title}</p>` : nothing}
    ${options.map((o) => renderOption(m, o, r, o === chosen))}
  </div>`;
}

/**
 * The bot's texts on options, chips and buttons each take their own direction (`dir="auto"`, an
 * isolate) and keep their characters: Arabic reads right, and a direction control in one cannot
 * reorder the widget's text around it. An option's title and description fill its width, so an
 * Arabic one starts at the right, as the options' title above it does.
 */
function renderOption(m: Message, o: MessageOption, r: RenderContext, chosen: boolean): TemplateResult {
  const body = html`<span class="option__title" dir="auto">${chosen ? icons.check() : nothing}${o.title}</span
    >${o.description ? html`<span class="option__description" dir="auto">${o.description}</span>` : nothing}`;
  const href = o.url ? safeUrl(o.url) : null;
  if (href) {
    return html`<a
      class="option"
      part="option"
      dir="auto"
      href=${href}
      target="_blank"
      rel="noopener noreferrer"
      >${body}</a
    >`;
  }
  return html`<button
    type="button"
    class="option"
    part="option"
    aria-pressed=${pressed(r, chosen)}
    aria-disabled=${inert(r)}
    tabindex=${r.answer && !chosen ? '-1' : nothing}
    @click=${(e: Event) => answer(e, m, r, () => r.actions?.chooseOption(m, o))}
  >
    ${body}
  </button>`;
}

export function renderQuickReplies(m: Message, r: RenderContext): TemplateResult | typeof nothing {
  const replies = m.QuickReplies ?? [];
  if (replies.length === 0 || !r.latest) return nothing;
  return html`<div class="chips" role="group" aria-label=${r.t('quickReplies')}>
    ${replies.map((q) => renderChip(m, q, r))}
  </div>`;
}

function renderChip(m: Message, q: QuickReply, r: RenderContext): TemplateResult {
  const img = q.imageUrl ? safeUrl(q.imageUrl) : null;
  const body = html`${img ? html`<img src=${img} alt="" referrerpolicy="no-referrer" />` : nothing}<span
      dir="auto"
      >${q.title}</span
    >`;
  const href = q.url ? safeUrl(q.url) : null;
  if (href)
    return html`<a class="chip" part="chip" href=${href} target="_blank" rel="noopener noreferrer"
      >${body}</a
    >`;
  return html`<button
    type="button"
    class="chip"
    part="chip"
    @click=${(e: Event) => answer(e, m, r, () => r.actions?.chooseQuickReply(m, q))}
  >
    ${body}
  </button>`;
}

/**
 * The kinds of phone, email and address that WhatsApp's contact object (whose shape the interface
 * takes) uses are shown in the widget's language. Any other kind is the business's own word and is
 * shown as written.
 */
const CONTACT_TYPES = ['CELL', 'MAIN', 'IPHONE', 'HOME', 'WORK'] as const;

/**
 * A card's field (a phone, an address's city, a kind) is a name: shown without direction controls,
 * each in its own isolate, so none reorders the widget's words after it ("(Casa)", the country).
 */
const field = (value: string | undefined) => html`<bdi>${plainName(value)}</bdi>`;

function typed(value: unknown, type: string | undefined, r: RenderContext): TemplateResult {
  const kind = plainName(type);
  const key = kind.toUpperCase() as (typeof CONTACT_TYPES)[number];
  // The kind in a box of its own: a link's underline stops at the number, and it wraps as one piece.
  return html`${value}${kind ? html` <span class="card__kind">(${CONTACT_TYPES.includes(key) ? r.t(`contactType${key}`) : field(kind)})</span>` : nothing}`;
}

export function renderContacts(contacts: BotContact[], r: RenderContext): TemplateResult {
  return html`${contacts.map(
    (c) =>
      // The card takes its name's direction: an Arabic card has its icon at the right and its
      // lines right-aligned, its address in order.
      html`<div class="card card--contact" dir="auto">
        <span class="card__icon">${icons.user()}</span>
        <span class="card__body">
          <span class="card__title">${botContactName(c) || r.t('contact')}</span>
          ${(c.phones ?? []).map((p) => {
            const href = telHref(p.phone);
            const label = typed(field(p.phone), p.type, r);
            return href
              ? html`<a class="card__link" href=${href}>${label}</a>`
              : html`<span class="card__secondary">${label}</span>`;
          })}
          ${(c.emails ?? []).map((e) => {
            const href = mailtoHref(e.email);
            const label = typed(field(e.email), e.type, r);
            return href
              ? html`<a class="card__link" href=${href}>${label}</a>`
              : html`<span class="card__secondary">${label}</span>`;
          })}
          ${(c.addresses ?? []).map(
            (a) =>
              html`<span class="card__secondary"
                >${typed(
                  [a.street, a.city, a.state, a.zip, a.country]
                    .map(plainName)
                    .filter(Boolean)
                    .map((v, i) => html`${i ? ', ' : ''}<bdi>${v}</bdi>`),
                  a.type,
                  r,
                )}</span
              >`,
          )}
        </span>
      </div>`,
  )}`;
}

// The 7 to 15 digits of types/limits.ts E164_PATTERN after the +; telHref checks the count without separators.
// Digits with at most one separator (space, dot, dash) and brackets between them: a dash or
// words after the number ("+34 600 111 222 - 24h") are not dialled as part of it.
const PHONE_IN_TEXT = /\+[1-9](?:[ .-]?\(?[0-9]\)?){6,14}/;

export function renderCall(m: Message, spec: { displayText: string }, r: RenderContext): TemplateResult {
  // The call variant names no number; when its display text carries one we can dial it, else we tell the bot.
  const href = telHref(PHONE_IN_TEXT.exec(spec.displayText)?.[0]?.trim());
  const label = spec.displayText || r.t('call');
  return html`<div class="call">
    ${
      href
        ? html`<a class="option option--call" part="option" href=${href}
            >${icons.phone()}<span dir="auto">${label}</span></a
          >`
        : html`<button
            type="button"
            class="option option--call"
            part="option"
            aria-pressed=${pressed(r, true)}
            aria-disabled=${inert(r)}
            @click=${(e: Event) =>
              answer(e, m, r, () =>
                r.actions?.chooseOption(m, {
                  type: 'voice_call',
                  title: label,
                  payload: { action: 'voice_call' },
                  order: 0,
                }),
              )}
          >
            ${r.answer ? icons.check() : icons.phone()}<span dir="auto">${label}</span>
          </button>`
    }
  </div>`;
}
