/**
 * The script tag's handle once the full bundle is on the page
 * (`Charla.createWidget`, `Charla.widgets[n]`, `charla:load`'s
 * `detail.widgetInstance`). Before the bundle arrives the loader's handle
 * queues every call and returns a promise (src/widget/boot.ts); this keeps
 * that contract afterwards, so the same page code works whichever came
 * first: every method returns a promise of the instance method's result
 * (undefined for the void ones) or of its error, and a name that is not a
 * widget method rejects with the same VALIDATION_ERROR as before the load.
 * `ready` gives the WidgetInstance itself, whose methods return plainly.
 */
import { CharlaError, invalidArgument } from '../transport/errors.ts';
import { version } from '../version.ts';
import type { FullApi } from './boot.ts';
import { createWidget, widgets } from './create-widget.ts';
import type { WidgetOptions } from './core.ts';
import type { WidgetInstance } from './instance.ts';
import { isProbe } from './probes.ts';

const OBJECT = Object.prototype as Record<PropertyKey, unknown>;

/** The promise of what `fn` returns (or throws): a void method's undefined, a promise method's own answer. */
function promised(
  fn: (...args: unknown[]) => unknown,
  self: object,
): (...args: unknown[]) => Promise<unknown> {
  return (...args) => new Promise((resolve) => resolve(fn.apply(self, args)));
}

/** The handle of `instance`: the promise contract of the loader's handle, on the real instance. */
export function scriptHandle(instance: WidgetInstance): WidgetInstance {
  const handle: WidgetInstance = new Proxy(instance, {
    get(target, prop) {
      if (isProbe(prop)) return undefined;
      const value: unknown = Reflect.get(target, prop);
      // Symbols and what every object inherits (toString, valueOf) as they are. Compared by value: a page that
      // put `open` on Object.prototype still gets the widget's open, wrapped, not the bare method (it would throw).
      if (typeof prop === 'symbol' || (prop in OBJECT && value === OBJECT[prop])) return value;
      if (prop === 'on' || prop === 'off')
        return (...args: unknown[]) => ((value as (...a: unknown[]) => unknown).apply(target, args), handle);
      // destroy acts at once (whatever waits rejects DESTROYED) and, as every method here, returns a promise.
      if (prop === 'destroy' && typeof value === 'function')
        return () => (value.call(target), Promise.resolve());
      // The loader's hook, called as it is.
      if (prop === 'addCleanup') return typeof value === 'function' ? value.bind(target) : value;
      if (typeof value === 'function') return promised(value as (...a: unknown[]) => unknown, target);
      if (prop in target) return value;
      return () => Promise.reject(invalidArgument(`Charla: ${prop} is not a widget method`, prop));
    },
  });
  return handle;
}

/** What charla.iife.js hands the loader (`window.__charlaFull`): widgets made as handles. */
export const scriptTagApi = {
  createWidget: (options: WidgetOptions) => scriptHandle(createWidget(options)),
  widgets,
  version,
  CharlaError,
} as unknown as FullApi;
