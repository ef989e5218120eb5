/**
 * In-memory stores start from a dump of a new cluster when given one (server/store/db.ts,
 * `storeTemplate`): the test suite makes two per run (test/pglite-template.ts), a new cluster
 * and one holding the service's schema.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDb, spareStoreCount } from '../../server/store/db.ts';
import { migrate } from '../../server/store/migrate.ts';
import { SCHEMA_MIGRATIONS } from '../../server/schema.ts';

let dir: string;
/** A dump of a cluster holding table `marker` with one row, 'from the dump'. */
let marked: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'charla-template-test-'));
  // From the run's template, not initdb (seconds of a core): what it holds is all that matters.
  const lite = new PGlite({ loadDataDir: new Blob([await readFile(inject('pgliteTemplate'))]) });
  await lite.exec("CREATE TABLE marker (v text); INSERT INTO marker VALUES ('from the dump')");
  marked = join(dir, 'marked.tar');
  await writeFile(marked, Buffer.from(await (await lite.dumpDataDir('none')).arrayBuffer()));
  await lite.close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('in-memory store from a cluster dump', () => {
  it('starts from the dump: what the dumped cluster held is there', async () => {
    const db = await openDb({ databaseUrl: 'memory://', storeTemplate: marked });
    try {
      expect((await db.query<{ v: string }>('SELECT v FROM marker')).rows).toEqual([{ v: 'from the dump' }]);
      // A store of its own: what it writes is not in the dump file.
      await db.query("INSERT INTO marker VALUES ('later')");
    } finally {
      await db.close();
    }
    const again = await openDb({ databaseUrl: 'memory://', storeTemplate: marked });
    try {
      expect((await again.query('SELECT v FROM marker')).rows).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it('passes over a template that is missing or not a dump, with a warning naming why, and makes a new cluster', async () => {
    const junk = join(dir, 'junk.tar');
    await writeFile(junk, 'not a tar file');
    for (const [storeTemplate, why] of [
      [join(dir, 'missing.tar'), /ENOENT/],
      [junk, /PGlite failed to initialize/],
    ] as const) {
      const warnings: { message: string; err: unknown }[] = [];
      const db = await openDb({
        databaseUrl: 'memory://',
        storeTemplate,
        warn: (message, err) => warnings.push({ message, err }),
      });
      try {
        expect((await db.query<{ n: number }>('SELECT 1::int AS n')).rows).toEqual([{ n: 1 }]);
      } finally {
        await db.close();
      }
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain(storeTemplate);
      expect(warnings[0]?.message).toMatch(why);
      expect(warnings[0]?.err).toBeInstanceOf(Error);
    }
  });

  it('the run’s template loads as a new cluster: no schema of the service (the migrations’ tests start from it)', async () => {
    const lite = new PGlite({ loadDataDir: new Blob([await readFile(inject('pgliteTemplate'))]) });
    try {
      expect((await lite.query<{ n: number }>('SELECT 1::int AS n')).rows).toEqual([{ n: 1 }]);
      expect((await lite.query("SELECT to_regclass('charla_migrations') AS t")).rows).toEqual([{ t: null }]);
    } finally {
      await lite.close();
    }
  });

  it('the run’s schema template holds every migration: a service starting on it has none to apply', async () => {
    const db = await openDb({ databaseUrl: 'memory://', storeTemplate: inject('pgliteSchemaTemplate') });
    try {
      const recorded = await db.query<{ id: string }>('SELECT id FROM charla_migrations ORDER BY id');
      expect(recorded.rows.map((r) => r.id)).toEqual(SCHEMA_MIGRATIONS.map((m) => m.id).sort());
      expect(await migrate(db, SCHEMA_MIGRATIONS)).toEqual([]);
      // The tables the migrations make are there, empty.
      expect((await db.query('SELECT count(*)::int AS n FROM messages')).rows).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
  });

  it('a new data directory starts from the dump and keeps what it writes; one holding a cluster is opened as it is', async () => {
    const dataDir = join(dir, 'new-data-dir');
    const warnings: string[] = [];
    const db = await openDb({ dataDir, storeTemplate: marked, warn: (message) => warnings.push(message) });
    try {
      expect((await db.query<{ v: string }>('SELECT v FROM marker')).rows).toEqual([{ v: 'from the dump' }]);
      await db.query("INSERT INTO marker VALUES ('written')");
    } finally {
      await db.close();
    }
    // Opened again, with another template (one without the table): the directory's own cluster.
    const again = await openDb({
      dataDir,
      storeTemplate: inject('pgliteTemplate'),
      warn: (message) => warnings.push(message),
    });
    try {
      expect((await again.query<{ v: string }>('SELECT v FROM marker ORDER BY v')).rows).toEqual([
        { v: 'from the dump' },
        { v: 'written' },
      ]);
    } finally {
      await again.close();
    }
    expect(warnings).toEqual([]);
  });

  it('a template that does not load leaves a new data directory to the usual start, with a warning', async () => {
    const junk = join(dir, 'junk-for-dir.tar');
    await writeFile(junk, 'not a tar file');
    const dataDir = join(dir, 'junk-data-dir');
    const warnings: string[] = [];
    const db = await openDb({ dataDir, storeTemplate: junk, warn: (message) => warnings.push(message) });
    try {
      await db.query('CREATE TABLE kept (v int)');
      await db.query('INSERT INTO kept VALUES (7)');
    } finally {
      await db.close();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(junk);
    expect(warnings[0]).toContain(dataDir);
    const again = await openDb({ dataDir });
    try {
      expect((await again.query<{ v: number }>('SELECT v FROM kept')).rows).toEqual([{ v: 7 }]);
    } finally {
      await again.close();
    }
  });
});

describe('in-memory stores kept for reuse (reuseStores, the test suite’s services)', () => {
  const open = (storeTemplate: string) =>
    openDb({ databaseUrl: 'memory://', storeTemplate, reuseStores: true });

  it('a closed store is emptied and taken by the next: nothing of it is seen, its migrations stay', async () => {
    const template = inject('pgliteSchemaTemplate');
    const first = await open(template);
    await first.query("INSERT INTO companies (id, name) VALUES ('kept-co', 'Kept')");
    const spares = spareStoreCount(template);
    // Closed twice (the second waits for the first): kept once, or two stores would share it.
    await Promise.all([first.close(), first.close()]);
    await first.close();
    expect(spareStoreCount(template)).toBe(spares + 1);
    // Closed, it refuses what it is asked: its PGlite serves the next store.
    await expect(first.query('SELECT 1')).rejects.toThrow(/closed/);
    await expect(first.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toThrow(/closed/);
    const second = await open(template);
    try {
      expect(spareStoreCount(template)).toBe(spares);
      expect((await second.query('SELECT id FROM companies')).rows).toEqual([]);
      // Nothing left for a start to apply, as on a store just loaded.
      expect(await migrate(second, SCHEMA_MIGRATIONS)).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('a store whose schema changed is closed, not kept; so is one from a template holding rows', async () => {
    const template = inject('pgliteSchemaTemplate');
    const changed = await open(template);
    await changed.exec(
      `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no'; END $$;
       CREATE TRIGGER refuse BEFORE INSERT ON companies FOR EACH ROW EXECUTE FUNCTION refuse();`,
    );
    const spares = spareStoreCount(template);
    await changed.close();
    expect(spareStoreCount(template)).toBe(spares);
    // A change that keeps every name: another default for a column that had one.
    const redefault = await open(template);
    await redefault.exec("ALTER TABLE charla_migrations ALTER COLUMN applied_at SET DEFAULT '2000-01-01'");
    const sparesNow = spareStoreCount(template);
    await redefault.close();
    expect(spareStoreCount(template)).toBe(sparesNow);
    const next = await open(template);
    try {
      await next.query("INSERT INTO companies (id, name) VALUES ('c', 'C')");
    } finally {
      await next.close();
    }
    // The marked dump holds a row: emptying would lose it, so its stores are never kept.
    const fromMarked = await open(marked);
    await fromMarked.query("INSERT INTO marker VALUES ('later')");
    await fromMarked.close();
    expect(spareStoreCount(marked)).toBe(0);
    const again = await open(marked);
    try {
      expect((await again.query<{ v: string }>('SELECT v FROM marker')).rows).toEqual([
        { v: 'from the dump' },
      ]);
    } finally {
      await again.close();
    }
  });
});
