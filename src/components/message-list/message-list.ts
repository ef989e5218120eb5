import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import { repeat } from 'lit/directives/repeat.js';
import { virtualize, type VirtualizerHostElement } from '@lit-labs/virtualizer/virtualize.js';
import type { Message, Room } from '../../../types/index.ts';
import { ContextStoresController } from '../../controllers/context-stores.ts';
import { translator, type Translate } from '../../i18n/index.ts';
import { base } from '../../styles/base.ts';
import type { WidgetContext } from '../../widget/context.ts';
import { deepActiveElement, focusComposer, tabStops } from '../shared/focus.ts';
import {
  formatDay,
  messageDate,
  senderLabels,
  senderName,
  announcement,
  type SenderLabels,
} from '../shared/format.ts';
import { icons } from '../shared/icons.ts';
import { AT_BOTTOM_PX, chatLayout } from './chat-layout.ts';
import { answerOf, isOwn, type Naming, namingIn, rowInfo } from './items.ts';
import { styles as messageStyles } from '../message/message.styles.ts';
import { styles } from './message-list.styles.ts';

export { isOwn, rowInfo, type RowInfo } from './items.ts';

/** Which way the list holds its scroll position across changes. */
type Anchor = { mode: 'bottom' } | { mode: 'item'; key: string } | { mode: 'free' };

/**
 * Rows kept beyond each edge of the view, in pixels. The layout's default is 1000 and not
 * public: its config is assigned onto the layout, so this field takes effect (checked against
 * @lit-labs/virtualizer 2.1; a version that ignores it only falls back to the default).
 * Fewer live rows make each scrolled frame cheaper (the virtualizer walks and measures them all).
 */
const OVERHANG = 500;

/**
 * Views a Tab looks through for the next control beyond the rows drawn, before it gives up and
 * goes where it would have gone past the list (each view costs a render and two frames).
 */
const TAB_SEEK_VIEWS = 40;

/** Older history is asked for when one of the first rows shows. */
const TOP_ROWS = 2;
const ANNOUNCEMENTS_KEPT = 10;
/** Keys that scroll the list up when it (or a control in it other than a text field) has focus. */
const UP_KEYS = ['ArrowUp', 'PageUp', 'Home'];
/**
 * Where Home and End are the control's own (a caret, a slider, a media player's seek), not the
 * list's: a text field, a native control that takes those keys, an editable or composite widget.
 */
const OWN_HOME_END =
  'input, textarea, select, audio, video, iframe, [contenteditable]:not([contenteditable=false]), ' +
  '[role=textbox], [role=combobox], [role=slider], [role=spinbutton], [role=listbox], [role=menu], ' +
  '[role=menubar], [role=tablist], [role=grid], [role=tree], [role=treegrid], [role=radiogroup]';

/**
 * @summary The current room's messages: virtualized, with date separators, history paging and a live region.
 * @tag charla-message-list
 * @csspart message-list - The scrolling region.
 * @csspart message - Each message row (forwarded from charla-message).
 * @csspart bubble - Each bubble (forwarded from charla-message).
 * @csspart new-messages-button - The "new messages" button shown when scrolled up.
 * @csspart retry-older-button - Asks again for older messages after a page failed.
 * @cssproperty --charla-color-surface - Background of the list.
 */
export class CharlaMessageList extends LitElement {
  static override styles = [base, styles, messageStyles];

  @property({ attribute: false }) context?: WidgetContext;

  @state() private anchor: Anchor = { mode: 'bottom' };
  @state() private unseenBelow = 0;
  @state() private announcements: { id: string; text: string }[] = [];

