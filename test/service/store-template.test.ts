/**
 * In-memory stores start from a dump of a new cluster when given one (server/store/db.ts,
 * `memoryTemplate`): the test suite makes one per run (test/pglite-template.ts).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDb } from '../../server/store/db.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'charla-template-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('in-memory store from a cluster dump', () => {
  it('starts from the dump: what the dumped cluster held is there', async () => {
    const lite = new PGlite();
    await lite.exec("CREATE TABLE marker (v text); INSERT INTO marker VALUES ('from the dump')");
    const file = join(dir, 'marked.tar');
    await writeFile(file, Buffer.from(await (await lite.dumpDataDir('none')).arrayBuffer()));
    await lite.close();

    const db = await openDb({ databaseUrl: 'memory://', memoryTemplate: file });
    try {
      expect((await db.query<{ v: string }>('SELECT v FROM marker')).rows).toEqual([{ v: 'from the dump' }]);
      // A store of its own: what it writes is not in the dump file.
      await db.query("INSERT INTO marker VALUES ('later')");
    } finally {
      await db.close();
    }
    const again = await openDb({ databaseUrl: 'memory://', memoryTemplate: file });
    try {
      expect((await again.query('SELECT v FROM marker')).rows).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it('passes over a template that is missing or not a dump, with a warning naming why, and makes a new cluster', async () => {
    const junk = join(dir, 'junk.tar');
    await writeFile(junk, 'not a tar file');
    for (const [memoryTemplate, why] of [
      [join(dir, 'missing.tar'), /ENOENT/],
      [junk, /PGlite failed to initialize/],
    ] as const) {
      const warnings: { message: string; err: unknown }[] = [];
      const db = await openDb({
        databaseUrl: 'memory://',
        memoryTemplate,
        warn: (message, err) => warnings.push({ message, err }),
      });
      try {
        expect((await db.query<{ n: number }>('SELECT 1::int AS n')).rows).toEqual([{ n: 1 }]);
      } finally {
        await db.close();
      }
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain(memoryTemplate);
      expect(warnings[0]?.message).toMatch(why);
      expect(warnings[0]?.err).toBeInstanceOf(Error);
    }
  });

  it('the run’s template loads as a cluster (the suite’s services do start from it)', async () => {
    const lite = new PGlite({ loadDataDir: new Blob([await readFile(inject('pgliteTemplate'))]) });
    try {
      expect((await lite.query<{ n: number }>('SELECT 1::int AS n')).rows).toEqual([{ n: 1 }]);
    } finally {
      await lite.close();
    }
  });
});
