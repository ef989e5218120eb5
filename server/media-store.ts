/**
 * Where a media file's bytes live: `media_chunks`, 256 KB a row, written one
 * short statement at a time and read the same way (migration 018).
 *
 * Why not one `bytea` value (as until migration 018): on the embedded store
 * PGlite runs on the service's own thread and one query at a time, and its
 * `bytea` is slow to move (measured on the 2-core development machine, 24 MB:
 * written as a Buffer parameter in 23.6 s, read back in 5.3 s, the event loop
 * held all along). One visitor's upload, or a video player's Range requests,
 * stopped every other request for that long. In pieces moved as base64 text
 * the same 24 MB are written in about 1.2 s and read in about 0.24 s, in
 * statements of at most a few tens of milliseconds with other requests served
 * between them; an upload is never held in memory whole, and a Range request
 * reads only the pieces it covers.
 *
 * A file is visible only through its `media` row, inserted after its last
 * piece: pieces without a row (an upload cut short, a crash) are nobody's and
 * are swept (sweepOrphanChunks). A row whose `data` is not null (stored before
 * migration 018 moved such files into pieces, or by hand) is still served from it.
 */
import { Readable } from 'node:stream';
import { letOthersRun, type Queryable } from './store/db.ts';

/** Bytes per stored piece. */
export const MEDIA_CHUNK_BYTES = 256 * 1024;

/** How old pieces without a media row must be before a sweep that may race a live upload removes them. */
export const ORPHAN_CHUNK_AGE_MS = 60 * 60 * 1000;

/** Raised by writeMediaChunks when the source is longer than its limit. */
export class MediaTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`media over ${maxBytes} bytes`);
  }
}

async function insertChunk(db: Queryable, key: string, seq: number, piece: Buffer): Promise<void> {
  await db.query(
    `INSERT INTO media_chunks (media_key, seq, data) VALUES ($1, $2, decode($3, 'base64'))
     ON CONFLICT (media_key, seq) DO NOTHING`,
    [key, seq, piece.toString('base64')],
  );
  await letOthersRun();
}

/**
 * Stores the bytes of `source` under `key`, piece by piece, and answers their
 * length. Over `maxBytes`, stops reading and throws MediaTooLarge. When it
 * throws, the caller removes what was written (discardMediaChunks).
 */
export async function writeMediaChunks(
  db: Queryable,
  key: string,
  source: AsyncIterable<Uint8Array> | Uint8Array,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<number> {
  let seq = 0;
  let size = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async (all: boolean) => {
    let joined = Buffer.concat(pending, pendingBytes);
    while (joined.length >= MEDIA_CHUNK_BYTES || (all && joined.length > 0)) {
      await insertChunk(db, key, seq++, joined.subarray(0, MEDIA_CHUNK_BYTES));
      joined = joined.subarray(Math.min(MEDIA_CHUNK_BYTES, joined.length));
    }
    pending = joined.length > 0 ? [joined] : [];
    pendingBytes = joined.length;
  };
  const pieces = source instanceof Uint8Array ? [source] : source;
  for await (const piece of pieces) {
    size += piece.length;
    if (size > maxBytes) throw new MediaTooLarge(maxBytes);
    pending.push(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    pendingBytes += piece.length;
    if (pendingBytes >= MEDIA_CHUNK_BYTES) await flush(false);
  }
  await flush(true);
  return size;
}

/** Removes the pieces of `key` (an upload that was refused or failed). */
export async function discardMediaChunks(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM media_chunks WHERE media_key = $1', [key]);
}

/** The row of a file the service stores itself (putMedia). */
export interface MediaRow {
  key: string;
  companyId: string;
  contentType: string;
  name: string;
}

/**
 * Stores a whole file the service itself has (the demo bot's media, a test's
 * fixture): its pieces, then its row. A key already stored is left as it is.
 */
export async function putMedia(db: Queryable, row: MediaRow, data: Uint8Array): Promise<void> {
  const exists = await db.query('SELECT 1 FROM media WHERE key = $1', [row.key]);
  if (exists.rows.length > 0) return;
  const size = await writeMediaChunks(db, row.key, data).catch(async (err: unknown) => {
    await discardMediaChunks(db, row.key).catch(() => {});
    throw err;
  });
  await db.query(
    `INSERT INTO media (key, company_id, content_type, size, name)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key) DO NOTHING`,
    [row.key, row.companyId, row.contentType, size, row.name],
  );
}

/** A stored file's bytes `start` to `end` (both included) of a file of `size` bytes, read a piece at a time. */
export function readMediaRange(db: Queryable, key: string, start: number, end: number): Readable {
  const first = Math.floor(start / MEDIA_CHUNK_BYTES);
  const last = Math.floor(end / MEDIA_CHUNK_BYTES);
  async function* pieces(): AsyncGenerator<Buffer> {
    for (let seq = first; seq <= last; seq++) {
      const { rows } = await db.query<{ b64: string }>(
        `SELECT encode(data, 'base64') AS b64 FROM media_chunks WHERE media_key = $1 AND seq = $2`,
        [key, seq],
      );
      const b64 = rows[0]?.b64;
      if (b64 === undefined) throw new Error(`media ${key} lacks its piece ${seq}`);
      await letOthersRun();
      const piece = Buffer.from(b64, 'base64');
      const from = seq === first ? start - seq * MEDIA_CHUNK_BYTES : 0;
      const to = seq === last ? end - seq * MEDIA_CHUNK_BYTES + 1 : piece.length;
      yield piece.subarray(from, to);
    }
  }
  return Readable.from(pieces(), { objectMode: false });
}

/** The inline bytes of a row stored before migration 018 (or by hand), or null when it has pieces. */
export async function inlineMedia(db: Queryable, key: string): Promise<Buffer | null> {
  const { rows } = await db.query<{ b64: string | null }>(
    `SELECT encode(data, 'base64') AS b64 FROM media WHERE key = $1`,
    [key],
  );
  const b64 = rows[0]?.b64;
  return b64 === undefined || b64 === null ? null : Buffer.from(b64, 'base64');
}

/**
 * Removes pieces that no media row owns and that are older than `olderThanMs`
 * (0: all of them, when no upload can be running, as at the start of the only
 * process on an embedded store). Answers how many were removed.
 */
export async function sweepOrphanChunks(db: Queryable, olderThanMs: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM media_chunks c
     WHERE NOT EXISTS (SELECT 1 FROM media m WHERE m.key = c.media_key)
       AND c.created_at <= now() - make_interval(secs => $1::double precision / 1000)`,
    [olderThanMs],
  );
  return r.rowCount;
}
