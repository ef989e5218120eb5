/**
 * The widget's panel covers the viewport when FULL_SCREEN matches (widget.styles.ts uses the same
 * query): it is then modal, and Tab goes round inside it. Re-renders its host when the viewport
 * crosses into or out of it.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { deepActiveElement, tabStops } from '../components/shared/focus.ts';

/**
 * When the panel covers the viewport: 480 px wide or narrower (a phone upright), or 480 px tall or
 * shorter (a phone on its side: 320 to 430 px; with its keyboard up, 200 or less). The floating
 * panel stands 92 px above the bottom edge and is at most the viewport less 100 px: at 480 px tall
 * it is 380 px, with about 260 px of list between header and composer; at 320 it was 220 px with a
 * 103 px list, over a strip of page nobody could use. Laptop and desktop windows are taller, and
 * keep the floating panel.
 */
export const FULL_SCREEN = '(max-width: 480px), (max-height: 480px)';

export class FullScreenController implements ReactiveController {
  readonly #query = typeof matchMedia === 'function' ? matchMedia(FULL_SCREEN) : null;
  readonly #changed = (): void => this.host.requestUpdate();
  readonly #viewport = typeof visualViewport === 'object' ? visualViewport : null;
  /**
   * The part of the page on screen (the visual viewport) for the full-screen panel's CSS
   * (--_vvt, --_vvh): a phone's on-screen keyboard shrinks it, not the layout viewport the panel's
   * 100% is, so the header went off the top or the composer under the keyboard. A pinch zoom
   * shrinks it too, and is not followed: the panel is the layout viewport's then.
   */
  readonly #fit = (): void => {
    // Only the full-screen CSS reads them: a floating panel's updates and scrolls skip the work.
    if (!this.active) return;
    const v = this.#viewport!;
    const style = this.host.shadowRoot?.querySelector<HTMLElement>('[part=panel]')?.style;
    if (!style) return;
    const zoomed = !(Math.abs(v.scale - 1) <= 0.01);
    for (const [name, value] of [
      ['--_vvt', v.offsetTop],
      ['--_vvh', v.height],
    ] as const) {
      if (zoomed) style.removeProperty(name);
      else style.setProperty(name, `${value}px`);
    }
  };

  constructor(private readonly host: ReactiveControllerHost & HTMLElement) {
    host.addController(this);
  }

  hostConnected(): void {
    this.#query?.addEventListener('change', this.#changed);
    this.#viewport?.addEventListener('resize', this.#fit);
    this.#viewport?.addEventListener('scroll', this.#fit);
    if (this.#viewport) this.#fit();
  }

  hostUpdated(): void {
    if (this.#viewport) this.#fit();
  }

  hostDisconnected(): void {
    this.#query?.removeEventListener('change', this.#changed);
    this.#viewport?.removeEventListener('resize', this.#fit);
    this.#viewport?.removeEventListener('scroll', this.#fit);
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
