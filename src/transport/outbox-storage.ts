/**
 * Where the outbox keeps unsent messages so that a reload or a crash loses
 * nothing: IndexedDB (one database per namespace, through idb-keyval), else
 * localStorage, else memory that lives as long as the page's JavaScript realm.
 */
import { del, entries, set, type UseStore } from 'idb-keyval';
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
  /** Which of the built-in storages this is; a storage of your own may leave it out. */
  readonly kind?: OutboxStorageKind;
  load(): Promise<OutboxEntry[]>;
  put(entry: OutboxEntry): Promise<void>;
  remove(id: string): Promise<void>;
  /** Lets go of what the storage holds open (an IndexedDB connection); no call after it. */
  close?(): void;
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

const STORE = 'entries';

/**
 * One database per namespace, one object store. The connection is opened on first use and let go
 * by close() (a destroyed widget), and whenever another page or script deletes or upgrades the
 * database (a logout clearing the visitor's data): holding it would block that for ever. The next
 * use opens it again.
 */
/** How long an IndexedDB open may take before the outbox goes on without it. */
const IDB_OPEN_WAIT_MS = 3000;

class IdbStorage implements OutboxStorage {
  readonly kind = 'indexeddb' as const;
  readonly #name: string;
  #db: Promise<IDBDatabase> | undefined;
  #closed = false;
  constructor(namespace: string) {
    this.#name = PREFIX + namespace;
  }
  #open(): Promise<IDBDatabase> {
    if (this.#closed) return Promise.reject(new Error('outbox storage closed'));
    if (this.#db) return this.#db;
    const opened = new Promise<IDBDatabase>((resolve, reject) => {
      // An open that never answers (a browser's storage stuck) must not hold the outbox: past the
      // wait it counts as failed, and a late answer's connection is closed.
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(new Error('indexedDB.open did not answer'));
      }, IDB_OPEN_WAIT_MS);
      const request = indexedDB.open(this.#name);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => {
        clearTimeout(timer);
        const db = request.result;
        if (late) return db.close();
        const drop = () => {
          db.close();
          if (this.#db === opened) this.#db = undefined;
        };
        db.onversionchange = drop;
        db.onclose = drop;
        resolve(db);
      };
      request.onerror = () => {
        clearTimeout(timer);
        reject(request.error ?? new Error('indexedDB.open failed'));
      };
    });
    // A failed open is tried again by the next use (the fallback decides what a failure means).
    opened.catch(() => {
      if (this.#db === opened) this.#db = undefined;
    });
    return (this.#db = opened);
  }
  readonly #store: UseStore = (mode, callback) =>
    this.#open().then((db) => callback(db.transaction(STORE, mode).objectStore(STORE)));
  close(): void {
    this.#closed = true;
    // Closing waits for the transactions already made on it (a write just before) to finish.
    void this.#db?.then(
      (db) => db.close(),
      () => undefined,
    );
    this.#db = undefined;
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
  get kind(): OutboxStorageKind | undefined {
    return this.#current.kind;
  }
  #closed = false;
  async #run<T>(op: (s: OutboxStorage) => Promise<T>): Promise<T> {
    try {
      return await op(this.#current);
    } catch (error) {
      // Closed is not failed: nothing moves to the next storage after close().
      if (this.#closed) throw error;
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
  close(): void {
    this.#closed = true;
    this.#current.close?.();
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
  let idb: unknown;
  try {
    // A page whose site data is blocked may have the getter throw (SecurityError), not answer undefined.
    idb = globalThis.indexedDB;
  } catch {
    idb = undefined;
  }
  return idb ? new FallbackStorage(new IdbStorage(namespace), fallback) : fallback();
}
