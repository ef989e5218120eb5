/**
 * Focus in the widget's shadow trees. Focus moves for controls that go away or are disabled once
 * used (WCAG 2.4.3: the browser would drop focus on <body>), only ever called when focus was
 * inside the widget; and reading where focus is and where Tab stops (tabStops,
 * deepActiveElement), through shadow roots.
 */

/**
 * Focus goes to the chat's text field: the composer of the nearest enclosing shadow root that has
 * one. With `first`, to its first control instead (where Tab goes past the message list: the
 * composer's buttons come before its field).
 */
export function focusComposer(from: Node, first = false): void {
  for (let root = from.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) {
    const composer = root.querySelector<HTMLElement>('charla-composer');
    if (!composer) continue;
    const stop = first && composer.shadowRoot ? tabStops(composer.shadowRoot)[0] : undefined;
    return (stop ?? composer).focus();
  }
}

/** Nothing holds focus (the element that had it went away or was disabled), or `el` still does. */
export function focusLost(el: Element): boolean {
  const active = document.activeElement;
  return !active || active === document.body || el.matches(':focus-within');
}

const FOCUSABLE =
  'a[href],button,input,select,textarea,audio[controls],video[controls],summary,[tabindex],[contenteditable=""],[contenteditable=true]';

/**
 * The controls Tab stops at inside `root`, in order, through shadow roots (the widget's
 * components put their content in shadow trees, with no slots): enabled, rendered, tabindex ≥ 0.
 */
export function tabStops(root: Element | ShadowRoot, out: HTMLElement[] = []): HTMLElement[] {
  for (const el of root.children) {
    const e = el as HTMLElement;
    if (
      e.matches(FOCUSABLE) &&
      e.tabIndex >= 0 &&
      !e.matches(':disabled') &&
      e.checkVisibility?.({ visibilityProperty: true } as CheckVisibilityOptions) !== false
    )
      out.push(e);
    if (e.shadowRoot) tabStops(e.shadowRoot, out);
    tabStops(e, out);
  }
  return out;
}

/** The element holding focus, through shadow roots. */
export function deepActiveElement(root: Document | ShadowRoot = document): Element | null {
  let a = root.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  return a;
}
