import { FlowLayout } from '@lit-labs/virtualizer/layouts/flow.js';

/** What the list pins (the shape of the virtualizer's PinOptions, whose module is not exported). */
export interface ChatPin {
  index: number;
  block: 'start' | 'end';
}

/**
 * The flow layout, except that a pin on the last row's end holds the view exactly at the
 * end of the content.
 *
 * FlowLayout works out a pin's scroll position before it places the rows of the pass, from
 * where the pinned row was in the previous pass and clamped to the previous scroll height;
 * then it puts the last row at the end of the new (estimated) extent. When the newest row
 * is new or has just changed height, the two disagree and the view stops short of the
 * bottom by up to a row, and nothing moves it again until something else reflows
 * (checked against @lit-labs/virtualizer 2.1; test/browser/message-list-follow.test.ts).
 * The end of the extent is known before the rows are placed, so the position is taken
 * from it instead. Only protected members of the layout are used.
 */
export class ChatLayout extends FlowLayout {
  protected override _setPositionFromPin(): void {
    const pin = this.pin;
    const last = this.items.length - 1;
    if (!pin || pin.block !== 'end' || last < 0 || pin.index < last) {
      super._setPositionFromPin();
      return;
    }
    const before = this._scrollPosition;
    // The list is its own scroller: the layout's coordinates are the scroller's.
    this._scrollPosition = Math.max(0, this._scrollSize - this._viewDim1);
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
