/**
 * The outbox: messages sent but not yet acknowledged, in send order, kept in
 * storage until the service acknowledges them. The service dedupes by the
 * message's UUID, so sending an entry again (after a reconnect or a reload) is
 * always safe: delivery is exactly once.
 */
import type { OutgoingMessage } from '../../types/index.ts';
import {
  createOutboxStorage,
  type OutboxEntry,
  type OutboxStorage,
  type OutboxStorageKind,
} from './outbox-storage.ts';

export type { OutboxEntry, OutboxStorage, OutboxStorageKind };

export class Outbox {
  readonly storage: OutboxStorage;
  readonly #entries = new Map<string, OutboxEntry>();
  /** Per id, the last storage write, so a removal never overtakes its put. */
  readonly #writes = new Map<string, Promise<void>>();
  readonly #loaded: Promise<void>;
  #counter = 0;
  #lastOrder = 0;

  /** A storage the outbox made itself is closed with it; one passed in is its owner's. */
  readonly #own: boolean;

  constructor(namespace: string, storage?: OutboxStorage | OutboxStorageKind) {
    this.#own = typeof storage !== 'object';
    this.storage = typeof storage === 'object' ? storage : createOutboxStorage(namespace, storage);
    this.#loaded = this.storage.load().then(
      (stored) => {
        const added = this.list();
        // Entries added this session are newer than any stored one.
        const last = this.#merge(stored).reduce(
          (top, e) => (Number.isFinite(e.order) ? Math.max(top, e.order) : top),
          0,
        );
        // Send order is the order of writing, whatever the clock said: a page whose clock was
        // set back since (or is behind the last page's) still sends after what is stored.
        if (added.some((entry) => entry.order <= last))
          for (const entry of added) {
            entry.order = ++this.#lastOrder;
            this.#chain(String(entry.message.id), () => this.storage.put(entry));
          }
      },
      () => undefined,
    );
  }

  /**
   * Takes in what another page or instance of the same user left in storage since this outbox
   * loaded (a tab closed, or a widget destroyed, before its messages went): answers those entries,
   * in send order. Sending one the other is sending too is safe (the service dedupes by id).
   */
  async reload(): Promise<OutboxEntry[]> {
    await this.#loaded;
    try {
      return this.#merge(await this.storage.load()).sort((a, b) => a.order - b.order);
    } catch {
      return [];
    }
  }

  /**
   * Files the stored entries this outbox does not know (nor is removing) and answers them; send
   * order goes on after the latest. Storage may hold anything (another version, another script):
   * what is not an entry is skipped.
   */
  #merge(stored: readonly OutboxEntry[]): OutboxEntry[] {
    const found: OutboxEntry[] = [];
    for (const entry of stored) {
      if (typeof entry?.message !== 'object' || entry.message === null) continue;
      const id = String(entry.message.id);
      if (this.#entries.has(id) || this.#writes.has(id)) continue;
      this.#entries.set(id, entry);
      found.push(entry);
      if (Number.isFinite(entry.order)) this.#lastOrder = Math.max(this.#lastOrder, entry.order);
    }
    return found;
  }

  /** Resolves once entries left by an earlier page are loaded. */
  ready(): Promise<void> {
    return this.#loaded;
  }

  get size(): number {
    return this.#entries.size;
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  get(id: string): OutboxEntry | undefined {
    return this.#entries.get(id);
  }

  /** Entries in send order. */
  list(): OutboxEntry[] {
    return [...this.#entries.values()].sort((a, b) => a.order - b.order);
  }

  /** Adds a message (in memory at once, in storage as soon as it can). */
  add(message: OutgoingMessage): OutboxEntry {
    const id = String(message.id);
    const existing = this.#entries.get(id);
    if (existing) return existing;
    const now = Date.now();
    // Monotonic even if the clock steps back or many sends share a millisecond.
    const order = Math.max(now * 1000 + (this.#counter++ % 1000), this.#lastOrder + 1);
    this.#lastOrder = order;
    const entry: OutboxEntry = { message, order, createdAt: now };
    this.#entries.set(id, entry);
    this.#chain(id, () => this.storage.put(entry));
    return entry;
  }

  /** Removes an acknowledged (or abandoned) message. */
  remove(id: string): Promise<void> {
    if (!this.#entries.delete(id)) return this.#writes.get(id) ?? Promise.resolve();
    return this.#chain(id, () => this.storage.remove(id));
  }

  /** Resolves when every pending storage write is done. */
  async settled(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all([...this.#writes.values()]);
  }

  /**
   * Once what is being written is written (a message sent just before stays for the next page),
   * lets go of the storage it made (its IndexedDB connection). The outbox is not used after it.
   */
  async close(): Promise<void> {
    await this.#loaded;
    await this.settled();
    if (this.#own) this.storage.close?.();
  }

  #chain(id: string, op: () => Promise<void>): Promise<void> {
    const prev = this.#writes.get(id) ?? Promise.resolve();
    const next = prev.then(op).catch(() => undefined);
    this.#writes.set(id, next);
    void next.then(() => {
      if (this.#writes.get(id) === next) this.#writes.delete(id);
    });
    return next;
  }
}
