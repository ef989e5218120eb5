/**
 * Signed media addresses expire. When an <img>, <audio> or <video> fails to
 * load, this controller asks the widget for a fresh address once and swaps it
 * in; a second failure leaves the media marked unavailable. A link has no
 * error event: a document's download link whose address has expired is
 * followed with a fresh one ({@link MediaRefreshController.follow}).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { safeUrl } from '../components/shared/safe-url.ts';
import { isExpiredSignedUrl } from '../util/url.ts';

type Refresh = (url: string) => Promise<string>;

export class MediaRefreshController implements ReactiveController {
  readonly #fresh = new Map<string, string>();
  readonly #tried = new Set<string>();
  readonly #broken = new Set<string>();

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly refresh: () => Refresh | undefined,
  ) {
    host.addController(this);
  }

  /** The address to use for a message's media (a refreshed one when there is), or null when unsafe. */
  src(original: string | undefined): string | null {
    if (!original) return null;
    return safeUrl(this.#fresh.get(original) ?? original);
  }

  /** True once the media failed even after a refresh (or could not be refreshed). */
  failed(original: string | undefined): boolean {
    return !!original && this.#broken.has(original);
  }

  /**
   * Bind to the media element's `error` event. A player that was playing when its address expired
   * (a seek or the next range refused) goes on from where it was once the fresh address loads.
   */
  handleError(original: string | undefined, element?: EventTarget | null): void {
    if (!original) return;
    const player = element instanceof HTMLMediaElement && !element.paused ? element : null;
    if (player && !this.#tried.has(original)) {
      const at = player.currentTime;
      player.addEventListener(
        'loadedmetadata',
        () => {
          if (at > 0) player.currentTime = at;
          // The press that started it is the page's activation: playing on is allowed.
          player.play().catch(() => undefined);
        },
        { once: true },
      );
    }
    if (this.#tried.has(original)) {
      this.#markBroken(original);
      return;
    }
    this.#tried.add(original);
    const refresh = this.refresh();
    if (!refresh) {
      this.#markBroken(original);
      return;
    }
    void this.#resign(original, refresh).then((signed) => signed || this.#markBroken(original));
  }

  /**
   * Asks for a fresh address and swaps it in; false when none came (refused, the same address, or
   * not a safe one). Several asks for one address at once share the core's one request.
   */
  async #resign(original: string, refresh: Refresh): Promise<boolean> {
    const current = this.src(original);
    const safe = safeUrl(await refresh(original).catch(() => null));
    if (!safe || safe === current) return false;
    this.#fresh.set(original, safe);
    this.host.requestUpdate();
    return true;
  }

  /** The refresh for a link's expired address, or undefined when it needs none (or cannot have one). */
  #expired(original: string | undefined): Refresh | undefined {
    const src = this.src(original);
    if (!original || !src || !isExpiredSignedUrl(src) || this.#broken.has(original)) return undefined;
    return this.refresh();
  }

  /** The link this controller clicks again itself, with a fresh address: that click is followed. */
  #passing: EventTarget | null = null;

  /**
   * Bind to a media link's `click`: when the address it would open has expired (an hour after it
   * was signed: a page left open, a conversation read again the next day), the click waits for a
   * fresh address and is made again on the same link, now pointing at it. The fresh address is
   * followed whatever the visitor's clock says of it (a clock an hour ahead finds every address
   * expired; the service judges by its own). One the service would not sign again is marked
   * unavailable, as a player's is.
   */
  follow(event: Event, original: string | undefined): void {
    const link = event.currentTarget;
    if (link !== null && link === this.#passing) {
      this.#passing = null;
      return;
    }
    const refresh = this.#expired(original);
    if (!original || !refresh) return;
    event.preventDefault();
    void this.#resign(original, refresh).then(async (signed) => {
      if (!signed) return this.#markBroken(original);
      await this.host.updateComplete;
      if (!(link instanceof HTMLElement) || !link.isConnected) return;
      this.#passing = link;
      link.click();
      this.#passing = null;
    });
  }

  /**
   * Bind to a media link's `pointerenter` and `focus`: an expired address is signed again before
   * the click, so the click itself goes at once (a browser may block a new tab opened after a wait).
   * Not signed again, it is left as it is: the click asks once more, and says so if still refused.
   */
  prepare(original: string | undefined): void {
    const refresh = this.#expired(original);
    if (original && refresh) void this.#resign(original, refresh);
  }

  #markBroken(original: string): void {
    this.#broken.add(original);
    this.host.requestUpdate();
  }

  hostConnected(): void {}
}
