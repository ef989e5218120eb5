import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import { keyed } from 'lit/directives/keyed.js';
import {
  charCount,
  MESSAGE_TEXT_MAX,
  SHORT_TEXT_MAX,
  UPLOAD_IMAGE_MAX_BYTES,
  UPLOAD_MEDIA_MAX_BYTES,
  UPLOAD_MEDIA_TYPES,
} from '../../../types/limits.ts';
import { shortenFileName } from '../../../types/file-names.ts';
import { AudioRecorderController, type RecorderProblem } from '../../controllers/audio-recorder.ts';
import { ContextStoresController } from '../../controllers/context-stores.ts';
import { Drafts } from '../../controllers/drafts.ts';
import { translator, type CatalogueKey } from '../../i18n/index.ts';
import { base } from '../../styles/base.ts';
import type { UploadState, WidgetContext } from '../../widget/context.ts';
import { isVisibleText } from '../../util/validate.ts';
import { formatBytes, locale, plainName } from '../shared/format.ts';
import { icons } from '../shared/icons.ts';
import { styles } from './composer.styles.ts';

/** The button a notice is about: it is described by the notice. */
type NoticeFor = 'attach' | 'location' | 'mic' | undefined;

/** Narrower than this, the four buttons beside the field would leave it under 180 px (128 px at 320 px). */
const NARROW = 372;
const ACCEPT = [...UPLOAD_MEDIA_TYPES.IMAGE, ...UPLOAD_MEDIA_TYPES.DOCUMENT].join(',');
const LINE_HEIGHT_LIMIT = 5;
/**
 * Nothing typed or pasted is cut: a `maxlength` cut a long paste silently and Enter sent the text
 * without its end. Over the limit the text stays whole, a notice says so and sending waits until it
 * is short enough, so the visitor chooses what to leave out (or sends it in parts). A counter shows
 * from 300 characters before the limit. Characters are counted as the service counts them, in code
 * points of the text as it is sent (trimmed): an emoji is one, where `maxlength` counted two.
 */
const COUNT_FROM = MESSAGE_TEXT_MAX - 300;

/**
 * The text's length as the service counts it (code points), 0 while it is surely under COUNT_FROM:
 * a UTF-16 length is never less than the code points, so a short text is not split on each key.
 */
const countOf = (text: string): number => (text.length < COUNT_FROM ? 0 : charCount(text));

/** Which message type a picked file becomes, or why it cannot be sent. */
export function classifyFile(file: {
  type: string;
  size: number;
}):
  { ok: true; type: 'IMAGE' | 'DOCUMENT' } | { ok: false; reason: 'type' | 'size' | 'empty'; max?: number } {
  const mime = file.type.split(';')[0]!.trim().toLowerCase();
  const kind = (UPLOAD_MEDIA_TYPES.IMAGE as readonly string[]).includes(mime)
    ? 'IMAGE'
    : (UPLOAD_MEDIA_TYPES.DOCUMENT as readonly string[]).includes(mime)
      ? 'DOCUMENT'
      : null;
  if (!kind) return { ok: false, reason: 'type' };
  const max = kind === 'IMAGE' ? UPLOAD_IMAGE_MAX_BYTES : UPLOAD_MEDIA_MAX_BYTES;
  if (file.size > max) return { ok: false, reason: 'size', max };
  // Nothing to show or open: the service would store it and the bubble say "not available".
  if (!file.size) return { ok: false, reason: 'empty' };
  return { ok: true, type: kind };
}

/** The longest a location is looked for, prompt included (the browser's own 15 s start once allowed). */
const LOCATING_MAX_MS = 30_000;

const policyAllows = new Map<string, boolean>();

/**
 * The page lets its scripts use this feature: a Permissions-Policy (or a frame's allow list) that
 * forbids the microphone or the location makes their buttons fail every time, so they are not offered.
 * Chromium says; elsewhere they are offered and a refusal is said when pressed.
 */
function allowed(feature: string): boolean {
  // A page's policy holds for its life: asked once per feature, not at every render of the composer.
  let yes = policyAllows.get(feature);
  if (yes === undefined) {
    const policy = (document as { featurePolicy?: { allowsFeature(f: string): boolean } }).featurePolicy;
    policyAllows.set(feature, (yes = policy?.allowsFeature(feature) !== false));
  }
  return yes;
}

