/**
 * A stop (SIGTERM, a restart) with a widget upload half-way: after the grace period the service
 * closes the connection, and the upload's request may never learn (its stream just stops). Its
 * pieces were left in the store after the process had gone (34 pieces, 8.5 MB, on PostgreSQL),
 * for the next start's sweep of pieces an hour old. They are removed as the service closes,
 * before its store does.
 */
import { describe, expect, it } from 'vitest';
import { MEDIA_CHUNK_BYTES } from '../../server/media-store.ts';
import { openUpload } from './helpers/open-upload.ts';
import { startLive } from './helpers/live.ts';
import { people } from './helpers/people.ts';

describe('stopping with an upload half-way', () => {
  it('removes the pieces the cut upload wrote before the store closes', async () => {
    const h = await startLive({ shutdownGraceMs: 300 });
    const { apiKey } = await h.createWidget();
    const [ana] = await people(h, apiKey, 'Ana');
    const db = h.app.charla.db;
    const pieces = async () =>
      Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM media_chunks')).rows[0]!.n);
    const before = await pieces();
    const { req, ended } = openUpload(h.baseUrl, ana!.token, 'a-medias.pdf', 6 * MEDIA_CHUNK_BYTES);
    req.write(Buffer.alloc(3 * MEDIA_CHUNK_BYTES + 1000, 7));
    await expect.poll(pieces, { timeout: 15_000 }).toBeGreaterThan(before);
    // What the store holds at the moment it closes (the last thing the stop does).
    let atClose = -1;
    const close = db.close.bind(db);
    (db as { close: () => Promise<void> }).close = async () => {
      atClose = await pieces();
      await close();
    };
    await h.close();
    await ended;
    expect(atClose).toBe(before);
  });
});
