/** A tiny typed event emitter; `on` returns a disposer. */
export class Emitter<Events extends Record<string, unknown>> {
  readonly #handlers = new Map<keyof Events, Set<(payload: never) => void>>();

  on<K extends keyof Events>(name: K, handler: (payload: Events[K]) => void): () => void {
    let set = this.#handlers.get(name);
    if (!set) {
      set = new Set();
      this.#handlers.set(name, set);
    }
    set.add(handler as (payload: never) => void);
    return () => this.off(name, handler);
  }

  off<K extends keyof Events>(name: K, handler: (payload: Events[K]) => void): void {
    this.#handlers.get(name)?.delete(handler as (payload: never) => void);
  }

  emit<K extends keyof Events>(name: K, payload: Events[K]): void {
    const set = this.#handlers.get(name);
    if (!set) return;
    for (const handler of [...set]) {
      try {
        (handler as (payload: Events[K]) => void)(payload);
      } catch (error) {
        // A host's handler that throws must not break delivery to the others.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  clear(): void {
    this.#handlers.clear();
  }
}
