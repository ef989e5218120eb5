/**
 * Subscribes a component to some stores of its WidgetContext. The context
 * arrives as a property after construction (and may be replaced), so the
 * StoreControllers from @nanostores/lit are made when it is set and dropped
 * when it changes.
 */
import { StoreController } from '@nanostores/lit';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Store } from 'nanostores';
import type { WidgetContext, WidgetStores } from '../widget/context.ts';

type StoreValue<K extends keyof WidgetStores> = ReturnType<WidgetStores[K]['get']>;

export class ContextStoresController<K extends keyof WidgetStores> implements ReactiveController {
  private context: WidgetContext | undefined;
  private controllers: StoreController<unknown>[] = [];

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly keys: readonly K[],
  ) {
    host.addController(this);
  }

  /** Points the subscriptions at a context (call from willUpdate when `context` changed). */
  use(context: WidgetContext | undefined): void {
    if (context === this.context) return;
    for (const c of this.controllers) {
      c.hostDisconnected();
      this.host.removeController(c);
    }
    this.context = context;
    // A StoreController subscribes in hostConnected, which addController calls when the host is connected.
    this.controllers = context
      ? this.keys.map((k) => new StoreController<unknown>(this.host, context.stores[k] as Store<unknown>))
      : [];
  }

  /** The current value of a store, or undefined without a context. */
  get<S extends K>(key: S): StoreValue<S> | undefined {
    return this.context?.stores[key].get() as StoreValue<S> | undefined;
  }

  hostConnected(): void {}
  hostDisconnected(): void {}
}
