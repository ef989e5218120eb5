/**
 * The widget's panel covers the viewport at 480 px wide and narrower (widget.styles.ts): it is
 * then modal, and Tab goes round inside it. Re-renders its host when the viewport crosses that
 * width.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { deepActiveElement, tabStops } from '../components/shared/focus.ts';

export class FullScreenController implements ReactiveController {
  readonly #query = typeof matchMedia === 'function' ? matchMedia('(max-width: 480px)') : null;
  readonly #changed = (): void => this.host.requestUpdate();

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {
    this.#query?.addEventListener('change', this.#changed);
  }

  hostDisconnected(): void {
    this.#query?.removeEventListener('change', this.#changed);
  }

  /** The panel, when open, covers the viewport. */
  get active(): boolean {
    return !!this.#query?.matches;
  }

  /**
   * Full screen the page is hidden behind the panel: Tab from its last control goes to its first
   * (Shift+Tab from the first, to the last) instead of to the page's links, which would take
   * focus out of sight (WCAG 2.4.11, 2.4.7). `root`: the shadow root holding the panel.
   */
  tabAround(event: KeyboardEvent, panel: HTMLElement | null, root: ShadowRoot): void {
    if (!this.active || !panel || panel.hidden) return;
    const stops = tabStops(panel);
    const edge = event.shiftKey ? stops[0] : stops[stops.length - 1];
    if (!edge || deepActiveElement(root) !== edge) return;
    event.preventDefault();
    (event.shiftKey ? stops[stops.length - 1] : stops[0])!.focus();
  }
}
