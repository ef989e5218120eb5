/**
 * The embedded store's reclaimer (server/store/reclaim.ts) once the store is closing: a stop that
 * cut an upload half-way had the upload's pass over its pieces run after the store had closed,
 * which logged "could not give the store its free space back" twice ("PGlite is closed"). Now it
 * does nothing then, and says nothing. On a real embedded store, closed as the service's stop
 * closes it (the end-to-end cut upload's timing could not be reproduced reliably here). On
 * PostgreSQL the reclaimer never runs (its autovacuum does the work): the embedded store only.
 */
import { describe, expect, it } from 'vitest';
import { openDb } from '../../server/store/db.ts';
import { reclaimer } from '../../server/store/reclaim.ts';

describe('the store given its room back while the service stops', () => {
  it('a pass asked for once the store is closed, or overtaken by its close, does nothing and says nothing', async () => {
    const warned: string[] = [];
    const db = await openDb({ databaseUrl: 'memory://' });
    const reclaim = reclaimer(db, {
      warn: (obj, msg) => void warned.push(`${msg}: ${String((obj as { err?: unknown }).err)}`),
    });
    // Open, it works (a bare store: statistics and a checkpoint).
    await reclaim.analyze();
    await reclaim.checkpoint();
    expect(warned).toEqual([]);
    // Overtaken: the pass starts, the store closes under it.
    const overtaken = reclaim.all();
    await db.close();
    await overtaken;
    // Asked for after the close.
    await reclaim.pieces();
    await reclaim.checkpoint();
    await reclaim.analyze();
    expect(warned).toEqual([]);
  });
});
