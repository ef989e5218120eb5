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
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && running(pid)) {
      throw inUse(path, file, pid);
    }
    await rm(file, { force: true });
  }
  held.add(path);
  return async () => {
    held.delete(path);
    await rm(file, { force: true });
  };
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
