/**
 * One process per PGlite directory. PGlite has no lock of its own: a second
 * process on the same directory starts, answers, and what it writes is lost
 * (each keeps its own copy in memory and writes it back over the other's).
 * The first process to open a directory writes `charla.lock` there with its
 * pid; another process finding the file with a live pid refuses to start.
 * A lock left by a process that died (kill -9, a crash) names a pid that no
 * longer runs, or this very pid in a new incarnation (pid 1 in a container),
 * and is taken over.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The directories this process holds, by absolute path. */
const held = new Set<string>();

/** Takes the directory's lock or throws saying who holds it; answers its release. */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const path = resolve(dir);
  const file = join(path, 'charla.lock');
  if (held.has(path)) throw inUse(path, file, process.pid);
  await mkdir(path, { recursive: true });
  for (;;) {
    if (await create(file)) break;
    const pid = await pidIn(file);
    if (pid !== null && pid !== process.pid && running(pid)) throw inUse(path, file, pid);
    await takeOver(file, pid, join(path, 'charla.lock.takeover'));
  }
  held.add(path);
  return async () => {
    held.delete(path);
    await rm(file, { force: true });
  };
}

/** Writes `file` with this pid unless it exists; answers whether it did. */
async function create(file: string): Promise<boolean> {
  try {
    await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

async function pidIn(file: string): Promise<number | null> {
  const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Deletes a dead process's lock, one process at a time: two processes starting together after a
 * crash would otherwise both read the dead pid, and the later one delete the lock the earlier one
 * had just taken. Under the takeover guard, the lock is deleted only if it still names that pid.
 * A guard left by a process that died taking over is itself taken over.
 */
async function takeOver(file: string, stale: number | null, guard: string): Promise<void> {
  if (!(await create(guard))) {
    const holder = await pidIn(guard);
    if (holder === null || holder === process.pid || !running(holder)) await rm(guard, { force: true });
    else await new Promise((resolve) => setTimeout(resolve, 20));
    return;
  }
  try {
    // A lock without a pid may be one being written this instant: it gets a moment to be whole.
    if (stale === null) await new Promise((resolve) => setTimeout(resolve, 50));
    if ((await pidIn(file)) === stale) await rm(file, { force: true });
  } finally {
    await rm(guard, { force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUse(dir: string, file: string, pid: number): Error {
  return new Error(
    `Another Charla process (pid ${pid}) uses the data directory ${dir}: embedded storage (PGlite) serves one ` +
      'process only. Stop that process, give this one another CHARLA_DATA_DIR, or use DATABASE_URL (PostgreSQL) ' +
      `for several processes. If no such process runs, delete ${file}.`,
  );
}
