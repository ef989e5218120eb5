/**
 * Unsent text, by widget and room. The panel's view (and the composer with it) goes when the
 * panel closes: the text typed comes back when it opens again, and stays with its room when
 * another room is opened. Kept per widget (its context), gone with it.
 */
import type { WidgetContext } from '../widget/context.ts';

const byWidget = new WeakMap<WidgetContext, Map<string, string>>();

export class Drafts {
  /** The room whose draft the composer holds ('' before the session names one). */
  #room: string | undefined;
  #context: WidgetContext | undefined;

  get #map(): Map<string, string> | undefined {
    const c = this.#context;
    if (!c) return undefined;
    let map = byWidget.get(c);
    if (!map) byWidget.set(c, (map = new Map()));
    return map;
  }

  /**
   * The text to show for `room` of `context`, or undefined when neither changed since the last
   * call (the composer keeps what it has). Text typed before the session named the room (no
   * room yet) becomes that room's.
   */
  switchTo(context: WidgetContext | undefined, room: string): string | undefined {
    if (context === this.#context && room === this.#room) return undefined;
    this.#context = context;
    const map = this.#map;
    const early = map?.get('');
    if (room && early) {
      map?.delete('');
      if (!map?.has(room)) map?.set(room, early);
    }
    this.#room = room;
    return map?.get(room) ?? '';
  }

  /** Keeps `text` as the current room's draft ('' forgets it). */
  keep(text: string): void {
    if (text) this.#map?.set(this.#room ?? '', text);
    else this.#map?.delete(this.#room ?? '');
  }
}
