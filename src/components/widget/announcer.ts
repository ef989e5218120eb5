import { html, type ReactiveController, type ReactiveControllerHost } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { Message } from '../../../types/index.ts';
import { translator } from '../../i18n/index.ts';
import type { WidgetContext } from '../../widget/context.ts';
import { isOwn } from '../message-list/items.ts';
import { senderLabels, senderName } from '../shared/format.ts';

/** Messages that arrive within this time of the first are announced together ("3 mensajes nuevos"). */
const GATHER_MS = 1000;

/**
 * The widget's own polite live region, for messages from others that arrive where the user is
 * not looking: the panel closed, or the home menu, the room contacts or another room showing.
 * The open room's message list announces its own messages (its log region), so those are left
 * out; so are the user's own messages and history (the core dispatches `charla-message` on the
 * widget's element for live and gap-filled messages only).
 */
export class Announcer implements ReactiveController {
  #news: Message[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The latest announcement; its number makes a repeated text a new one. */
  #said = { n: 0, text: '' };

  constructor(private readonly host: ReactiveControllerHost & HTMLElement & { context?: WidgetContext }) {
    host.addController(this);
    host.addEventListener('charla-message', (e) => this.#arrived(e.detail.message));
  }

  hostDisconnected(): void {
    clearTimeout(this.#timer);
    this.#news = [];
  }

  #arrived(m: Message): void {
    const stores = this.host.context?.stores;
    if (!stores || isOwn(m, stores.$user.get()?.id)) return;
    const ui = stores.$ui.get();
    if (ui.open && ui.view === 'chat' && m.roomId === stores.$currentRoomId.get()) return;
    // A room the user cannot open from this widget (another bot's, on a `normal` widget): no news here.
    const rooms = stores.$reachableRooms.get();
    if (rooms !== 'all' && !rooms.has(m.roomId)) return;
    if (this.#news.push(m) === 1) this.#timer = setTimeout(() => this.#announce(), GATHER_MS);
  }

  #announce(): void {
    const news = this.#news.splice(0);
    const stores = this.host.context?.stores;
    if (!news[0] || !stores) return;
    const t = translator(stores.$language.get());
    const m = news[0];
    const room = stores.$rooms.get().find((r) => r.id === m.roomId);
    const name = senderName(m, senderLabels(room, t));
    const text =
      news.length > 1 ? t('announceMessages', { count: news.length }) : t('announceMessageFrom', { name });
    this.#said = { n: this.#said.n + 1, text };
    this.host.requestUpdate();
  }

  /** Where the region was last rendered (see render). */
  #inside: boolean | undefined;

  /**
   * The region, rendered from the start: one made together with its text is often not read.
   * `inside`: in the panel, when the panel is modal (full screen), whose aria-modal hides what is
   * outside it from assistive technology; outside it otherwise (a closed panel is hidden). A
   * region made anew in its other place starts empty: what it said before is not said again.
   */
  render(inside = false): unknown {
    if (inside !== this.#inside) {
      if (this.#inside !== undefined) this.#said = { n: this.#said.n + 1, text: '' };
      this.#inside = inside;
    }
    return html`<div class="visually-hidden" role="status">
      ${repeat(
        [this.#said],
        (s) => s.n,
        (s) => html`<p>${s.text}</p>`,
      )}
    </div>`;
  }
}
