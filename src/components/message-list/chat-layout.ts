import { FlowLayout } from '@lit-labs/virtualizer/layouts/flow.js';

/** What the list pins (the shape of the virtualizer's PinOptions, whose module is not exported). */
export interface ChatPin {
  index: number;
  block: 'start' | 'end';
}

/** How far above the end of the content the view may be and still count as at the bottom, in pixels. */
export const AT_BOTTOM_PX = 32;

type Measurements = Parameters<FlowLayout['updateItemSizes']>[0];
type Size = FlowLayout['viewportSize'];
type ItemBox = Measurements[number];

/**
 * The CSS zoom in effect on an element (the page's `html { zoom }` and any zoom above it),
 * where the browser tells it (`currentCSSZoom`: Chromium 128+, Firefox 126+); 1 elsewhere.
 */
export function cssZoom(el: Element | null): number {
  const zoom = (el as (Element & { currentCSSZoom?: number }) | null)?.currentCSSZoom;
  return typeof zoom === 'number' && Number.isFinite(zoom) && zoom > 0 ? zoom : 1;
}

/**
 * The flow layout, except that a pin on the last row's end holds the view exactly at the
 * end of the content, and that someone else's row too tall for the view is shown from its
 * start when it arrives.
 *
 * FlowLayout works out a pin's scroll position before it places the rows of the pass, from
 * where the pinned row was in the previous pass and clamped to the previous scroll height;
 * then it puts the last row at the end of the new (estimated) extent. When the newest row
 * is new or has just changed height, the two disagree and the view stops short of the
 * bottom by up to a row, and nothing moves it again until something else reflows
 * (checked against @lit-labs/virtualizer 2.1; test/browser/message-list-follow.test.ts).
 * The end of the extent is known before the rows are placed, so the position is taken
 * from it instead, for the last row's start as for its end. Only protected members of the
 * layout are used.
 *
 * Under a CSS zoom on the host page (`html { zoom: 2 }`), the layout works in the list's own
 * pixels, those of scrollTop, scrollHeight and the rows' transforms. Since CSS zoom was
 * standardized (Chromium 128), getBoundingClientRect answers in the page's zoomed pixels
 * instead, and the virtualizer measures the rows and the view with it: at zoom 2 each row
 * counted twice its height and the view twice its own, so the rows were placed twice as far
 * apart as they are tall, below the view. The layout measures the rows itself (its
 * `measureChildren` function) and takes the view's size in the list's pixels, dividing both by
 * the list's zoom (checked against @lit-labs/virtualizer 2.1 and Chromium 150). The scroll
 * position the virtualizer reports is scrollTop, already in the list's pixels.
 */
export class ChatLayout extends FlowLayout {
  /** Others' messages that have just arrived while the view follows the end (set through the config). */
  _arrivals: readonly unknown[] = [];
  /** Told (once the view has moved) which arrival the view now starts at. */
  _onStart?: (item: unknown) => void;
  /** The list's CSS zoom, as of the last rows measured (1 until then: the first pass sees more of the view than there is, then the next one corrects it). */
  _zoom = 1;

  /**
   * A row's size in the list's pixels (the virtualizer's own measure, divided by the zoom).
   * Its parent is the list (the virtualizer's host and scroller). Rows have no margins of
   * their own, but the measure keeps them as the virtualizer's does.
   */
  readonly #measure = (element: Element): ItemBox => {
    const zoom = cssZoom(element.parentElement ?? element);
    this._zoom = zoom;
    const { width, height } = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    return {
      width: width / zoom,
      height: height / zoom,
      marginTop: parseFloat(style.marginTop) || 0,
      marginRight: parseFloat(style.marginRight) || 0,
      marginBottom: parseFloat(style.marginBottom) || 0,
      marginLeft: parseFloat(style.marginLeft) || 0,
    };
  };

  /**
   * The virtualizer takes a function here as the measure of each row (called with itself as
   * `this`, hence a bound one); FlowLayout's type only says `true`, hence the cast.
   */
  override get measureChildren(): boolean {
    return this.#measure as unknown as boolean;
  }

  override get viewportSize(): Size {
    return super.viewportSize;
  }

  /** The view's size, measured by the virtualizer in the page's (zoomed) pixels. */
  override set viewportSize(dims: Size) {
    const zoom = this._zoom;
    super.viewportSize = zoom === 1 ? dims : { width: dims.width / zoom, height: dims.height / zoom };
  }

  /**
   * Rows are measured as they first render, before the pass that places them: an arrival
   * taller than the view (by more than what still counts as the bottom) is pinned at its
   * start instead of the end. Only the first measurement after the arrivals are handed
   * over decides; a row that grows later (an image loading) keeps the end in view.
   */
  override updateItemSizes(sizes: Measurements): void {
    super.updateItemSizes(sizes);
    const arrivals = this._arrivals;
    if (!arrivals.length) return;
    this._arrivals = [];
    if (this._pin?.block !== 'end') return;
    for (const key of Object.keys(sizes)) {
      const index = Number(key);
      const item = this.items[index];
      if (sizes[index]!.height > this._viewDim1 + AT_BOTTOM_PX && arrivals.includes(item)) {
        this._pin = { index, block: 'start' };
        // After the pass this measurement starts: until then the DOM still shows the end.
        queueMicrotask(() => this._onStart?.(item));
        return;
      }
    }
  }

  protected override _setPositionFromPin(): void {
    const pin = this.pin;
    const last = this.items.length - 1;
    if (!pin || last < 0 || pin.index < last) {
      super._setPositionFromPin();
      return;
    }
    const before = this._scrollPosition;
    // The list is its own scroller: the layout's coordinates are the scroller's. Rows have no
    // margins (message.styles.ts pads them), so the last row ends where the extent does.
    const end = this._scrollSize;
    const size = this._getSize(last) ?? this._getAverageSize();
    this._scrollPosition = Math.max(0, pin.block === 'end' ? end - this._viewDim1 : end - size);
    this._scrollError = before - this._scrollPosition;
  }
}

/**
 * The layout's configuration for `virtualize()`. A configuration is assigned onto the layout,
 * so `pin: null` drops a pin it still holds; one without `pin` would leave that in place
 * (and `undefined` would break the layout's pin getter). The config type says `PinOptions`
 * only, hence the cast.
 */
export function chatLayout(pin: ChatPin | null, extra: Record<string, unknown> = {}) {
  return { ...extra, pin, type: ChatLayout } as unknown as { type: typeof ChatLayout; pin?: ChatPin };
}
