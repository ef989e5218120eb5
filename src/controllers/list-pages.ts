/**
 * Long lists of a view (rooms, contacts, room contacts) shown a page at a time: a page of
 * entries, then a "show more" button that adds the next page when chosen or when it scrolls
 * into view. A host's list of 5,000 contacts rendered whole took the panel 2.5 s to open
 * (125,000 elements); a page keeps every view's cost that of its first entries, and a search
 * field (see contact-search) finds the others.
 *
 * The button is marked `data-more="<list>"` (see `moreButton`), and `data-auto` when scrolling
 * to it shows the next page (the last list of a view: the rooms above the contacts do not, or
 * the contacts would be reached only past every room); its list's entries are the
 * `[data-entry="<list>"]` elements. Choosing it with focus on it moves focus to the first
 * entry it added, so a keyboard user goes on through the list instead of past it.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** Entries a list shows at first, and adds each time. */
export const LIST_PAGE = 50;

/** A list of more contacts than this gets a search field. */
export const SEARCH_FROM = 10;

export class ListPagesController implements ReactiveController {
  readonly #shown = new Map<string, number>();
  #observer: IntersectionObserver | undefined;
  /** The buttons the observer watches. */
  #observed: HTMLElement[] = [];
  /** A page was added since they were last observed. */
  #paged = false;
  /** The list whose added entries take focus after the next update, and the first of them. */
  #focusNext: [list: string, at: number] | undefined;

  constructor(private readonly host: ReactiveControllerHost & HTMLElement) {
    host.addController(this);
  }

  /** How many entries of `list` show now. */
  limit(list: string): number {
    return this.#shown.get(list) ?? LIST_PAGE;
  }

  /** Back to the first page (a new search, the view shown again). */
  reset(list: string): void {
    if (!this.#shown.has(list)) return;
    this.#shown.delete(list);
    this.#paged = true;
    this.host.requestUpdate();
  }

  /** Shows the next page of `list`; focus follows when it was on the button. */
  more(list: string): void {
    const at = this.limit(list);
    const button = this.host.shadowRoot?.querySelector(`[data-more="${list}"]`);
    if (button && this.host.shadowRoot?.activeElement === button) this.#focusNext = [list, at];
    this.#shown.set(list, at + LIST_PAGE);
    this.#paged = true;
    this.host.requestUpdate();
  }

  hostUpdated(): void {
    const root = this.host.shadowRoot;
    if (!root) return;
    if (this.#focusNext) {
      const [list, at] = this.#focusNext;
      this.#focusNext = undefined;
      const entry = root.querySelectorAll<HTMLElement>(`[data-entry="${list}"]`)[at];
      entry?.focus();
    }
    // A button that scrolls into view shows the next page by itself, as a feed does. Observed
    // anew only when the buttons are others or a page was added (the host updates on every
    // store change it reads).
    if (typeof IntersectionObserver !== 'function') return;
    const buttons = [...root.querySelectorAll<HTMLElement>('[data-more][data-auto]')];
    const same = buttons.length === this.#observed.length && buttons.every((b, i) => b === this.#observed[i]);
    // After a page was added the button is watched afresh: its first report says whether it is
    // still in view (a quick scroll to the end may never have seen it leave).
    if (same && !this.#paged) return;
    this.#paged = false;
    this.#observer?.disconnect();
    this.#observed = buttons;
    if (buttons.length === 0) return;
    this.#observer ??= new IntersectionObserver((entries) => {
      for (const e of entries) {
        const list = (e.target as HTMLElement).dataset['more'];
        // Scrolled to, not Tabbed to: focus on it scrolls it into view too, and a page added
        // then would move a keyboard user on before they heard the button.
        if (e.isIntersecting && list && e.target.isConnected && root.activeElement !== e.target)
          this.more(list);
      }
    });
    for (const b of buttons) this.#observer.observe(b);
  }

  hostDisconnected(): void {
    this.#observer?.disconnect();
    this.#observed = [];
  }
}
