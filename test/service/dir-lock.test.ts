/**
 * Embedded storage serves one process (server/store/dir-lock.ts): a second
 * opening of a PGlite directory that a live process holds is refused, naming
 * that process and what to do; a lock whose process is gone is taken over,
 * and closing the store lets the directory be opened again.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openDb } from '../../server/store/db.ts';

/** The schema's dump (made once per run): a new cluster loads it instead of running initdb (seconds each). */
const TEMPLATE = inject('pgliteSchemaTemplate');

const dir = mkdtempSync(join(tmpdir(), 'charla-dir-lock-'));
const lockFile = join(dir, 'charla.lock');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function roundTrip(db: Awaited<ReturnType<typeof openDb>>, value: string) {
  await db.query('CREATE TABLE IF NOT EXISTS t (v text)');
  await db.query('INSERT INTO t (v) VALUES ($1)', [value]);
  return (await db.query<{ v: string }>('SELECT v FROM t ORDER BY v')).rows.map((r) => r.v);
}

describe('one process per PGlite directory', () => {
  it('refuses a second opening while the first is open, and opens again once it is closed', async () => {
    const first = await openDb({ dataDir: dir });
    expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(process.pid));
    await expect(openDb({ dataDir: dir })).rejects.toThrow(
      new RegExp(`Another Charla process \\(pid ${process.pid}\\) uses the data directory .*DATABASE_URL`),
    );
    expect(await roundTrip(first, 'a')).toEqual(['a']);
    await first.close();

    const second = await openDb({ dataDir: dir });
    expect(await roundTrip(second, 'b')).toEqual(['a', 'b']);
    await second.close();
  });

  it('refuses while another live process holds the lock; takes it over once that process is gone', async () => {
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => other.once('exit', resolve));
    try {
      writeFileSync(lockFile, `${other.pid}\n`);
      await expect(openDb({ dataDir: dir })).rejects.toThrow(
        `Another Charla process (pid ${other.pid}) uses the data directory`,
      );
      expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(other.pid));
    } finally {
      other.kill('SIGKILL');
      await exited;
    }
    // Its process died without releasing the lock (kill -9): the next start takes it over.
    const db = await openDb({ dataDir: dir });
    expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(await roundTrip(db, 'c')).toEqual(['a', 'b', 'c']);
    await db.close();
    expect(() => readFileSync(lockFile)).toThrow(/ENOENT/);
  });

  it.runIf(process.platform === 'linux')(
    'takes over a lock whose pid another program has been given since (a reboot after a crash), by its start time',
    async () => {
      const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      const exited = new Promise((resolve) => other.once('exit', resolve));
      try {
        const stat = readFileSync(`/proc/${other.pid}/stat`, 'utf8');
        const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
        // Written by that very process (its start time): it holds the directory.
        writeFileSync(lockFile, `${other.pid}\n${started}\n`);
        await expect(openDb({ dataDir: dir })).rejects.toThrow(`Another Charla process (pid ${other.pid})`);
        // Written by a process that had the same pid before (another start time): stale, taken over.
        writeFileSync(lockFile, `${other.pid}\n${Number(started) - 1000}\n`);
        const db = await openDb({ dataDir: dir });
        expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(process.pid));
        await db.close();
      } finally {
        other.kill('SIGKILL');
        await exited;
      }
    },
  );
});

describe('a data directory that holds files but no database', () => {
  it('is refused, naming what it holds, and nothing in it is written over: a cluster that lost PG_VERSION, a directory of other files', async () => {
    const lost = mkdtempSync(join(tmpdir(), 'charla-no-version-'));
    const others = mkdtempSync(join(tmpdir(), 'charla-other-files-'));
    const empty = mkdtempSync(join(tmpdir(), 'charla-empty-'));
    try {
      const db = await openDb({ dataDir: lost, storeTemplate: TEMPLATE });
      expect(await roundTrip(db, 'kept')).toEqual(['kept']);
      await db.close();
      const version = readFileSync(join(lost, 'PG_VERSION'));
      unlinkSync(join(lost, 'PG_VERSION'));
      const before = readdirSync(lost).sort();
      await expect(openDb({ dataDir: lost, storeTemplate: TEMPLATE })).rejects.toThrow(
        /holds files \(.*base.*\) but no database \(no PG_VERSION\): not starting.*CHARLA_DATA_DIR/,
      );
      expect(readdirSync(lost).sort()).toEqual(before);
      expect(existsSync(join(lost, 'PG_VERSION'))).toBe(false);
      expect(existsSync(join(lost, 'charla.lock'))).toBe(false);
      // The file put back, it opens with what it held.
      writeFileSync(join(lost, 'PG_VERSION'), version);
      const again = await openDb({ dataDir: lost, storeTemplate: TEMPLATE });
      expect(await roundTrip(again, 'then')).toEqual(['kept', 'then']);
      await again.close();

      writeFileSync(join(others, 'important.txt'), 'mine');
      await expect(openDb({ dataDir: others, storeTemplate: TEMPLATE })).rejects.toThrow(/important\.txt/);
      expect(readdirSync(others)).toEqual(['important.txt']);

      // A volume's lost+found and dot files are no cluster's: a new cluster is made beside them.
      mkdirSync(join(empty, 'lost+found'));
      writeFileSync(join(empty, '.gitkeep'), '');
      const fresh = await openDb({ dataDir: empty, storeTemplate: TEMPLATE });
      expect(await roundTrip(fresh, 'new')).toEqual(['new']);
      await fresh.close();
      expect(existsSync(join(empty, '.gitkeep'))).toBe(true);
      expect(existsSync(join(empty, 'charla.making'))).toBe(false);
    } finally {
      for (const d of [lost, others, empty]) rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('a first start cut short', () => {
  it('is made again by the next start: what the unfinished making left goes (its marker says so), PG_VERSION written or not', async () => {
    for (const leftover of [['pg_wal'], ['pg_wal', 'base', 'global', 'PG_VERSION']]) {
      const dir = mkdtempSync(join(tmpdir(), 'charla-cut-first-'));
      try {
        // As a start killed while PGlite wrote the cluster's files leaves it.
        writeFileSync(join(dir, 'charla.making'), '12345\n');
        for (const name of leftover)
          if (name === 'PG_VERSION') writeFileSync(join(dir, name), '17\n');
          else mkdirSync(join(dir, name, 'half'), { recursive: true });
        const db = await openDb({ dataDir: dir, storeTemplate: TEMPLATE });
        expect(await roundTrip(db, 'made')).toEqual(['made']);
        await db.close();
        expect(existsSync(join(dir, 'charla.making'))).toBe(false);
        expect(existsSync(join(dir, 'pg_wal', 'half'))).toBe(false);
        // Made whole: the next start opens it with its rows.
        const again = await openDb({ dataDir: dir, storeTemplate: TEMPLATE });
        expect(await roundTrip(again, 'kept')).toEqual(['kept', 'made']);
        await again.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
