/**
 * The embedded store's space, given back: PGlite has no autovacuum, so the room of every deleted
 * row (an upload's pieces, cut short or refused) and of every old version of an updated one (a
 * bot conversation's state, rewritten each turn) stayed taken for good, and the directory only
 * grew (a reviewer's 40 uploads cut at 20 MB grew it by 1.5 GB, a restart gave nothing back).
 * VACUUM makes that room reusable by later writes (the files do not shrink, they stop growing):
 * the whole store with its statistics every hour, and the upload pieces' table right after an
 * upload's pieces are thrown away. On PostgreSQL its own autovacuum does this: nothing here runs.
 *
 * PGlite answers one statement at a time, so a VACUUM holds the others back while it runs; it
 * reads only the pages changed since the last one, which keeps each pass short.
 */
import { statfs } from 'node:fs/promises';
import type { Db } from './db.ts';

interface Log {
  warn(obj: object, msg: string): void;
}

export interface Reclaimer {
  /** The planner's statistics alone (at the start: quick however large the store is). */
  analyze(): Promise<void>;
  /** The whole store, with the planner's statistics (a minute after the start, then hourly). */
  all(): Promise<void>;
  /** The upload pieces' table, once (several calls while one runs make one more pass). */
  pieces(): Promise<void>;
  /** A checkpoint: the write-ahead log written before it may be recycled. */
  checkpoint(): Promise<void>;
}

/** How often the embedded store makes a checkpoint of its own (ms). */
export const CHECKPOINT_EVERY_MS = 5 * 60_000;

/**
 * Below this much free space on the data directory's disk a VACUUM waits: a VACUUM or CHECKPOINT
 * that met a full disk left PGlite spinning, and the process (its /health too) never answered
 * again, even once space was freed. Writes meanwhile fail with 500 and the process goes on.
 */
export const UPKEEP_MIN_FREE_BYTES = 64 * 1024 * 1024;
/**
 * A CHECKPOINT writes little and is what recycles the write-ahead log (gives space back): it goes
 * on down to this much free, and waits only below it.
 */
export const CHECKPOINT_MIN_FREE_BYTES = 8 * 1024 * 1024;

/** Free bytes for an unprivileged writer on the disk of `dir`. */
export const diskFree = async (dir: string): Promise<number> => {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
};

export function reclaimer(
  db: Db,
  log: Log,
  { dataDir, freeBytes = diskFree }: { dataDir?: string; freeBytes?: (dir: string) => Promise<number> } = {},
): Reclaimer {
  /** Which kinds of upkeep wait for room now (each said once as it starts waiting, once as it stops). */
  const waiting = { vacuum: false, checkpoint: false };
  const room = async (sql: string): Promise<boolean> => {
    if (dataDir === undefined) return true;
    const kind = sql === 'CHECKPOINT' ? 'checkpoint' : 'vacuum';
    const free = await freeBytes(dataDir).catch(() => Number.POSITIVE_INFINITY);
    const enough = free >= (kind === 'checkpoint' ? CHECKPOINT_MIN_FREE_BYTES : UPKEEP_MIN_FREE_BYTES);
    if (enough === waiting[kind]) {
      const said = {
        checkpoint: ['its checkpoints (under 8 MB free) wait', 'its checkpoints go on'],
        vacuum: ['its vacuum (under 64 MB free) waits', 'its vacuum goes on'],
      }[kind];
      log.warn(
        { dataDir, free },
        enough
          ? `the embedded store has room again: ${said[1]}`
          : `the embedded store is nearly out of disk space: ${said[0]} until there is room`,
      );
    }
    waiting[kind] = !enough;
    return enough;
  };
  // Nothing once the store is closing (the service stopping): an upload the stop cut asked for a
  // pass over its pieces after the store had closed, which warned twice "PGlite is closed". A
  // pass the close overtook fails for the same reason, and is not worth a warning either.
  const run = async (sql: string): Promise<void> => {
    if (db.closed || !(await room(sql))) return;
    await db.exec(sql).catch((err: unknown) => {
      if (!db.closed) log.warn({ err }, 'could not give the store its free space back');
    });
  };
  if (db.kind !== 'pglite') {
    const none = () => Promise.resolve();
    return { analyze: none, all: none, pieces: none, checkpoint: none };
  }
  // The write-ahead log is recycled only at a checkpoint, and PGlite's single backend never makes
  // one by itself: pg_wal grew past max_wal_size without end (1.9 GB in 110 s of cut uploads,
  // 128 MB in 15 s of messages to a big room). One after each pass, and every few minutes.
  const checkpoint = () => run('CHECKPOINT');
  let running: Promise<void> | null = null;
  let again = false;
  const pieces = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = run('VACUUM media_chunks')
      .then(checkpoint)
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          void pieces();
        }
      });
    return running;
  };
  return {
    analyze: () => run('ANALYZE'),
    all: () => run('VACUUM (ANALYZE)').then(checkpoint),
    pieces,
    checkpoint,
  };
}
