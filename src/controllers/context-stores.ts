/**
 * Subscribes a component to some stores of its WidgetContext. The context
 * arrives as a property after construction (and may be replaced), so the
 * subscriptions are made when it is set (or when the host connects) and
 * dropped when it changes (or the host disconnects).
 *
 * Subscribes with nanostores' own `subscribe` rather than @nanostores/lit's
 * StoreController: the same behaviour (re-render on every change, the store's
 * lifecycle started while someone listens), without that package, which ships
 * as CommonJS and brings its interop code into the script-tag bundle.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Store } from 'nanostores';
import type { WidgetContext, WidgetStores } from '../widget/context.ts';

type StoreValue<K extends keyof WidgetStores> = ReturnType<WidgetStores[K]['get']>;

export class ContextStoresController<K extends keyof WidgetStores> implements ReactiveController {
  #context: WidgetContext | undefined;
  #connected = false;
  #unsubscribes: (() => void)[] = [];

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly keys: readonly K[],
  ) {
    host.addController(this);
  }

  /** Points the subscriptions at a context (call from willUpdate when `context` changed). */
  use(context: WidgetContext | undefined): void {
    if (context === this.#context) return;
    this.#unsubscribe();
    this.#context = context;
    if (this.#connected) this.#subscribe();
  }

  /** The current value of a store, or undefined without a context. */
  get<S extends K>(key: S): StoreValue<S> | undefined {
    return this.#context?.stores[key].get() as StoreValue<S> | undefined;
  }

  hostConnected(): void {
    this.#connected = true;
    this.#subscribe();
  }

  hostDisconnected(): void {
    this.#connected = false;
    this.#unsubscribe();
  }

  #subscribe(): void {
    const context = this.#context;
    if (!context || this.#unsubscribes.length) return;
    // subscribe() calls back at once: the host renders with the current values.
    this.#unsubscribes = this.keys.map((k) =>
      (context.stores[k] as Store<unknown>).subscribe(() => this.host.requestUpdate()),
    );
  }

  #unsubscribe(): void {
    for (const off of this.#unsubscribes) off();
    this.#unsubscribes = [];
  }
}
