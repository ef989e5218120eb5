/**
 * Vitest global setup of the projects that start services (service, e2e): once per run, a
 * dump of a new PGlite cluster, which every in-memory store the run's services open starts
 * from (server/store/db.ts, `storeTemplate`) instead of making a cluster of its own. Making
 * one takes PGlite a second or two (initdb); loading the dump, about half a second.
 * Test files reach the dump's path with `inject('pgliteTemplate')`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The path of the run's PGlite cluster dump. */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'charla-pglite-'));
  const file = join(dir, 'cluster.tar');
  const lite = new PGlite();
  await lite.waitReady;
  const dump = await lite.dumpDataDir('none');
  await lite.close();
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return () => rm(dir, { recursive: true, force: true });
}
