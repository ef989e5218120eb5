import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { property } from 'lit/decorators.js';
import { ContextStoresController } from '../../controllers/context-stores.ts';
import { FullScreenController } from '../../controllers/full-screen.ts';
import { translator, type Translate } from '../../i18n/index.ts';
import { base, tokens } from '../../styles/base.ts';
import {
  googleFontName,
  holdGoogleFont,
  panelPosition,
  releaseGoogleFont,
  themeProperties,
} from '../../styles/theme.ts';
import type { UiState, WidgetContext } from '../../widget/context.ts';
import { icons } from '../shared/icons.ts';
import { formatTime, widgetName } from '../shared/format.ts';
import { closeButton } from '../shared/parts.ts';
import { Announcer } from './announcer.ts';
import { styles } from './widget.styles.ts';

/** Shows or hides a manual popover; without popover support (or detached) it stays a fixed element. */
function top(el: HTMLElement | null, show?: boolean): void {
  try {
    if (show) el!.showPopover();
    else el!.hidePopover();
  } catch {
    // No popover API, not connected, or already in that state (older browsers throw).
  }
}

/**
 * @summary The embedded chat: a launcher button with an unread badge, the panel with the home menu, room contacts or chat, and a live region for messages that arrive off screen.
 * @tag charla-widget
 * @csspart launcher - The round launcher button.
 * @csspart badge - The unread count on the launcher.
 * @csspart panel - The chat panel.
 * @csspart unavailable - What the panel shows when the widget could not start (refused site, no connection).
 * @csspart header - The header bar of the current view (forwarded).
 * @csspart message-list - The scrolling message list (forwarded).
 * @csspart message - Each message row (forwarded).
 * @csspart bubble - Each bubble (forwarded).
 * @csspart composer - The composer bar (forwarded).
 * @csspart send-button - The send button (forwarded).
 * @csspart close-button - Close buttons (forwarded).
 * @csspart connection-notice - "Sin conexión…" / "El servicio no responde…" above the messages (forwarded).
 * @cssproperty --charla-color-primary - Brand colour: launcher, header, own bubbles (from theme when given).
 * @cssproperty --charla-color-on-primary - Text on the brand colour (chosen for contrast when the theme sets the brand colour).
 * @cssproperty --charla-font-family - Font of the widget (theme.font.name when given).
 * @cssproperty --charla-radius - Corner radius of the panel.
 * @cssproperty --charla-z-index - Stacking order of the launcher; the open panel is one above it (and above other widgets' launchers).
 */
export class CharlaWidget extends LitElement {
  static override styles = [tokens, base, styles];

  /** The widget core's stores and actions for this instance (set by createWidget). */
  @property({ attribute: false }) context?: WidgetContext;
  /** Where the launcher and panel sit; reflected from theme.position. */
  @property({ reflect: true }) position = 'bottom-right';
  /** Where it sits until the configuration gives a theme.position: the script tag's data-position. */
  defaultPosition?: string;
  /** The loader's launcher, which this element replaces, had the focus: its launcher (or its open panel) takes it. */
  focusOnStart = false;

