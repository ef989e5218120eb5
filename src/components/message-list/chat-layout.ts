import { FlowLayout } from '@lit-labs/virtualizer/layouts/flow.js';

/** What the list pins (the shape of the virtualizer's PinOptions, whose module is not exported). */
export interface ChatPin {
  index: number;
  block: 'start' | 'end';
}

/** How far above the end of the content the view may be and still count as at the bottom, in pixels. */
export const AT_BOTTOM_PX = 32;

type Measurements = Parameters<FlowLayout['updateItemSizes']>[0];

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
 */
export class ChatLayout extends FlowLayout {
  /** Others' messages that have just arrived while the view follows the end (set through the config). */
  _arrivals: readonly unknown[] = [];
  /** Told (once the view has moved) which arrival the view now starts at. */
  _onStart?: (item: unknown) => void;

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