  get #scroller(): VirtualizerHostElement | null {
    return this.renderRoot?.querySelector<VirtualizerHostElement>('.scroller') ?? null;
  }

  readonly #stores = new ContextStoresController(this, [
    '$currentMessages',
    '$currentHistory',
    '$currentRoomId',
    '$rooms',
    '$user',
    '$ui',
    '$language',
  ]);

  /** The store's array itself: the virtualizer's items (one row per message). */
  #items: readonly Message[] = [];
  #userId: string | null = null;
  #naming: Naming = 'nobody';
  /** What #naming was made from: the room object and the user. */
  #namingOf: [Room | undefined, string | null] | undefined;
  /** Who the room's messages without a sender's name are said to come from (senderName). */
  #senders: SenderLabels = { members: new Map(), service: '', someone: '' };
  /** What #senders was made from: made again only when the room object or the language changes. */
  #sendersOf: [Room | undefined, string] | undefined;
  #roomId: string | null = null;
  #knownIds = new Set<string>();
  #seenIds = new Set<string>();
  #lastMessageKey: string | undefined;
  /**
   * The last message not the user's own, when last looked: only what is below it can be new.
   * Not simply the last message: the user's own sent offline sit at the end, and the catch-up
   * puts others' messages above them.
   */
  #sinceKey: string | undefined;
  #visible = { first: -1, last: -1 };
  /** The scroller's scrollTop at the last scroll event: which way the view went. */
  #lastScrollTop = 0;
  /** Following the bottom, but the layout dropped its pin (the user nudged the view within reach of the end, or is about to scroll up). */
  #pinDropped = false;
  /** The user is about to scroll up: the next render hands the layout no pin. */
  #release = false;
  /** Where a touch on the list was last (a finger moving down scrolls the list up). */
  #touchY = 0;
  /** Passive, so that scrolling never waits for the list. */
  readonly #intent = { handleEvent: (e: Event) => this.#handleScrollIntent(e), passive: true };
  /** Others' messages that arrived while following the bottom, for the layout to measure (once). */
  #arrivals: Message[] = [];
  /**
   * The layout's fixed configuration. An arrival too tall for the view is shown from its start
   * (the layout pins it there): the list holds that row, as it holds a row while history pages
   * in, and stops following; scrolling down to the end follows again.
   */
  readonly #layoutExtra: Record<string, unknown> = {
    _overhang: OVERHANG,
    _onStart: (item: Message) => {
      if (this.anchor.mode === 'bottom' && this.#items.lastIndexOf(item) >= 0)
        this.#setAnchor({ mode: 'item', key: String(item.id) });
    },
  };

  /**
   * A burst of arrivals (each in its own task) renders once per frame instead of once per
   * message: the update waits for the next animation frame, whose paint it was headed for anyway.
   * The first render (opening a room) and the user's own moves (an anchor change) do not wait.
   */
  protected override async scheduleUpdate(): Promise<void> {
    const wait = this.hasUpdated && !this.#immediate && document.visibilityState !== 'hidden';
    if (wait && typeof requestAnimationFrame === 'function')
      await new Promise((resolve) => requestAnimationFrame(resolve));
    this.#immediate = false;
    super.scheduleUpdate();
  }

  /** The next update answers the user, not a message burst: render it without waiting a frame. */
  #immediate = false;

  #setAnchor(anchor: Anchor): void {
    this.#immediate = true;
    this.anchor = anchor;
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('context')) this.#stores.use(this.context);
    const roomId = this.#stores.get('$currentRoomId') ?? null;
    const messages = this.#stores.get('$currentMessages') ?? [];
    const userId = this.#stores.get('$user')?.id ?? null;
    const room = this.#stores.get('$rooms')?.find((r) => r.id === roomId);
    const language = this.#stores.get('$language') ?? 'es';
    if (!this.#sendersOf || this.#sendersOf[0] !== room || this.#sendersOf[1] !== language) {
      this.#senders = senderLabels(room, translator(language));
      this.#sendersOf = [room, language];
    }
    if (roomId !== this.#roomId) this.#resetRoom(roomId, messages, userId);
    if (messages !== this.#items) {
      this.#holdFocusedRow(messages);
      this.#trackArrivals(messages, userId);
    }
    this.#items = messages;
    this.#userId = userId;
    if (!this.#namingOf || this.#namingOf[0] !== room || this.#namingOf[1] !== userId) {
      this.#namingOf = [room, userId];
      this.#naming = namingIn(room, userId);
    }
  }

  /** Focus lands on the scrolling region (the host itself takes none). */
  override focus(options?: FocusOptions): void {
    const scroller = this.#scroller;
    if (scroller) scroller.focus(options);
    else super.focus(options);
  }

  /** What arrived while the page was hidden (another tab, the phone's home screen) is seen when it shows again. */
  readonly #onVisibility = (): void => this.#markVisibleSeen();

  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener('visibilitychange', this.#onVisibility);
    window.addEventListener('keydown', this.#onKey, true);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('visibilitychange', this.#onVisibility);
    window.removeEventListener('keydown', this.#onKey, true);
    this.#focusWatch?.disconnect();
    this.#focusWatch = undefined;
  }

  override updated(): void {
    const held = this.#heldFocus;
    this.#heldFocus = undefined;
    if (held) this.#keepFocus(held);
    this.#markVisibleSeen();
    this.#afterPage();
  }

  /** Whether a page of history was being loaded at the last update. */
  #wasLoading = false;

  /**
   * A page of history has come (or failed): when the view is still on the first rows, the next
   * one is asked for. The range is reported only when it changes, so a user who reached the top
   * while a page was on its way (that report found it loading) sat at the top for good.
   * Asked of the DOM two frames on, once the rows are placed and the held row is back in view:
   * only a view still showing one of the first rows loads again, never a whole history at once.
   * A page that failed is not asked again by itself (the list offers a retry).
   */
  #afterPage(): void {
    const history = this.#stores.get('$currentHistory');
    const loading = history?.loading ?? false;
    const done = this.#wasLoading && !loading;
    this.#wasLoading = loading;
    if (!done || !history?.hasMore || history.error) return;
    const roomId = this.#roomId;
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        if (roomId !== this.#roomId) return;
        const key = this.#firstVisibleKey();
        const at = key === undefined ? -1 : this.#items.findIndex((m) => String(m.id) === key);
        if (at >= 0 && at <= TOP_ROWS) this.#maybeLoadOlder();
      }),
    );
  }

  #handleOlderRetry(): void {
    this.context?.actions.loadOlder().catch(() => undefined);
  }

  #resetRoom(roomId: string | null, messages: readonly Message[], userId: string | null): void {
    this.#roomId = roomId;
    // History already present when a room opens is never announced: only what comes after its last message is.
    this.#knownIds = new Set();
    this.#seenIds = new Set();
    this.#lastMessageKey = messages.length ? String(messages[messages.length - 1]!.id) : undefined;
    this.#sinceKey = this.#lastOthers(messages, userId, true);
    this.anchor = { mode: 'bottom' };
    this.unseenBelow = 0;
    this.announcements = [];
    this.#visible = { first: -1, last: -1 };
  }

  /**
   * The id of the last message someone else wrote (#sinceKey); with `known`, the user's own
   * below it become known (history when a room opens).
   */
  #lastOthers(messages: readonly Message[], userId: string | null, known = false): string | undefined {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (!isOwn(m, userId)) return String(m.id);
      if (known) this.#knownIds.add(String(m.id));
    }
    return undefined;
  }

  /**
   * Older rows put in front of the rows (a page of history) while focus is on a control in one:
   * that row holds its place in the view, so it stays drawn (left to the view it was pushed out
   * of the rows drawn, and focus dropped to <body>); and when moving the rows took the focus
   * away all the same, it goes back to the same control of that row.
   */
  #holdFocusedRow(messages: readonly Message[]): void {
    const focused = this.#focusInRow();
    const first = this.#items[0];
    // Rows put in front: the first row of before is no longer first (not a change of it).
    if (!focused || !first || messages[0] === first || messages.findIndex((m) => m.id === first.id) <= 0)
      return;
    const row = focused.top.closest<HTMLElement>('[data-key]');
    const key = row?.dataset['key'];
    if (!row || key === undefined || findIndexFromEnd(messages, key) < 0) return;
    const at = tabStops(row).indexOf(focused.deep as HTMLElement);
    this.#pinDropped = this.#release = false;
    this.anchor = { mode: 'item', key };
    const scroller = this.#scroller;
    if (!scroller || at < 0 || typeof MutationObserver !== 'function') return;
    const watch = new MutationObserver(() => {
      const active = document.activeElement;
      if (active && active !== document.body) return;
      const again = [...scroller.children].find((c) => (c as HTMLElement).dataset['key'] === key);
      const stop = again ? tabStops(again)[at] : undefined;
      if (stop) stop.focus({ preventScroll: true });
    });
    // One watch on the rows at a time (#keepFocus's too), let go with the element.
    this.#focusWatch?.disconnect();
    this.#focusWatch = watch;
    watch.observe(scroller, { childList: true, subtree: true });
    // Long enough for the virtualizer's passes after the page; then focus is the user's again.
    setTimeout(() => {
      watch.disconnect();
      if (this.#focusWatch === watch) this.#focusWatch = undefined;
    }, 1_000);
  }

  /** New messages at the end are announced once (if someone else wrote them) and counted while scrolled up. */
  #trackArrivals(messages: readonly Message[], userId: string | null): void {
    const lastBefore = this.#lastMessageKey;
    const lastIndex = this.#sinceKey ? findIndexFromEnd(messages, this.#sinceKey) : -1;
    const fresh: Message[] = [];
    // Only the tail after the last message someone else wrote can be new (#sinceKey); history
    // paged in above it never is.
    // A room's first page arrives after the room opens, as a tail: the core tells it apart (its
    // messages are not news), however recent they are. The user's own sends are new here.
    const isNews = this.context!.actions.isNews;
    for (let i = messages.length - 1; i > lastIndex; i--) {
      const m = messages[i]!;
      const id = String(m.id);
      if (this.#knownIds.has(id)) continue;
      this.#knownIds.add(id);
      if (isNews(m) || isOwn(m, userId)) fresh.push(m);
    }
    if (messages.length) this.#lastMessageKey = String(messages[messages.length - 1]!.id);
    this.#sinceKey = this.#lastOthers(messages, userId) ?? this.#sinceKey;
    const focused = this.#focusInRow();
    // A new last message takes the chips (the latest message's only) away, and the focus on one
    // with them: once the rows have rendered, focus goes to the composer (#keepFocus).
    const chip = focused?.deep.closest('[part=chip]') ? focused : undefined;
    if (chip && lastBefore !== this.#lastMessageKey) this.#heldFocus = chip;
    if (fresh.length === 0) return;
    fresh.reverse();
    const t = translator(this.#stores.get('$language'));
    const incoming = fresh.filter((m) => !isOwn(m, userId));
    if (incoming.length) {
      const next = incoming.map((m) => ({
        id: String(m.id),
        text: t('newMessageFrom', { name: senderName(m, this.#senders), text: announcement(m, t) }),
      }));
      this.announcements = [...this.announcements, ...next].slice(-ANNOUNCEMENTS_KEPT);
    }
    // While the user's scroll up is on its way (#release), what arrives is not followed: it waits
    // behind the button like anything arriving once the view is away from the end. So does what
    // arrives while focus is on a control in a row (an option, a link, the contact form's field):
    // followed, a burst would take that row out of view, and out of the page with the focus in it
    // (the virtualizer renders only the rows near the view). A chip goes away anyway (above).
    const holding = this.anchor.mode === 'bottom' && !!focused && !chip;
    if (this.anchor.mode === 'bottom' && !this.#release && !holding) this.#arrivals = incoming;
    else {
      // The user's own message brings the view down; others' wait behind the button.
      if (fresh.some((m) => isOwn(m, userId))) this.anchor = { mode: 'bottom' };
      else {
        if (holding) this.#setAnchor({ mode: 'free' });
        this.unseenBelow += incoming.length;
      }
    }
  }

  /**
   * The control of one of the rows that has focus (not the list itself): `top` in this shadow
   * root (the row's own light DOM), `deep` the focused element (in a form's shadow root, say).
   */
  #focusInRow(): { top: Element; deep: Element } | undefined {
    const top = this.shadowRoot?.activeElement;
    const scroller = this.#scroller;
    if (!top || !scroller || top === scroller || !scroller.contains(top)) return undefined;
    return { top, deep: deepActiveElement(this.shadowRoot!) ?? top };
  }

  /** Focus on a row's control that the coming render may take away (a chip). */
  #heldFocus: { top: Element; deep: Element } | undefined;

  /**
   * Once the row renders again (the virtualizer renders rows in its own pass, after this
   * element's update): its control gone with the focus in it (the browser left focus on <body>),
   * focus goes to the composer's text field, where the conversation goes on. Focus moved on
   * elsewhere first is left alone.
   */
  #keepFocus(held: { top: Element; deep: Element }): void {
    const scroller = this.#scroller;
    if (!scroller || typeof MutationObserver !== 'function') return;
    this.#focusWatch?.disconnect();
    const check = () => {
      if (held.deep.isConnected && held.top.isConnected && held.deep.matches(':focus')) return;
      this.#focusWatch?.disconnect();
      this.#focusWatch = undefined;
      const active = document.activeElement;
      if (!active || active === document.body) focusComposer(this);
    };
    this.#focusWatch = new MutationObserver(check);
    this.#focusWatch.observe(scroller, { childList: true, subtree: true });
  }

  #focusWatch: MutationObserver | undefined;

  /** Pixels between the view's bottom edge and the end of the content; null while the region is not laid out. */
  #gapBelow(): number | null {
    const el = this.#scroller;
    if (!el || el.clientHeight === 0) return null;
    return el.scrollHeight - el.clientHeight - el.scrollTop;
  }

  /** Follows the newest message again; the render that the new anchor object causes hands the layout its pin. */
  #pinToBottom(): void {
    this.#setAnchor({ mode: 'bottom' });
    this.unseenBelow = 0;
  }

  /**
   * While the layout holds the bottom, its "unpinned" tells the user's scrolls from its own
   * corrections (which pass through positions short of the end on their way). Once it holds
   * nothing, the scroll events themselves say where the user went.
   */
  #handleScroll(): void {
    const el = this.#scroller;
    if (!el || this.#focusHold !== null || (this.anchor.mode === 'bottom' && !this.#pinDropped)) return;
    // Read before the virtualizer's own scroll handling changes anything: no forced layout.
    const gap = this.#gapBelow();
    if (gap === null) return;
    const movedUp = el.scrollTop < this.#lastScrollTop - 0.5;
    const movedDown = el.scrollTop > this.#lastScrollTop + 0.5;
    this.#lastScrollTop = el.scrollTop;
    if (this.anchor.mode !== 'bottom') {
      if (gap <= AT_BOTTOM_PX) this.#pinToBottom();
    } else if (this.#pinDropped) {
      // Back down on the end. A scroll event that moved nothing (the layout's last correction,
      // reported after the user's intent let the pin go) leaves the user's scroll to come.
      if (gap <= 1 && movedDown) this.#pinToBottom();
      else if (movedUp && gap > AT_BOTTOM_PX) this.#setAnchor({ mode: 'free' });
    }
  }

  /**
   * The user is about to scroll the list up: wheel, touch, keys and the scrollbar come before
   * the scroll. While following, a layout pass still under way for a row that has just arrived
   * would put the view back on the end before any scroll event reports the move (the virtualizer
   * takes a scroll within two frames of its own correction for its own), so the pin is let go
   * now; the scroll events then say where the user went, as after a nudge (#handleScroll).
   * A control taking focus is left alone: a keyboard user tabbing back through the messages
   * still sees the next one arrive at the end.
   */
  #handleScrollIntent(e: Event): void {
    const el = this.#scroller;
    if (!el || this.anchor.mode !== 'bottom' || this.#pinDropped) return;
    const target = e.composedPath()[0] as Element;
    let up: boolean;
    switch (e.type) {
      case 'wheel':
        up = (e as WheelEvent).deltaY < 0 && !(e as WheelEvent).ctrlKey;
        break;
      case 'keydown':
        up = UP_KEYS.includes((e as KeyboardEvent).key) && !target.matches?.('input, textarea, select');
        break;
      case 'pointerdown':
        up = target === el; // its scrollbar: on the end, it only goes up
        break;
      default: {
        const y = (e as TouchEvent).touches[0]?.clientY ?? 0;
        up = e.type === 'touchmove' && y > this.#touchY + 1;
        this.#touchY = y;
      }
    }
    if (!up) return;
    this.#pinDropped = this.#release = this.#immediate = true;
    this.#lastScrollTop = el.scrollTop;
    this.requestUpdate();
  }

  /**
   * Home and End on the list itself or on a row's content (a link, a button, text), which the
   * browser would answer with a smooth scroll of the list. On its way rows render for the first
   * time, their measured heights differ from the layout's estimates and the virtualizer corrects
   * the scroll position, which ends the browser's scroll short of the top (or the end). The
   * list takes the keys instead and pins the row itself, which holds through those corrections:
   * Home the first row's start (letting the bottom go, as any scroll up does; at the top, older
   * history pages in as usual, the first row held where it is), End the end of the last row
   * (following again). The pin moves the view at once: no smooth scroll, with or without
   * reduced motion. Other keys (arrows, PageUp/PageDown) stay the browser's.
   */
  #handleKeydown(e: KeyboardEvent): void {
    if (e.key === 'Tab') return this.#handleTab(e);
    const home = e.key === 'Home';
    const target = e.composedPath()[0] as HTMLElement | undefined;
    const listKey =
      (home || e.key === 'End') &&
      !e.defaultPrevented &&
      !e.altKey &&
      !e.metaKey &&
      !e.shiftKey &&
      !target?.isContentEditable &&
      !target?.closest?.(OWN_HOME_END);
    if (!listKey || !this.#items.length || !this.#scroller) {
      this.#handleScrollIntent(e);
      return;
    }
    e.preventDefault();
    if (home) {
      this.#pinDropped = this.#release = false;
      this.#setAnchor({ mode: 'item', key: String(this.#items[0]!.id) });
    } else this.#pinToBottom();
  }

  /** The rows drawn now (the virtualizer's, near the view), with their index, in the list's order. */
  #drawnRows(): { index: number; row: HTMLElement }[] {
    const rows: { index: number; row: HTMLElement }[] = [];
    for (const child of this.#scroller?.children ?? []) {
      const key = (child as HTMLElement).dataset['key'];
      const index = key === undefined ? -1 : findIndexFromEnd(this.#items, key);
      if (index >= 0) rows.push({ index, row: child as HTMLElement });
    }
    return rows.sort((a, b) => a.index - b.index);
  }

  /**
   * Tab and Shift+Tab through the rows. Only the rows near the view are in the page, so from the
   * last control drawn the browser's Tab would leave the list (the newest message's answers, a
   * contact card's links, unreachable while the view is up in the history), and Shift+Tab from
   * the first would skip the older rows above it (WCAG 2.1.1, 2.4.3). There, the list looks
   * further itself: it shows the next rows and focuses their first control (the previous rows
   * and their last control), and goes where the browser would have gone once there are none.
   */
  #handleTab(e: KeyboardEvent): void {
    const scroller = this.#scroller;
    if (!scroller || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const back = e.shiftKey;
    const drawn = this.#drawnRows();
    if (!drawn.length) return;
    const stops = tabStops(scroller);
    const active = deepActiveElement(this.shadowRoot!);
    let at = active ? stops.indexOf(active as HTMLElement) : -1;
    if (active === scroller) {
      // The region itself comes before its rows: Shift+Tab leaves the list.
      if (back) return;
      at = -1;
    } else if (at < 0) return;
    const next = back ? at - 1 : at + 1;
    if (next >= 0 && next < stops.length) return; // the browser's Tab reaches it
    const edge = back ? drawn[0]!.index - 1 : drawn[drawn.length - 1]!.index + 1;
    if (edge < 0 || edge >= this.#items.length) return; // nothing beyond the rows drawn
    e.preventDefault();
    void this.#seekControl(edge, back);
  }

  /** Focus came into the list from what follows it (the page's order), not from a row or the list. */
  #enteredFromAfter(el: HTMLElement, from: EventTarget | null): boolean {
    if (!(from instanceof Node) || from === el || el.contains(from)) return false;
    // Retargeted: an element of this shadow root (the jump button), or one of the tree around the list.
    const mine = from.getRootNode() === this.shadowRoot;
    return !!((mine ? el : this).compareDocumentPosition(from) & Node.DOCUMENT_POSITION_FOLLOWING);
  }

  /**
   * When Shift+Tab was last pressed, anywhere in the page: focus coming into the list from what
   * follows it is that key's doing only then (a click or a tap in the list is not).
   */
  #shiftTabAt = 0;
  readonly #onKey = (e: KeyboardEvent) => {
    if (e.key === 'Tab' && e.shiftKey) this.#shiftTabAt = performance.now();
  };

  /** Which Tab's look for a control is the latest: an earlier one still under way gives up. */
  #seek = 0;

  /**
   * Shows the rows from `index` on (or back from it) a view at a time, until one has a control:
   * its first (or last) takes focus. None: focus goes where Tab would have gone past the list.
   */
  async #seekControl(index: number, back: boolean, fromEnd = false): Promise<void> {
    const seek = ++this.#seek;
    for (let view = 0; view < TAB_SEEK_VIEWS; view++) {
      const item = this.#items[index];
      if (!item) break;
      const key = String(item.id);
      this.#pinDropped = this.#release = false;
      if (fromEnd && view === 0) this.#pinToBottom();
      else this.#setAnchor({ mode: 'item', key });
      await this.updateComplete;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      if (seek !== this.#seek || !this.isConnected) return;
      index = findIndexFromEnd(this.#items, key);
      const drawn = this.#drawnRows();
      if (index < 0 || !drawn.length) break;
      const rows = drawn.filter((r) => (back ? r.index <= index : r.index >= index));
      const found = (back ? [...rows].reverse() : rows)
        .map((r) => ({ r, stops: tabStops(r.row) }))
        .find((x) => x.stops.length > 0);
      if (found) {
        // Its row in view first (going back, the row found may be above the view), then focus.
        const key = found.r.row.dataset['key']!;
        this.#setAnchor({ mode: 'item', key });
        await this.updateComplete;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        if (seek !== this.#seek || !this.isConnected) return;
        const row = this.#drawnRows().find((r) => r.row.dataset['key'] === key)?.row ?? found.r.row;
        const stops = tabStops(row);
        return (back ? stops[stops.length - 1] : stops[0])?.focus();
      }
      index = back ? drawn[0]!.index - 1 : drawn[drawn.length - 1]!.index + 1;
      if (index < 0 || index >= this.#items.length) break;
    }
    if (back) this.#scroller?.focus();
    else focusComposer(this, true);
  }

  /**
   * A control in a row takes focus (Tab, Shift+Tab, a script) while the view follows the end and
   * the control is out of view, or the browser has just scrolled it into view, away from the end:
   * the view must stay there. Still following, the list's next render would hand the layout its pin on the end again
   * and take the focused control out of sight (WCAG 2.4.11: in a tall last row on a short screen
   * the focused option stayed 150 px above the view). A control in view (a chip of the latest
   * message, a link in the last row) leaves the view following.
   */
  #handleFocusIn(e: FocusEvent): void {
    const el = this.#scroller;
    const target = e.composedPath()[0];
    if (el && performance.now() - this.#shiftTabAt < 500 && this.#enteredFromAfter(el, e.relatedTarget)) {
      // Shift+Tab from the composer (or the "new messages" button): the browser took the last
      // control drawn, in the history the view is up in. The newest rows come first; and with
      // no control in the rows drawn (focus on the list itself), the rows before them.
      this.#shiftTabAt = 0;
      const drawn = this.#drawnRows();
      const last = this.#items.length - 1;
      if (drawn.length && drawn[drawn.length - 1]!.index < last) {
        void this.#seekControl(last, true, true);
        return;
      }
      if (target === el && drawn.length && drawn[0]!.index > 0) {
        void this.#seekControl(drawn[0]!.index - 1, true);
        return;
      }
    }
    if (this.anchor.mode !== 'bottom' || !el || !(target instanceof Element) || target === el) return;
    const r = target.getBoundingClientRect();
    const v = el.getBoundingClientRect();
    // Chromium scrolls it into view before it tells of the focus: the view is then short of the end.
    const gap = this.#gapBelow();
    if (r.top < v.top - 1 || r.bottom > v.bottom + 1 || (gap !== null && gap > AT_BOTTOM_PX)) {
      // The layout, still pinned, may put the view back on the end before the render that lets
      // its pin go: the view the browser chose is held, and given back once that render is done.
      this.#focusHold = el.scrollTop;
      this.#setAnchor({ mode: 'free' });
      requestAnimationFrame(() => requestAnimationFrame(() => this.#restoreFocusView()));
    }
  }

  /** The scroll position the browser chose for a control taking focus, held until #restoreFocusView. */
  #focusHold: number | null = null;

  #restoreFocusView(): void {
    const hold = this.#focusHold;
    this.#focusHold = null;
    const el = this.#scroller;
    const focused = this.#focusInRow();
    if (hold === null || !el || !focused) return;
    const r = focused.deep.getBoundingClientRect();
    const v = el.getBoundingClientRect();
    if (r.bottom <= v.top || r.top >= v.bottom) el.scrollTop = hold;
    this.#lastScrollTop = el.scrollTop;
  }

  /** The layout dropped its pin: a scroll it did not make, the user's or the browser's. */
  #handleUnpinned(): void {
    const gap = this.#gapBelow();
    if (this.anchor.mode === 'bottom' && gap !== null && gap <= AT_BOTTOM_PX) {
      // Still on the end (the browser clamped the view as the content shrank): the pin comes
      // back now. Nudged within reach of it: still following, and the pin comes back with the
      // next render or on the end, so a slow drag upwards is not pulled down after every step.
      if (gap <= 1) this.#pinToBottom();
      else this.#pinDropped = true;
      this.#lastScrollTop = this.#scroller?.scrollTop ?? 0;
      return;
    }
    // The user scrolled away (or, without layout, nothing tells otherwise): stop holding the view.
    if (this.anchor.mode !== 'free') this.#setAnchor({ mode: 'free' });
  }

  /**
   * The virtualizer reports the visible range after its own layout, so the list reacts to
   * scrolling here without reading geometry (which would force a layout on every scroll);
   * only the last row coming into view while not following asks how far the end is.
   */
  #handleVisibilityChanged(event: Event): void {
    const e = event as Event & { first: number; last: number };
    this.#visible = { first: e.first, last: e.last };
    // The content shrank or the user came back down: the end is in reach again.
    if (this.anchor.mode !== 'bottom' && this.#focusHold === null && e.last >= this.#items.length - 1) {
      const gap = this.#gapBelow();
      if (gap === null || gap <= AT_BOTTOM_PX) this.#pinToBottom();
    }
    if (e.first <= TOP_ROWS) this.#maybeLoadOlder();
    this.#markVisibleSeen();
  }

  #maybeLoadOlder(): void {
    const history = this.#stores.get('$currentHistory');
    const actions = this.context?.actions;
    if (!actions || !history || history.loading || !history.hasMore) return;
    // Hold the first fully visible row where it is while older rows are put above it. At the
    // bottom (a short room, a new conversation) the bottom pin holds the view already, and a
    // held row would keep the newest messages below it behind the button. A row held already
    // (Home's first row, the last page's) starts the view: it stays held. Its pin may not have
    // moved the rows yet (the range is reported before they are placed), so the DOM is not asked.
    if (this.anchor.mode === 'free') {
      const key = this.#firstVisibleKey();
      if (key) this.#setAnchor({ mode: 'item', key });
    }
    actions.loadOlder().catch(() => undefined);
  }

  #firstVisibleKey(): string | undefined {
    const el = this.#scroller;
    if (!el || el.scrollHeight <= el.clientHeight) return undefined;
    const top = el.getBoundingClientRect().top;
    let best: { key: string; top: number } | undefined;
    for (const child of el.children) {
      const key = (child as HTMLElement).dataset['key'];
      if (!key) continue;
      const y = child.getBoundingClientRect().top;
      if (y >= top - 1 && (!best || y < best.top)) best = { key, top: y };
    }
    return best?.key;
  }

  /** Incoming messages on screen while the panel is open are reported seen, once each. */
  #markVisibleSeen(): void {
    const actions = this.context?.actions;
    const roomId = this.#roomId;
    if (!actions || !roomId || !this.#stores.get('$ui')?.open || this.#visible.first < 0) return;
    if (typeof document !== 'undefined' && document.visibilityState === 'hidden') return;
    const ids: string[] = [];
    for (let i = this.#visible.first; i <= this.#visible.last; i++) {
      const m = this.#items[i];
      if (!m || isOwn(m, this.#userId)) continue;
      const id = String(m.id);
      if (this.#seenIds.has(id)) continue;
      this.#seenIds.add(id);
      if (m.status !== 'DELIVERED_USER') ids.push(id);
    }
    if (ids.length) actions.markSeen(roomId, ids);
  }

  #handleJumpClick(event: Event): void {
    // The bottom pin takes the view down (an element's scrollIntoView would scroll the host page too).
    this.#pinToBottom();
    // The button goes away at the bottom: focus stays in the list.
    if ((event.currentTarget as Element).matches(':focus')) this.#scroller?.focus();
  }

  /**
   * The layout named outright (a flow layout): left to the virtualizer it is a dynamic import,
   * which an app's bundler may split into a chunk fetched on the first open of a room. Each
   * render hands it the anchor's pin again, or none (none while the user's scroll is on its way).
   */
  #layout() {
    const extra = this.#layoutExtra;
    // Handed over once: a later render without arrivals leaves the layout's own list alone.
    const arrivals = this.#arrivals;
    this.#arrivals = [];
    if (this.#release) {
      this.#release = false;
      return chatLayout(null, extra);
    }
    this.#pinDropped = false;
    if (this.anchor.mode === 'bottom' && this.#items.length) {
      const end = { index: this.#items.length - 1, block: 'end' } as const;
      return chatLayout(end, arrivals.length ? { ...extra, _arrivals: arrivals } : extra);
    }
    if (this.anchor.mode === 'item') {
      const index = findIndexFromEnd(this.#items, this.anchor.key);
      if (index >= 0) return chatLayout({ index, block: 'start' }, extra);
    }
    return chatLayout(null, extra);
  }

  #renderItem(
    m: Message,
    index: number,
    language: string,
    disabled: boolean,
    lastIndex: number,
    t: Translate,
  ): TemplateResult {
    const row = rowInfo(this.#items, index, this.#userId, this.#naming);
    return html`<charla-message
      data-key=${String(m.id)}
      .message=${m}
      .actions=${this.context?.actions}
      language=${language}
      .dayLabel=${row.newDay ? formatDay(messageDate(m), language, t) : ''}
      .senderLabel=${row.own ? '' : senderName(m, this.#senders)}
      ?own=${row.own}
      ?grouped=${row.grouped}
      ?show-sender=${row.showSender}
      .latest=${index === lastIndex}
      ?disabled=${disabled}
      .answer=${answerOf(this.#items, index)}
    ></charla-message>`;
  }

  override render(): unknown {
    const language = this.#stores.get('$language') ?? 'es';
    const t = translator(language);
    const history = this.#stores.get('$currentHistory');
    const disabled = this.#stores.get('$ui')?.inputsDisabled ?? false;
    const lastIndex = this.#items.length - 1;
    return html`
      ${
        history?.loading
          ? html`<div class="older" role="status">
              <span class="spinner" aria-hidden="true"></span
              >${t(this.#items.length ? 'loadingOlder' : 'loadingMessages')}
            </div>`
          : history?.error && history.hasMore
            ? html`<div class="older older--failed" role="alert">
                ${t(this.#items.length ? 'olderFailed' : 'messagesFailed')}
                <button type="button" part="retry-older-button" @click=${this.#handleOlderRetry}>
                  ${t('retry')}
                </button>
              </div>`
            : nothing
      }
      <div
        class="scroller"
        part="message-list"
        role="region"
        aria-label=${t('messages')}
        tabindex="0"
        .scrollTo=${listScrollTo}
        @scroll=${this.#handleScroll}
        @wheel=${this.#intent}
        @touchstart=${this.#intent}
        @touchmove=${this.#intent}
        @keydown=${this.#handleKeydown}
        @pointerdown=${this.#intent}
        @unpinned=${this.#handleUnpinned}
        @focusin=${this.#handleFocusIn}
        @visibilityChanged=${this.#handleVisibilityChanged}
      >
        ${virtualize({
          items: this.#items as Message[],
          // The virtualizer may still ask for indices of a longer, older list for a
          // moment after the list shrinks (a room switch): such an item is undefined.
          keyFunction: (m: Message | undefined, index: number) => (m ? String(m.id) : `gone:${index}`),
          renderItem: (m: Message | undefined, index: number) =>
            m ? this.#renderItem(m, index, language, disabled, lastIndex, t) : html``,
          scroller: true,
          layout: this.#layout(),
        })}
      </div>
      ${
        this.anchor.mode !== 'bottom' && this.unseenBelow > 0
          ? html`<button
              type="button"
              class="jump"
              part="new-messages-button"
              @click=${this.#handleJumpClick}
            >
              ${icons.arrowDown()}<span>${t('newMessages')} (${this.unseenBelow})</span>
            </button>`
          : nothing
      }
      <div class="visually-hidden" role="log" aria-live="polite" aria-relevant="additions">
        ${repeat(
          this.announcements,
          (a) => a.id,
          (a) => html`<p>${a.text}</p>`,
        )}
      </div>
    `;
  }
}

/**
 * The list's own scrollTo, which the virtualizer takes from its node and scrolls with: a page's
 * Element scrollTo (Prototype.js scrolls the window to the element, MooTools takes (x, y) only) jumped
 * the page to the chat and left the list at its top. The scrollTop setter is the browser's.
 */
function listScrollTo(this: HTMLElement, a?: ScrollToOptions | number, b?: number): void {
  const to = typeof a === 'object' && a ? a : { left: a, top: b };
  if (Number.isFinite(to.top)) this.scrollTop = to.top!;
  if (Number.isFinite(to.left)) this.scrollLeft = to.left!;
}

function findIndexFromEnd(messages: readonly Message[], key: string): number {
  for (let i = messages.length - 1; i >= 0; i--) if (String(messages[i]!.id) === key) return i;
  return -1;
}

declare global {
  interface HTMLElementTagNameMap {
    'charla-message-list': CharlaMessageList;
  }
}
