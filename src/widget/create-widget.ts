/**
 * createWidget(options): a WidgetInstance, its `<charla-widget>` element in
 * the container (default document.body) with the instance's context, and an
 * entry in the list of live instances.
 */
import { WidgetInstance } from './instance.ts';
import type { WidgetOptions } from './core.ts';
import { invalidArgument } from '../transport/errors.ts';
import { widgetTag } from '../define.ts';
import { own } from '../util/validate.ts';

const live: WidgetInstance[] = [];

/** The live widget instances of this page, oldest first (a copy). */
export function widgets(): WidgetInstance[] {
  return live.slice();
}

/**
 * Creates a widget. It shows its launcher at once (unless `container` is
 * null: headless) and talks to the service after `connect()` (or on the
 * first call that needs it).
 */
export function createWidget(given: WidgetOptions): WidgetInstance {
  // The page's own options only: what it added to Object.prototype is no option.
  const options = own(given);
  const container = options?.container === undefined ? globalThis.document?.body : options.container;
  // An Element (or a shadow root): a text node, a comment or the document cannot hold the widget.
  if (
    container != null &&
    !(typeof container.appendChild === 'function' && [1, 11].includes(container.nodeType))
  )
    throw invalidArgument('container must be an Element or a shadow root (or null: no element)', 'container');
  const instance = new WidgetInstance(options);
  // Made from a script in <head> (no body yet): the widget joins the body once the page has one.
  const later = !container && options?.container === undefined;
  if ((container || later) && typeof document !== 'undefined') {
    const element = document.createElement(widgetTag) as HTMLElement & {
      context?: unknown;
      defaultPosition?: unknown;
      focusOnStart?: boolean;
    };
    // The script tag's data-position, until the configuration arrives (the loader's launcher sat there too).
    element.defaultPosition = (options as { position?: unknown }).position;
    // The loader's launcher, which this one replaces, had the keyboard's focus: it moves here (into the
    // panel when a click on it opened the widget), unless something else took it meanwhile.
    element.focusOnStart = document.activeElement?.localName === 'charla-loader';
    element.context = instance.context;
    instance.element = element;
    instance.core.element = element;
    // Hidden or shown again with its container (display:none and back), the open room's reading follows.
    if (typeof IntersectionObserver === 'function') {
      const seen = new IntersectionObserver(() => instance.core.shownChanged());
      seen.observe(element);
      instance.addCleanup(() => seen.disconnect());
    }
    // A page that swaps its whole <body> as it navigates (Turbo Drive, pjax-style routers) took the
    // widget out with the old one: it joins the new body, its conversation and connection as they were
    // (a copy of its element cloned with the page goes then: CharlaWidget). Taken out by the page
    // itself (the body is still the page's), it stays out.
    if ((later || container === document.body) && typeof MutationObserver === 'function') {
      const swapped = new MutationObserver(() => {
        const old = element.parentNode as Element | null;
        const body = document.body;
        if (!element.isConnected && old?.localName === 'body' && old !== body) body?.appendChild(element);
      });
      swapped.observe(document.documentElement, { childList: true });
      instance.addCleanup(() => swapped.disconnect());
    }
    if (container) container.appendChild(element);
    else {
      const join = () => document.body?.appendChild(element);
      document.addEventListener('DOMContentLoaded', join, { once: true });
      instance.addCleanup(() => document.removeEventListener('DOMContentLoaded', join));
    }
  }
  // Listed once it stands (nothing above may leave a half-made widget in the list).
  live.push(instance);
  instance.addCleanup(() => {
    const at = live.indexOf(instance);
    if (at >= 0) live.splice(at, 1);
  });
  if (typeof window !== 'undefined' && typeof window.addEventListener === 'function') {
    const online = () => instance.core.reconnectNow();
    const offline = () => instance.core.networkLost();
    // The back/forward cache: the connection closes as the page goes in and opens as it comes back.
    const hide = (e: PageTransitionEvent) => e.persisted && instance.core.pageHidden();
    const show = (e: PageTransitionEvent) => e.persisted && instance.core.reconnectNow();
    window.addEventListener('online', online);
    window.addEventListener('offline', offline);
    window.addEventListener('pagehide', hide);
    window.addEventListener('pageshow', show);
    instance.addCleanup(() => {
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
      window.removeEventListener('pagehide', hide);
      window.removeEventListener('pageshow', show);
    });
  }
  return instance;
}