  get #launcher(): HTMLButtonElement | null {
    return this.renderRoot?.querySelector<HTMLButtonElement>('.launcher') ?? null;
  }
  /** Focus is inside: :focus-within no longer matches the host once its panel is in the top layer (Chromium). */
  get #hasFocus(): boolean {
    return !!this.shadowRoot?.activeElement;
  }
  get #panel(): HTMLElement | null {
    return this.renderRoot?.querySelector<HTMLElement>('.panel') ?? null;
  }

  readonly #stores = new ContextStoresController(this, [
    '$ui',
    '$launcherUnread',
    '$config',
    '$language',
    '$connection',
    '$lastError',
  ]);
  readonly #announcer = new Announcer(this);
  #appliedTheme: unknown;
  /** The theme's custom properties, as a `:host` rule the host page's own CSS still overrides. */
  #themeSheet: CSSStyleSheet | undefined;
  #wasOpen = false;
  #returnFocus = false;
  #focusPanel = false;
  /** What the panel showed at the last update (see #content). */
  #shown = '';

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('context')) this.#stores.use(this.context);
    // The widget's language, not the page's: English text on a Spanish page is read as English (WCAG 3.1.2).
    const lang = this.#stores.get('$language') ?? 'es';
    if (this.lang !== lang) this.lang = lang;
    this.#applyTheme();
    const open = this.#stores.get('$ui')?.open ?? false;
    const shown = this.#content();
    if (this.#wasOpen && !open) {
      // Only take focus back when it was inside the widget: a facade close() must not steal the page's focus.
      this.#returnFocus ||= this.#hasFocus;
    }
    if (!this.#wasOpen && open) {
      // Opened from the launcher (a click sets it as well); a call from the page leaves focus on the page,
      // also before the first render, when there is no launcher yet (a queued open() of the script tag).
      const launcher = this.#launcher;
      this.#focusPanel = !!launcher && this.shadowRoot?.activeElement === launcher;
    } else if (open && shown !== this.#shown) {
      // The view that held focus is about to go away (a room chosen, Back, Add people, a retry):
      // focus follows into what replaces it, unless it was on the host page (a facade call).
      this.#focusPanel ||= this.#hasFocus;
    }
    this.#wasOpen = open;
    this.#shown = shown;
  }

  /** The panel's content: the view, or 'retry' / 'unavailable' when the widget could not start. */
  #content(): string {
    if (this.#stores.get('$config') || this.#stores.get('$connection') !== 'error')
      return this.#stores.get('$ui')?.view ?? '';
    // Only a transient failure (network, timeout, 5xx) may go away with a retry; a refused site, key or identity will not.
    return this.#stores.get('$lastError')?.transient ? 'retry' : 'unavailable';
  }

  /** The panel covers the viewport (480 px wide, or 480 px tall, or less): modal, Tab goes round inside it. */
  readonly #fullScreen = new FullScreenController(this);

  constructor() {
    super();
    // Keys typed in the widget's fields stay in the widget: a page's shortcuts (space or k for its video,
    // / for its search) skip text fields by the event's target, which outside is this element, so they
    // took what the visitor typed in the chat. Keys on its buttons go on to the page, as a page's own
    // buttons' do. The widget's own handlers ran already.
    for (const type of ['keydown', 'keypress', 'keyup'])
      this.addEventListener(type, (e) => {
        const from = e.composedPath()[0] as HTMLElement;
        if (from.isContentEditable || /^(input|textarea|select)$/.test(from.localName)) e.stopPropagation();
      });
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Both catalogues read left to right, whatever the page's direction.
    this.dir = 'ltr';
    // Copies of this element cloned with a page (a router's cache of it: Turbo, htmx history) draw
    // nothing; they go when the widget joins them, so the page's querySelector finds the widget.
    if (this.context)
      for (const copy of this.parentNode?.querySelectorAll<CharlaWidget>(this.localName) ?? [])
        if (!copy.context) copy.remove();
    // Taken out of the document, the popovers left the top layer: back in when it returns.
    this.requestUpdate();
    this.#useFont(googleFontName(this.#appliedTheme));
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#useFont(null);
  }

  override updated(changed: PropertyValues<this>): void {
    // The top layer: above the page's z-indexes, and out of reach of a transformed or filtered ancestor
    // (body { transform } or { filter } made the page, not the viewport, hold position: fixed).
    try {
      if (!this.#launcher!.matches(':popover-open')) {
        this.#launcher!.showPopover();
        // Later in the top layer, it would cover another widget's open panel (full screen at 320 px): those come back above.
        for (const w of document.querySelectorAll(this.localName)) {
          const panel = w.shadowRoot!.querySelector<HTMLElement>('.panel:popover-open');
          if (w !== this && panel) (top(panel), top(panel, true));
        }
      }
    } catch {
      // No popover API (a fixed launcher, stacked by --charla-z-index), or not rendered yet.
    }
    const open = this.#stores.get('$ui')?.open;
    top(this.#panel, open);
    if (changed.has('position')) this.#placeBesideOthers();
    // Unless something else took the focus since the loader's launcher went (a click on it opened the panel).
    if (this.focusOnStart && document.activeElement === document.body) {
      if (open) this.#focusPanel = true;
      else this.#launcher?.focus();
    }
    this.focusOnStart = false;
    if (this.#returnFocus) {
      this.#returnFocus = false;
      this.#launcher?.focus();
    }
    if (this.#focusPanel) {
      this.#focusPanel = false;
      // The view renders after this element: wait for it, then let it pick its own first control.
      const view = this.#panel?.firstElementChild as
        (HTMLElement & { updateComplete?: Promise<unknown> }) | null;
      if (view?.classList.contains('unavailable'))
        (view.querySelector<HTMLElement>('.pill-button') ?? view).focus();
      else void view?.updateComplete?.then(() => view.focus());
    }
  }

  /** Widgets in the same corner sit side by side: each later one a launcher's width (and a gap) further in. */
  #placeBesideOthers(): void {
    if (typeof document === 'undefined') return;
    const peers = [...document.querySelectorAll<CharlaWidget>(this.localName)].filter(
      (w) => w.context && w.position === this.position,
    );
    const index = Math.max(0, peers.indexOf(this));
    if (index > 0) this.style.setProperty('--_shift', `${index * 68}px`);
    else this.style.removeProperty('--_shift');
  }

  #applyTheme(): void {
    const theme = this.#stores.get('$config')?.theme ?? null;
    if (theme === this.#appliedTheme) return;
    this.#appliedTheme = theme;
    // A constructable stylesheet (allowed under style-src 'self') with a `:host` rule, not the
    // element's style: the page's `charla-widget { --charla-color-primary: … }` beats a shadow
    // root's `:host` rules, where it could not beat an inline style. Every value here was
    // validated by themeProperties (hex colours, a font name of letters, digits, spaces, _ and -).
    // Made on the first theme with properties (not for the empty theme before the configuration).
    const properties = Object.entries(themeProperties(theme));
    const root = this.renderRoot as ShadowRoot;
    if (!this.#themeSheet && properties.length > 0 && root?.adoptedStyleSheets) {
      this.#themeSheet = new CSSStyleSheet();
      this.#themeSheet.insertRule(':host{}');
      root.adoptedStyleSheets = [...root.adoptedStyleSheets, this.#themeSheet];
    }
    const sheet = this.#themeSheet;
    if (sheet) {
      // One property at a time through the CSSOM: a value can never end the rule or start another.
      const style = (sheet.cssRules[0] as CSSStyleRule).style;
      for (let i = style.length; i--;) style.removeProperty(style.item(i));
      for (const [name, value] of properties) style.setProperty(name, value);
    }
    this.position = panelPosition(theme?.['position'] ?? this.defaultPosition);
    const scheme = theme?.['colorScheme'] === 'auto' || theme?.['darkMode'] === true;
    this.toggleAttribute('color-scheme', scheme);
    if (scheme) this.setAttribute('color-scheme', 'auto');
    this.#useFont(googleFontName(theme));
  }

  /** The Google font this widget holds in the page's head (destroy() lets it go with the element). */
  #font: string | null = null;
  #useFont(name: string | null): void {
    if (name === this.#font || typeof document === 'undefined') return;
    if (this.#font) releaseGoogleFont(document, this.#font);
    if (name) holdGoogleFont(document, name);
    this.#font = name;
  }

  #handleLauncherClick(): void {
    const ui = this.#stores.get('$ui');
    if (!this.context || !ui || ui.launcherDisabled) return;
    if (ui.open) {
      this.context.actions.close();
    } else {
      this.#focusPanel = true;
      this.context.actions.open();
    }
  }

  #handleKeyDown(event: KeyboardEvent): void {
    // Every key typed in the panel comes here: only Tab and Esc are the panel's.
    if (event.defaultPrevented || (event.key !== 'Tab' && event.key !== 'Escape')) return;
    // Esc and Tab inside an open image viewer are the viewer's (a modal dialog of its own).
    if (event.composedPath().some((n) => n instanceof HTMLDialogElement)) return;
    if (event.key === 'Tab') return this.#fullScreen.tabAround(event, this.#panel, this.shadowRoot!);
    // The widget's Esc: it closes the panel, not also the page's dialog the widget sits in.
    event.preventDefault();
    event.stopPropagation();
    this.#returnFocus = true;
    this.context?.actions.close();
  }

  /** Esc on the launcher of an open panel (focus Tabbed out of it onto the page) closes it too. */
  #handleLauncherKeyDown(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || event.defaultPrevented || !this.#stores.get('$ui')?.open) return;
    event.preventDefault();
    event.stopPropagation();
    this.context?.actions.close();
  }

  #handleRetryClick(): void {
    // The panel's content changes with the connection; willUpdate moves focus along with it.
    this.context?.actions.reconnect();
  }

  /** The widget could not open its session: say why instead of showing an empty view. */
  #renderUnavailable(t: Translate, retry: boolean) {
    const error = this.#stores.get('$lastError');
    const site = error?.key === 'ORIGIN_NOT_ALLOWED' || error?.key === 'FORBIDDEN';
    // Too many new visitors from the visitor's address (429): when a chat can start, as a time of
    // day (a count of minutes would go stale on the screen), or "in a few seconds".
    const at = error?.key === 'RATE_LIMITED' ? error.retryAt : undefined;
    const words = site
      ? t('unavailableHere')
      : retry && at
        ? at - Date.now() < 60_000
          ? t('startLimitedSoon')
          : t('startLimited', { time: formatTime(new Date(at), this.#stores.get('$language') ?? 'es') })
        : t(retry ? 'startFailed' : 'unavailable');
    // Its own close button: full screen on a phone, the panel covers the launcher, and a touch
    // user has no Esc (a reviewer's phone was left on a blank screen with nothing to tap).
    return html`<div class="unavailable" part="unavailable" role="alert" tabindex="-1">
      <div class="unavailable__close">${closeButton(t('closeChat'), this.context?.actions)}</div>
      <span class="unavailable__icon" aria-hidden="true">${icons.chat()}</span>
      <p>${words}</p>
      ${
        !retry
          ? nothing
          : html`<button type="button" class="pill-button" @click=${this.#handleRetryClick}>
              ${t('retry')}
            </button>`
      }
    </div>`;
  }

  #renderView(ui: UiState) {
    switch (ui.view) {
      case 'home':
        return html`<charla-home-menu
          .context=${this.context}
          exportparts="header, room, contact, close-button"
        ></charla-home-menu>`;
      case 'room-contacts':
        return html`<charla-room-contacts
          .context=${this.context}
          exportparts="header, contact, back-button, close-button"
        ></charla-room-contacts>`;
      default:
        return html`<charla-chat
          .context=${this.context}
          exportparts="header, back-button, add-button, close-button, message-list, message, bubble, option, chip, system, new-messages-button, composer, input, send-button, attach-button, location-button, mic-button, notice, connection-notice"
        ></charla-chat>`;
    }
  }

  override render(): unknown {
    // No widget behind it: a copy of the element (a page snapshot cloned with its body, as Turbo
    // caches pages) shows nothing, not a second, unusable launcher.
    if (!this.context) return nothing;
    const t = translator(this.#stores.get('$language'));
    const ui = this.#stores.get('$ui');
    const open = ui?.open ?? false;
    const disabled = !ui || ui.launcherDisabled;
    const unread = this.#stores.get('$launcherUnread') ?? 0;
    const badge = unread > 0 && !open;
    // The count as the badge shows it is part of the name, disabled too (WCAG 2.5.3 label in name).
    const count = unread > 99 ? '99+' : unread;
    const label = disabled
      ? badge
        ? t('launcherDisabledUnread', { count })
        : t('launcherDisabled')
      : open
        ? t('closeChat')
        : badge
          ? t('openChatUnread', { count })
          : t('openChat');
    // Full screen the open panel is modal: the announcer's region goes inside it (see Announcer).
    const modal = open && this.#fullScreen.active;
    return html`
      <button
        type="button"
        class="launcher ${open ? 'launcher--open' : ''}"
        part="launcher"
        popover="manual"
        aria-label=${label}
        aria-expanded=${open ? 'true' : 'false'}
        aria-controls="panel"
        aria-disabled=${disabled ? 'true' : nothing}
        title=${disabled ? label : nothing}
        @click=${this.#handleLauncherClick}
        @keydown=${this.#handleLauncherKeyDown}
      >
        ${open ? icons.close() : icons.chat()}
        ${badge ? html`<span class="badge" part="badge" aria-hidden="true">${count}</span>` : nothing}
      </button>
      <div
        id="panel"
        class="panel"
        part="panel"
        popover="manual"
        role="dialog"
        aria-modal=${modal ? 'true' : nothing}
        aria-label=${widgetName(this.#stores.get('$config')) || t('chat')}
        ?hidden=${!open}
        @keydown=${this.#handleKeyDown}
      >
        ${
          open && ui
            ? this.#shown === ui.view
              ? this.#renderView(ui)
              : this.#renderUnavailable(t, this.#shown === 'retry')
            : nothing
        }${modal ? this.#announcer.render(true) : nothing}
      </div>
      ${modal ? nothing : this.#announcer.render(false)}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-widget': CharlaWidget;
  }
}
