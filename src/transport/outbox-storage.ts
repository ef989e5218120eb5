/**
 * Where the outbox keeps unsent messages so that a reload or a crash loses
 * nothing: IndexedDB (one database per namespace, through idb-keyval), else
 * localStorage, else memory that lives as long as the page's JavaScript realm.
 */
import { createStore, del, entries, set, type UseStore } from 'idb-keyval';
import type { OutgoingMessage } from '../../types/index.ts';
import { stringify } from '../util/json.ts';

export interface OutboxEntry {
  message: OutgoingMessage;
  /** Send order (monotonic within a namespace). */
  order: number;
  createdAt: number;
}

export type OutboxStorageKind = 'indexeddb' | 'localstorage' | 'memory';

export interface OutboxStorage {
  readonly kind: OutboxStorageKind;
  load(): Promise<OutboxEntry[]>;
  put(entry: OutboxEntry): Promise<void>;
  remove(id: string): Promise<void>;
}

const PREFIX = 'charla-outbox:';

/** Memory fallback: one map per namespace, kept for the life of the realm. */
const memory = new Map<string, Map<string, OutboxEntry>>();

class MemoryStorage implements OutboxStorage {
  readonly kind = 'memory' as const;
  readonly #map: Map<string, OutboxEntry>;
  constructor(namespace: string) {
    let map = memory.get(namespace);
    if (!map) {
      map = new Map();
      memory.set(namespace, map);
    }
    this.#map = map;
  }
  async load(): Promise<OutboxEntry[]> {
    return [...this.#map.values()].map((e) => structuredClone(e));
  }
  async put(entry: OutboxEntry): Promise<void> {
    this.#map.set(String(entry.message.id), structuredClone(entry));
  }
  async remove(id: string): Promise<void> {
    this.#map.delete(id);
  }
}

class LocalStorageStorage implements OutboxStorage {
  readonly kind = 'localstorage' as const;
  readonly #key: string;
  constructor(
    namespace: string,
    private readonly storage: Storage,
  ) {
    this.#key = PREFIX + namespace;
  }
  #read(): Record<string, OutboxEntry> {
    try {
      const raw = this.storage.getItem(this.#key);
      const parsed: unknown = raw ? JSON.parse(raw) : {};
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, OutboxEntry>) : {};
    } catch {
      return {};
    }
  }
  #write(all: Record<string, OutboxEntry>): void {
    if (Object.keys(all).length === 0) this.storage.removeItem(this.#key);
    else this.storage.setItem(this.#key, stringify(all));
  }
  async load(): Promise<OutboxEntry[]> {
    return Object.values(this.#read());
  }
  async put(entry: OutboxEntry): Promise<void> {
    const all = this.#read();
    all[String(entry.message.id)] = entry;
    this.#write(all);
  }
  async remove(id: string): Promise<void> {
    const all = this.#read();
    if (!(id in all)) return;
    delete all[id];
    this.#write(all);
  }
}

class IdbStorage implements OutboxStorage {
  readonly kind = 'indexeddb' as const;
  readonly #store: UseStore;
  constructor(namespace: string) {
    this.#store = createStore(PREFIX + namespace, 'entries');
  }
  async load(): Promise<OutboxEntry[]> {
    const all = await entries<string, OutboxEntry>(this.#store);
    return all.map(([, v]) => v);
  }
  put(entry: OutboxEntry): Promise<void> {
    return set(String(entry.message.id), entry, this.#store);
  }
  remove(id: string): Promise<void> {
    return del(id, this.#store);
  }
}

/**
 * IndexedDB storage that moves to the next fallback the first time
 * IndexedDB fails (private modes, blocked storage).
 */
class FallbackStorage implements OutboxStorage {
  #current: OutboxStorage;
  constructor(
    primary: OutboxStorage,
    private readonly next: () => OutboxStorage,
  ) {
    this.#current = primary;
  }
  get kind(): OutboxStorageKind {
    return this.#current.kind;
  }
  async #run<T>(op: (s: OutboxStorage) => Promise<T>): Promise<T> {
    try {
      return await op(this.#current);
    } catch {
      if (this.#current.kind === 'memory') throw new Error('outbox storage failed');
      this.#current = this.next();
      return op(this.#current);
    }
  }
  load(): Promise<OutboxEntry[]> {
    return this.#run((s) => s.load());
  }
  put(entry: OutboxEntry): Promise<void> {
    return this.#run((s) => s.put(entry));
  }
  remove(id: string): Promise<void> {
    return this.#run((s) => s.remove(id));
  }
}

function localStorageOrNull(): Storage | null {
  try {
    const ls = globalThis.localStorage;
    if (!ls) return null;
    const probe = PREFIX + '__probe';
    ls.setItem(probe, '1');
    ls.removeItem(probe);
    return ls;
  } catch {
    return null;
  }
}

/** The best storage this page has for a namespace (`kind` forces one, for tests and benches). */
export function createOutboxStorage(namespace: string, kind?: OutboxStorageKind): OutboxStorage {
  const fallback = (): OutboxStorage => {
    const ls = kind === 'memory' ? null : localStorageOrNull();
    return ls ? new LocalStorageStorage(namespace, ls) : new MemoryStorage(namespace);
  };
  if (kind === 'memory') return new MemoryStorage(namespace);
  if (kind === 'localstorage') return fallback();
  if (typeof globalThis.indexedDB !== 'undefined' && globalThis.indexedDB !== null) {
    return new FallbackStorage(new IdbStorage(namespace), fallback);
  }
  return fallback();
}
