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
    refresh(original).then(
      (next) => {
        const safe = safeUrl(next);
        if (safe && safe !== this.src(original)) {
          this.#fresh.set(original, safe);
          this.host.requestUpdate();
        } else {
          this.#markBroken(original);
        }
      },
      () => this.#markBroken(original),
    );
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
    const src = this.src(original);
    const refresh = this.refresh();
    if (!original || !src || !refresh || !isExpiredSignedUrl(src) || this.#broken.has(original)) return;
    event.preventDefault();
    refresh(original).then(
      async (next) => {
        const safe = safeUrl(next);
        if (!safe || safe === src) return this.#markBroken(original);
        this.#fresh.set(original, safe);
        this.host.requestUpdate();
        await this.host.updateComplete;
        if (!(link instanceof HTMLElement) || !link.isConnected) return;
        this.#passing = link;
        link.click();
        this.#passing = null;
      },
      () => this.#markBroken(original),
    );
  }

  /**
   * Bind to a media link's `pointerenter` and `focus`: an expired address is signed again before
   * the click, so the click itself goes at once (a browser may block a new tab opened after a wait).
   */
  prepare(original: string | undefined): void {
    const src = this.src(original);
    const refresh = this.refresh();
    if (!original || !src || !refresh || !isExpiredSignedUrl(src) || this.#broken.has(original)) return;
    if (this.#preparing.has(original)) return;
    this.#preparing.add(original);
    refresh(original)
      .then((next) => {
        const safe = safeUrl(next);
        // Not signed again: the click will ask once more, and say so if it is still refused.
        if (!safe || safe === src) return;
        this.#fresh.set(original, safe);
        this.host.requestUpdate();
      })
      .catch(() => undefined)
      .finally(() => this.#preparing.delete(original));
  }

  readonly #preparing = new Set<string>();

  #markBroken(original: string): void {
    this.#broken.add(original);
    this.host.requestUpdate();
  }

  hostConnected(): void {}
}