/** What the composer says when the microphone cannot record. */
const MIC_NOTICES: Record<RecorderProblem, CatalogueKey> = {
  denied: 'micDenied',
  unavailable: 'micUnavailable',
  missing: 'micMissing',
  failed: 'micFailed',
};

/**
 * @summary The composer: a growing text area, attach, location, voice note and send.
 * @tag charla-composer
 * @csspart composer - The bar.
 * @csspart input - The text area.
 * @csspart send-button - The send button.
 * @csspart notice - A problem worth telling the user (refused location, file too large...).
 * @cssproperty --charla-color-primary - Background of the send button.
 */
export class CharlaComposer extends LitElement {
  static override styles = [base, styles];
  static override shadowRootOptions = { ...LitElement.shadowRootOptions, delegatesFocus: true };

  @property({ attribute: false }) context?: WidgetContext;

  @state() private text = '';
  @state() private notice = '';
  /** The button the notice is about (it describes that button), if any. */
  @state() private noticeFor: NoticeFor = undefined;
  /**
   * Each notice is a new alert element: the same text again (the same refused file, a second
   * refused location) changes nothing in a live region left in place, and would be silent.
   */
  @state() private noticeCount = 0;
  /** Sends again what the notice is about (a failed upload); the notice then offers a retry. */
  @state() private retry: (() => void) | undefined;
  /**
   * Said (politely) once an upload is cancelled: the progress bar is gone, nothing failed. It goes
   * after a while or with the next thing typed or sent; each is a new line (keyed), read again.
   */
  @state() private cancelled = '';
  @state() private cancelledCount = 0;
  #cancelledTimer?: ReturnType<typeof setTimeout>;
  /** Stops the automatic retries of uploads that wait for the network. */
  readonly #waitingForNetwork = new Set<() => void>();
  /** The browser is finding the position for a location to share (a second press waits for it). */
  @state() private locating = false;
  /** Which press `locating` is for: a later one, or the watchdog, makes an earlier answer stale. */
  #locatingFor = 0;
  #locatingTimer?: ReturnType<typeof setTimeout>;
  /**
   * Narrower than NARROW, attach and location wait behind a "more" toggle (`more` while it shows
   * them, on a row of their own above the field); the microphone stays beside the field. Not
   * rendered while put away, not just hidden: no control of the bar is there without a place on screen.
   */
  @state() private narrow = false;
  @state() private more = false;
  readonly #resize =
    typeof ResizeObserver === 'function'
      ? new ResizeObserver((entries) => {
          for (const entry of entries)
            if (entry.target === this) this.#setNarrow(entry.contentRect.width < NARROW);
          this.#fitNotes();
        })
      : undefined;

