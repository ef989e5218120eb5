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

describe('the store given its room back on a nearly full disk', () => {
  it('waits while the disk is nearly full (vacuum under 64 MB free, checkpoints under 8 MB; said once), and goes on once there is room again (said once)', async () => {
    const db = await openDb({ databaseUrl: 'memory://' });
    const ran: string[] = [];
    // The store itself, with what the upkeep asks of it written down.
    const watched = new Proxy(db, {
      get(target, prop) {
        if (prop === 'exec') return (sql: string) => (ran.push(sql), target.exec(sql));
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const warned: string[] = [];
    let free = 4 * 1024 * 1024;
    const asked: string[] = [];
    const reclaim = reclaimer(
      watched,
      { warn: (_obj, msg) => void warned.push(msg) },
      {
        dataDir: '/srv/charla-data',
        freeBytes: async (dir) => (asked.push(dir), free),
      },
    );
    try {
      await reclaim.checkpoint();
      await reclaim.all();
      await reclaim.pieces();
      expect(ran).toEqual([]);
      expect(asked.every((d) => d === '/srv/charla-data')).toBe(true);
      expect(warned).toEqual([
        'the embedded store is nearly out of disk space: its checkpoints (under 8 MB free) wait until there is room',
        'the embedded store is nearly out of disk space: its vacuum (under 64 MB free) waits until there is room',
      ]);
      // Between the two: checkpoints (which give the log's space back) go on, the vacuum waits.
      free = 32 * 1024 * 1024;
      await reclaim.all();
      await reclaim.checkpoint();
      expect(ran).toEqual(['CHECKPOINT', 'CHECKPOINT']);
      expect(warned.slice(2)).toEqual(['the embedded store has room again: its checkpoints go on']);
      ran.length = 0;
      free = 1024 * 1024 * 1024;
      await reclaim.checkpoint();
      await reclaim.all();
      expect(ran).toEqual(['CHECKPOINT', 'VACUUM (ANALYZE)', 'CHECKPOINT']);
      expect(warned.slice(3)).toEqual(['the embedded store has room again: its vacuum goes on']);
      // A disk whose free space cannot be read does not hold the upkeep back.
      const unread = reclaimer(
        watched,
        { warn: (_obj, msg) => void warned.push(msg) },
        {
          dataDir: '/srv/charla-data',
          freeBytes: async () => {
            throw new Error('ENOSYS');
          },
        },
      );
      await unread.checkpoint();
      expect(ran.at(-1)).toBe('CHECKPOINT');
      expect(warned).toHaveLength(4);
    } finally {
      await db.close();
    }
  });
});
