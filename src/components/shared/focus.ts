/**
 * Focus moves for controls that go away or are disabled once used (WCAG 2.4.3): the browser
 * would drop focus on <body>. Only ever called when focus was inside the widget.
 */

/** Focus goes to the chat's text field: the composer of the nearest enclosing shadow root that has one. */
export function focusComposer(from: Node): void {
  for (let root = from.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) {
    const composer = root.querySelector<HTMLElement>('charla-composer');
    if (composer) return composer.focus();
  }
}

/** Nothing holds focus (the element that had it went away or was disabled), or `el` still does. */
export function focusLost(el: Element): boolean {
  const active = document.activeElement;
  return !active || active === document.body || el.matches(':focus-within');
}
