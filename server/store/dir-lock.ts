/**
 * One process per PGlite directory. PGlite has no lock of its own: a second
 * process on the same directory starts, answers, and what it writes is lost
 * (each keeps its own copy in memory and writes it back over the other's).
 * The first process to open a directory writes `charla.lock` there with its
 * pid; another process finding the file with a live pid refuses to start.
 * A lock left by a process that died (kill -9, a crash) names a pid that no
 * longer runs, or this very pid in a new incarnation (pid 1 in a container),
 * or (where /proc tells) a pid another program has been given since, after a
 * reboot: its start time differs from the one written beside the pid. Such a
 * lock is taken over.
 */
import { readFileSync } from 'node:fs';
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
    const { pid, started } = await readLock(file);
    if (pid !== null && pid !== process.pid && running(pid, started)) throw inUse(path, file, pid);
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
    await writeFile(file, `${process.pid}\n${startOf(process.pid) ?? ''}\n`, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** The lock's pid, and the start time written beside it (locks of older versions have none). */
async function readLock(file: string): Promise<{ pid: number | null; started: string | null }> {
  const [first, second] = (await readFile(file, 'utf8').catch(() => '')).split('\n');
  const pid = Number(first?.trim());
  return { pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null, started: second?.trim() || null };
}

const pidIn = async (file: string): Promise<number | null> => (await readLock(file)).pid;

/** When a process started, in clock ticks since boot, from /proc (Linux); null where it cannot tell. */
function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from the third: the 22nd is the start time.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
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

/** Whether `pid` runs and is the process that wrote the lock (when its start time was written). */
function running(pid: number, started: string | null = null): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it runs, as another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // The same pid given to another program since (a reboot after a crash): not the lock's writer.
  const now = started === null ? null : startOf(pid);
  return now === null || now === started;
}

function inUse(dir: string, file: string, pid: number): Error {
  return new Error(
    `Another Charla process (pid ${pid}) uses the data directory ${dir}: embedded storage (PGlite) serves one ` +
      'process only. Stop that process, give this one another CHARLA_DATA_DIR, or use DATABASE_URL (PostgreSQL) ' +
      `for several processes. If no such process runs, delete ${file}.`,
  );
}
