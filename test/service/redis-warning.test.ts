/**
 * A process on PostgreSQL without REDIS_URL sends live messages only to its own widgets: legitimate
 * for one process, silent trouble for several. It starts all the same, with one warning line
 * (server/config.ts, configWarnings); on PGlite, or with REDIS_URL, nothing is said.
 */
import { describe, expect, it } from 'vitest';
import { configFromEnv, configWarnings } from '../../server/config.ts';
import { ON_POSTGRES, storageFor, until } from './helpers/http.ts';
import { startMain } from './helpers/main-process.ts';

const WARNING = /REDIS_URL is not set: .*fine for one process; several processes need REDIS_URL/;

const warningsOf = (env: NodeJS.ProcessEnv) => configWarnings(configFromEnv({ PORT: '0', ...env }));

describe('configWarnings', () => {
  it('warns of PostgreSQL without REDIS_URL, and of nothing else about Redis', () => {
    expect(
      warningsOf({ DATABASE_URL: 'postgres://u@db.example:5432/charla' }).filter((w) => WARNING.test(w)),
    ).toHaveLength(1);
    expect(
      warningsOf({ DATABASE_URL: 'PostgreSQL://u@db.example/charla' }).some((w) => WARNING.test(w)),
    ).toBe(true);
    expect(
      warningsOf({
        DATABASE_URL: 'postgres://u@db.example/charla',
        REDIS_URL: 'redis://r.example:6379',
      }).some((w) => WARNING.test(w)),
    ).toBe(false);
    for (const DATABASE_URL of ['memory://', '', undefined])
      expect(warningsOf({ DATABASE_URL }).some((w) => /REDIS_URL/.test(w))).toBe(false);
  });
});

/** Runs `node --import tsx server/main.ts` until it says it is running, stops it, and answers its log lines. */
async function logOfStart(env: NodeJS.ProcessEnv): Promise<Array<{ level: number; msg: string }>> {
  const main = startMain(env);
  // Stopped as soon as it says it is running: what it logged by then is the start's.
  await until(async () => main.out().includes('Charla is running') || main.child.exitCode !== null, 60_000);
  if (main.child.exitCode === null) main.child.kill('SIGTERM');
  const { code } = await main.exited;
  const out = main.out();
  expect(out, out).toContain('Charla is running');
  expect(code).toBe(0);
  return out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

describe.runIf(ON_POSTGRES)('a process on PostgreSQL', () => {
  // Two starts of a process, each allowed a minute (a start took over 30 s once on a busy machine).
  it(
    'without REDIS_URL starts and logs one warning; with REDIS_URL, none',
    { timeout: 150_000 },
    async () => {
      const { databaseUrl, drop } = await storageFor({});
      try {
        const alone = await logOfStart({ DATABASE_URL: databaseUrl });
        const said = alone.filter((line) => WARNING.test(line.msg));
        expect(said).toHaveLength(1);
        expect(said[0]?.level).toBe(40);

        const redisUrl = process.env['REDIS_URL'];
        if (redisUrl) {
          const fanOut = await logOfStart({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl });
          expect(fanOut.filter((line) => /REDIS_URL/.test(line.msg))).toEqual([]);
        }
      } finally {
        await drop();
      }
    },
  );
});

describe('a process on PGlite', () => {
  it('says nothing of REDIS_URL', { timeout: 90_000 }, async () => {
    const log = await logOfStart({ DATABASE_URL: 'memory://' });
    expect(log.filter((line) => /REDIS_URL/.test(line.msg))).toEqual([]);
  });
});
