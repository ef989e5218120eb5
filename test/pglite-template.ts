/**
 * Vitest global setup of the projects that start services (service, e2e): once per run, two
 * dumps of one new PGlite cluster (as made, and with the service's schema), which the
 * in-memory stores and new data directories of the run's services start from
 * (server/store/db.ts, `storeTemplate`) instead of making a cluster of their own. Making one
 * takes PGlite a second or two (initdb); loading a dump, about half a second.
 * - `inject('pgliteTemplate')`: the new cluster as initdb leaves it, for tests of the
 *   migrations themselves (an older schema, then the rest) and of the store alone.
 * - `inject('pgliteSchemaTemplate')`: the same cluster with the service's schema already made
 *   (every migration of server/schema.ts, applied by the service's own `migrate`), for the
 *   services the tests start: a start then finds nothing to apply (measured: a service start's
 *   CPU about 2.1 s -> 1.9 s, 10 starts of each, alternating). A migration added later and not in
 *   the dump is applied at each start, as it would be in production.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { pgliteDb } from '../server/store/db.ts';
import { migrate } from '../server/store/migrate.ts';
import { SCHEMA_MIGRATIONS } from '../server/schema.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The path of the run's dump of a new PGlite cluster. */
    pgliteTemplate: string;
    /** The path of the run's dump of a PGlite cluster holding the service's schema. */
    pgliteSchemaTemplate: string;
  }
}

async function dumpTo(lite: PGlite, file: string): Promise<void> {
  const dump = await lite.dumpDataDir('none');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'charla-pglite-'));
  const empty = join(dir, 'cluster.tar');
  const schema = join(dir, 'schema.tar');
  const lite = new PGlite();
  await lite.waitReady;
  await dumpTo(lite, empty);
  // The service's own store over this PGlite, so the schema is made as a start would make it.
  const store = pgliteDb(lite);
  await migrate(store, SCHEMA_MIGRATIONS);
  await dumpTo(lite, schema);
  await store.close();
  project.provide('pgliteTemplate', empty);
  project.provide('pgliteSchemaTemplate', schema);
  return () => rm(dir, { recursive: true, force: true });
}