  get #textarea(): HTMLTextAreaElement | null {
    return this.renderRoot?.querySelector<HTMLTextAreaElement>('textarea') ?? null;
  }
  get #fileInput(): HTMLInputElement | null {
    return this.renderRoot?.querySelector<HTMLInputElement>('input[type=file]') ?? null;
  }

  readonly #stores = new ContextStoresController(this, ['$ui', '$uploads', '$language', '$currentRoomId']);
  readonly #drafts = new Drafts();
  readonly #recorder = new AudioRecorderController(
    this,
    (file) => this.#upload(file, 'AUDIO'),
    (problem) => this.#setNotice(MIC_NOTICES[problem], 'mic'),
  );

  /**
   * Esc while a voice note records ends the recording without sending it, as a layer of its own
   * (the image viewer's way): the panel closes only with the next Esc. From wherever focus is in
   * the widget (a message's option, the header), so heard before the panel's own Esc.
   */
  readonly #onEscape = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !this.#recorder.recording || e.defaultPrevented) return;
    let widget: Element = this;
    for (let root = this.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode())
      widget = root.host;
    if (!e.composedPath().includes(widget)) return;
    e.preventDefault();
    e.stopPropagation();
    this.#handleDiscardClick();
  };

  override connectedCallback(): void {
    super.connectedCallback();
    this.#resize?.observe(this);
    // Put back on the page (rendered before): its notes area is watched again too (firstUpdated is once).
    const notes = this.renderRoot?.querySelector('.notes');
    if (notes) this.#resize?.observe(notes);
    window.addEventListener('keydown', this.#onEscape, true);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#resize?.disconnect();
    window.removeEventListener('keydown', this.#onEscape, true);
    // Uploads waiting for the network are not sent by a composer that has left the page.
    for (const stop of this.#waitingForNetwork) stop();
    clearTimeout(this.#cancelledTimer);
    clearTimeout(this.#locatingTimer);
    this.locating = false;
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('context')) this.#stores.use(this.context);
    // The room's unsent text (the panel closed, another room opened, and back).
    const draft = this.#drafts.switchTo(this.context, this.#stores.get('$currentRoomId') ?? '');
    if (draft !== undefined) this.text = draft;
    // disableInputs ends a recording: its button is disabled, so nothing else could.
    if (this.#disabled) this.#recorder.stop(false);
    // Disabled with focus on one of its controls: the browser would drop focus on <body>.
    const disabled = this.#disabled;
    if (disabled && !this.#wasDisabled && this.shadowRoot?.activeElement) this.#refocus = true;
    this.#wasDisabled = disabled;
  }

  #wasDisabled = false;
  /** Focus was on a control this update disables: it goes to the message list (updated). */
  #refocus = false;

  override firstUpdated(): void {
    const notes = this.renderRoot.querySelector('.notes');
    if (notes) this.#resize?.observe(notes);
  }

  /**
   * The notes area (notices, uploads, the counter) scrolls when it holds more than its place
   * (320 × 256): it then takes focus itself, named, so a keyboard reaches the text past its
   * buttons (arrows scroll it); otherwise it is no stop of its own.
   */
  #fitNotes(): void {
    const notes = this.renderRoot?.querySelector<HTMLElement>('.notes');
    if (!notes) return;
    const scrolls = notes.scrollHeight > notes.clientHeight + 1;
    if (scrolls) {
      notes.tabIndex = 0;
      notes.setAttribute('role', 'region');
      notes.setAttribute('aria-label', this.#t('notes'));
    } else if (notes.hasAttribute('tabindex') && this.shadowRoot?.activeElement !== notes) {
      // Not while it has focus (an upload ended under it): that would drop focus on the page.
      for (const name of ['tabindex', 'role', 'aria-label']) notes.removeAttribute(name);
    }
  }

  override updated(): void {
    this.#fitNotes();
    if (!this.#refocus) return;
    this.#refocus = false;
    // Still on a control left enabled: nothing to do. Still on the one just disabled: newer
    // Chromium moves focus off it only at the next frame (to <body>), so it is moved here.
    const inside = this.shadowRoot?.activeElement;
    if (inside && !inside.matches(':disabled')) return;
    const active = document.activeElement;
    if (!inside && active && active !== document.body) return;
    // The messages stay readable (and scrollable by keyboard) while nothing can be sent.
    const root = this.getRootNode() as ShadowRoot | Document;
    root.querySelector<HTMLElement>('charla-message-list')?.focus();
  }

  /** Focus lands in the text area (or, while it is disabled, wherever the browser delegates it). */
  override focus(options?: FocusOptions): void {
    if (this.#textarea && !this.#textarea.disabled) this.#textarea.focus(options);
    else super.focus(options);
  }

  #t(key: CatalogueKey, params?: Record<string, string | number>): string {
    return translator(this.#stores.get('$language'))(key, params);
  }

  get #disabled(): boolean {
    return !this.context || (this.#stores.get('$ui')?.inputsDisabled ?? false);
  }

  #handleInput(event: Event): void {
    const area = event.currentTarget as HTMLTextAreaElement;
    this.text = area.value;
    this.cancelled = '';
    this.#drafts.keep(this.text);
    this.#grow(area);
  }

  /** Grows to five lines, then scrolls (CSSOM height, allowed under a strict style-src). */
  #grow(area: HTMLTextAreaElement): void {
    if (CSS.supports?.('field-sizing', 'content')) return;
    area.style.height = 'auto';
    const line = parseFloat(getComputedStyle(area).lineHeight) || 22;
    area.style.height = `${Math.min(area.scrollHeight, line * LINE_HEIGHT_LIMIT + 18)}px`;
  }

  #handleKeyDown(event: KeyboardEvent): void {
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    this.#send();
  }

  /** The send button is disabled once the text is gone: focus goes back to the field, not to <body>. */
  #handleSendClick(): void {
    this.#send();
    this.#textarea?.focus();
  }

  #send(): void {
    // A NUL (pasted from a binary file, or typed by a script) is nothing to read and the service refuses it.
    const text = this.text.replaceAll('\0', '').trim();
    if (!isVisibleText(text) || countOf(text) > MESSAGE_TEXT_MAX || this.#disabled || !this.context) return;
    this.text = '';
    this.#drafts.keep(this.text);
    this.cancelled = '';
    if (this.#textarea) {
      this.#textarea.value = '';
      this.#grow(this.#textarea);
    }
    const { stores } = this.context;
    const room = stores.$currentRoomId.get();
    this.context.actions.sendText(text).catch((error: unknown) => {
      // A refusal is said once: by the chat's banner (why) and the message's own mark (with its
      // retry) when the widget made them; refused before it had either (no room yet), here, and the
      // words come back to the field.
      const said = !!stores.$lastError.get();
      if (!said) this.#setNotice('sendFailed');
      // Refused because the visitor was taken out of the room meanwhile, so its bubble went with the
      // room: the words come back to the field, unless something new was typed there.
      if (
        (!said ||
          ((error as { key?: unknown } | null)?.key === 'NOT_A_MEMBER' &&
            !stores.$rooms.get().some((r) => r.id === room))) &&
        !this.text
      ) {
        this.text = text;
        this.#drafts.keep(text);
      }
    });
  }

  /** Shows a notice (about one of the buttons, which it then describes), with a retry if given. */
  #setNotice(
    key: CatalogueKey,
    about?: NoticeFor,
    params?: Record<string, string | number>,
    retry?: () => void,
  ): void {
    this.cancelled = '';
    this.notice = this.#t(key, params);
    this.noticeFor = about;
    this.noticeCount++;
    this.retry = retry;
  }

  /**
   * Uploads and sends a file; a failure names it (the service's words are for developers) and offers
   * a retry. Without a network it says so, and the file goes by itself once the network is back.
   */
  #upload(file: Blob & { name: string }, type: 'IMAGE' | 'DOCUMENT' | 'AUDIO', caption?: string): void {
    this.notice = '';
    this.cancelled = '';
    this.context?.actions.sendFile(file, type, caption).catch((error: { key?: string } | undefined) => {
      // DESTROYED: cancelled (or the widget destroyed), on purpose: nothing failed, nothing to retry.
      if (error?.key === 'DESTROYED') return;
      let armed = true;
      const stop = () => {
        armed = false;
        removeEventListener('online', retry);
        off?.();
        this.#waitingForNetwork.delete(stop);
      };
      const retry = () => {
        if (!armed) return;
        stop();
        this.#upload(file, type, caption);
      };
      // No network: sent again by itself once it is back (the browser's word, or the socket's), as text is.
      const offline = !navigator.onLine || error?.key === 'NETWORK_ERROR';
      const off = offline
        ? this.context?.stores.$connection.listen((c) => c === 'connected' && retry())
        : undefined;
      if (offline) {
        addEventListener('online', retry);
        this.#waitingForNetwork.add(stop);
      }
      // Past the service's upload allowance (429): when the file may go, in whole minutes.
      const wait = (error as { body?: { data?: { retryAfterMs?: unknown } } } | undefined)?.body?.data
        ?.retryAfterMs;
      const limited = error?.key === 'RATE_LIMITED' && typeof wait === 'number' && wait > 0;
      this.#setNotice(
        offline ? 'uploadOffline' : limited ? 'uploadLimited' : 'uploadFailed',
        type === 'AUDIO' ? 'mic' : 'attach',
        { name: plainName(file.name), minutes: limited ? Math.ceil(wait / 60_000) : 0 },
        retry,
      );
    });
  }

  /** The clicked button goes away (a notice, a progress bar): focus goes to the field, not to <body>. */
  #keepFocus(event: Event): void {
    if ((event.currentTarget as Element).matches(':focus')) this.focus();
  }

  #handleCancelUploadClick(event: Event, upload: UploadState): void {
    this.context?.actions.cancelUpload?.(upload.id);
    this.cancelled = this.#t('uploadCancelled', { name: plainName(upload.name) });
    this.cancelledCount++;
    clearTimeout(this.#cancelledTimer);
    this.#cancelledTimer = setTimeout(() => (this.cancelled = ''), 8000);
    this.#keepFocus(event);
  }

  #handleMoreClick(): void {
    this.more = !this.more;
  }

  /** Esc on the toggle or the row it opened puts the row away (not the panel), back on the toggle. */
  #handleMoreKeyDown(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || !this.more || !this.narrow) return;
    event.preventDefault();
    this.more = false;
    this.#part('more-button')?.focus();
  }

  /**
   * Focus is never left on a button the new width takes away: the row stays open around it, or
   * attach (what the toggle opened) takes it. Wide again, the row is closed for the next time.
   * The row's opening waits a frame: a height changed within the observer's callback is a
   * "ResizeObserver loop" error on the host page.
   */
  #setNarrow(narrow: boolean, later = true): void {
    if (narrow === this.narrow) return;
    const focused = (this.renderRoot as ShadowRoot | undefined)?.activeElement;
    if (narrow && focused?.closest('.actions')) {
      if (later) requestAnimationFrame(() => this.#setNarrow(narrow, false));
      else this.more = this.narrow = true;
      return;
    }
    const toggle = !narrow && focused === this.#part('more-button');
    this.narrow = narrow;
    if (!narrow) this.more = false;
    if (toggle) void this.updateComplete.then(() => this.#part('attach-button')?.focus());
  }

  #part(name: string): HTMLElement | null {
    return this.renderRoot?.querySelector<HTMLElement>(`[part=${name}]`) ?? null;
  }

  #handleAttachClick(): void {
    this.#fileInput?.click();
  }

  #handleFileChange(event: Event): void {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (file) this.sendPickedFile(file);
  }

  /** Type and size (not over the limit, not empty) are checked here, before anything is uploaded. */
  sendPickedFile(file: File): void {
    if (this.#disabled || !this.context) return;
    // The name is the document's caption, and the service refuses a control character (C0, DEL, C1) in one.
    const name = file.name.replace(/[\0-\x1f\x7f-\x9f]/g, '');
    // Nothing left: named in the widget's language ("Documento"), as a nameless Blob is (sendFile).
    if (name !== file.name) file = new File([file], name || this.#t('document'), { type: file.type });
    const verdict = classifyFile(file);
    if (!verdict.ok) {
      const name = plainName(file.name);
      if (verdict.reason === 'type') this.#setNotice('fileTypeNotAllowed', 'attach', { name });
      else if (verdict.reason === 'empty') this.#setNotice('fileEmpty', 'attach', { name });
      else this.#setNotice('fileTooLarge', 'attach', { name, max: formatBytes(verdict.max ?? 0) });
      return;
    }
    // A document's card shows its caption as its name: the uploaded address names it by a UUID.
    this.#upload(
      file,
      verdict.type,
      verdict.type === 'DOCUMENT' ? shortenFileName(file.name, SHORT_TEXT_MAX) : undefined,
    );
  }

  #handleLocationClick(): void {
    const geo = typeof navigator !== 'undefined' ? navigator.geolocation : undefined;
    if (!geo) return this.#setNotice('locationUnavailable', 'location');
    if (this.locating) return;
    this.locating = true;
    this.notice = '';
    const press = ++this.#locatingFor;
    /** This press's answer, unless a later press or the watchdog has ended it. */
    const current = (): boolean => {
      if (press !== this.#locatingFor || !this.locating) return false;
      this.locating = false;
      clearTimeout(this.#locatingTimer);
      return true;
    };
    // The browser's 15 s count starts only once the visitor allows it: a permission prompt left
    // unanswered (or a browser that never calls back) would keep the button busy for good.
    this.#locatingTimer = setTimeout(() => {
      if (current()) this.#setNotice('locationTimeout', 'location');
    }, LOCATING_MAX_MS);
    geo.getCurrentPosition(
      (position) => {
        if (!current()) return;
        // disableInputs came while the browser was finding the position.
        if (this.#disabled) return;
        this.notice = '';
        this.context?.actions
          .sendLocation(position.coords.latitude, position.coords.longitude)
          // Said once: by the chat's banner when the widget made one, else here.
          .catch(() => this.context?.stores.$lastError.get() || this.#setNotice('sendFailed', 'location'));
      },
      (error) => {
        if (!current()) return;
        const reason =
          error.code === 1 ? 'locationDenied' : error.code === 3 ? 'locationTimeout' : 'locationUnavailable';
        this.#setNotice(reason, 'location');
      },
      { enableHighAccuracy: false, timeout: 15_000, maximumAge: 60_000 },
    );
  }

  #handleDiscardClick(): void {
    this.#recorder.stop(false);
    this.focus();
  }

  #handleMicClick(): void {
    if (this.#recorder.recording) return this.#recorder.stop(true);
    this.notice = '';
    void this.#recorder.start();
  }

  #handleDismissClick(event: Event): void {
    this.notice = '';
    this.#keepFocus(event);
  }

  #handleRetryClick(event: Event): void {
    this.#handleDismissClick(event);
    this.retry?.();
  }

  /** The notice describes the button it is about, while it shows. */
  #describedBy(button: NoticeFor): string | typeof nothing {
    return this.notice && this.noticeFor === button ? 'notice' : nothing;
  }

  override render(): unknown {
    const off = this.#disabled;
    // A failed upload leaves the store: the notice names it, with a retry.
    const uploads = this.#stores.get('$uploads') ?? [];
    const length = countOf(this.text.trim());
    const tooLong = length > MESSAGE_TEXT_MAX;
    const canSend = !off && isVisibleText(this.text) && !tooLong;
    const number = (n: number) => n.toLocaleString(locale(this.#stores.get('$language') ?? 'es'));
    const counting = length >= COUNT_FROM;
    // While a voice note records, the bar is about it (stop, discard): attaching or sharing a
    // location then would send in its middle, and at 320 px its buttons leave the field no room.
    const recording = this.#recorder.recording;
    const folded = this.narrow && !recording;
    return html`<div class="notes">
        ${
          this.notice
            ? keyed(
                this.noticeCount,
                html`<div class="notice" part="notice" role="alert">
                  <p id="notice">${this.notice}</p>
                  ${
                    this.retry
                      ? html`<button type="button" class="retry" @click=${this.#handleRetryClick}>
                          ${this.#t('retry')}
                        </button>`
                      : nothing
                  }
                  <button
                    type="button"
                    class="icon-button"
                    aria-label=${this.#t('dismiss')}
                    @click=${this.#handleDismissClick}
                  >
                    ${icons.close()}
                  </button>
                </div>`,
              )
            : nothing
        }
        <div class="uploads" role="status">
          ${uploads.map((u) => {
            // Always there, empty or not: a live region added with its text is not announced.
            const label = this.#t('uploading', { name: plainName(u.name) });
            // No value while nothing is known: an indeterminate bar, not an empty one.
            return html`<div class="upload">
              <span>${label}</span>
              <progress max="1" value=${u.progress || nothing} aria-label=${label}></progress>
              ${
                this.context?.actions.cancelUpload
                  ? html`<button
                      type="button"
                      class="icon-button"
                      part="cancel-upload-button"
                      aria-label=${this.#t('cancelUpload', { name: plainName(u.name) })}
                      @click=${(e: Event) => this.#handleCancelUploadClick(e, u)}
                    >
                      ${icons.close()}
                    </button>`
                  : nothing
              }
            </div>`;
          })}
          ${this.cancelled ? keyed(this.cancelledCount, html`<p class="upload">${this.cancelled}</p>`) : nothing}
        </div>
        <div role="status">
          ${
            // Said once as it starts (the time shown in the field is not read out every second).
            this.#recorder.recording ? html`<p class="visually-hidden">${this.#t('recording')}</p>` : nothing
          }
          ${this.locating ? html`<p class="visually-hidden">${this.#t('locating')}</p>` : nothing}
          ${
            // Always there, empty or not (as the uploads' region): announced once when the text goes over.
            tooLong
              ? html`<div class="notice" part="notice">
                  <p id="too-long">${this.#t('textTooLong', { max: number(MESSAGE_TEXT_MAX) })}</p>
                </div>`
              : nothing
          }
        </div>
        ${
          // Not live (it changes with every key): it describes the field, read when the field is reached.
          counting
            ? html`<div class="uploads">
                <span class="upload" id="count">${number(length)} / ${number(MESSAGE_TEXT_MAX)}</span>
              </div>`
            : nothing
        }
      </div>
      <div
        class="composer ${this.narrow ? 'narrow' : ''} ${folded && this.more ? 'open' : ''}"
        part="composer"
      >
        <input
          type="file"
          accept=${ACCEPT}
          tabindex="-1"
          aria-hidden="true"
          @change=${this.#handleFileChange}
        />
        ${
          folded
            ? html`<button
                type="button"
                class="icon-button more-button"
                part="more-button"
                aria-label=${this.#t('moreActions')}
                aria-expanded=${this.more ? 'true' : 'false'}
                aria-controls=${this.more ? 'actions' : nothing}
                ?disabled=${off}
                @click=${this.#handleMoreClick}
                @keydown=${this.#handleMoreKeyDown}
              >
                ${icons.close()}
              </button>`
            : nothing
        }
        ${
          folded && !this.more
            ? nothing
            : html`<div class="actions" id="actions" @keydown=${this.#handleMoreKeyDown}>
                <button
                  type="button"
                  class="icon-button"
                  part="attach-button"
                  aria-label=${this.#t('attach')}
                  aria-describedby=${this.#describedBy('attach')}
                  ?disabled=${off}
                  ?hidden=${recording}
                  @click=${this.#handleAttachClick}
                >
                  ${icons.attach()}
                </button>
                <button
                  type="button"
                  class="icon-button"
                  part="location-button"
                  aria-label=${this.#t('shareLocation')}
                  aria-describedby=${this.#describedBy('location')}
                  aria-busy=${this.locating ? 'true' : nothing}
                  ?disabled=${off}
                  ?hidden=${recording || !allowed('geolocation')}
                  @click=${this.#handleLocationClick}
                >
                  ${this.locating ? html`<span class="spinner" aria-hidden="true"></span>` : icons.location()}
                </button>
              </div>`
        }
        <button
          type="button"
          class="icon-button ${this.#recorder.recording ? 'recording' : ''}"
          part="mic-button"
          aria-label=${this.#recorder.recording ? this.#t('stopRecording') : this.#t('recordAudio')}
          aria-describedby=${this.#describedBy('mic')}
          ?disabled=${off}
          ?hidden=${!allowed('microphone')}
          @click=${this.#handleMicClick}
        >
          ${this.#recorder.recording ? icons.stop() : icons.mic()}
        </button>
        ${
          this.#recorder.recording
            ? html`<button
                type="button"
                class="icon-button"
                part="discard-button"
                aria-label=${this.#t('discardRecording')}
                @click=${this.#handleDiscardClick}
              >
                ${icons.close()}
              </button>`
            : nothing
        }
        <div class="field">
          <textarea
            part="input"
            dir="auto"
            rows="1"
            aria-label=${this.#t('messageLabel')}
            placeholder=${
              this.#recorder.recording
                ? `${this.#t('recording')} ${Math.floor(this.#recorder.seconds / 60)}:${String(this.#recorder.seconds % 60).padStart(2, '0')}`
                : this.#t('messageLabel')
            }
            aria-describedby=${tooLong ? 'count too-long' : counting ? 'count' : nothing}
            .value=${this.text}
            ?disabled=${off}
            @input=${this.#handleInput}
            @keydown=${this.#handleKeyDown}
          ></textarea>
        </div>
        <button
          type="button"
          class="icon-button send"
          part="send-button"
          aria-label=${this.#t('send')}
          ?disabled=${!canSend}
          @click=${this.#handleSendClick}
        >
          ${icons.send()}
        </button>
      </div> `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-composer': CharlaComposer;
  }
}
