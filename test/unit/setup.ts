/**
 * happy-dom differs from browsers in one way the widget trips over: its
 * Element.scrollTo calls this.scroll(). @lit-labs/virtualizer replaces an
 * element's scroll() with its own, which calls the original scrollTo, so under
 * happy-dom the two call each other until the stack overflows. A browser's
 * native scrollTo does not go through scroll(); give happy-dom the same.
 */
Element.prototype.scrollTo = function scrollTo(
  this: Element,
  x?: ScrollToOptions | number,
  y?: number,
): void {
  const options: ScrollToOptions = typeof x === 'object' && x !== null ? x : { left: x, top: y };
  const set = () => {
    if (options.top !== undefined) this.scrollTop = Number(options.top) || 0;
    if (options.left !== undefined) this.scrollLeft = Number(options.left) || 0;
  };
  if (options.behavior === 'smooth') setTimeout(set);
  else set();
} as Element['scrollTo'];
