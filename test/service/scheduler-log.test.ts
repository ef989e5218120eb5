/**
 * PostgreSQL only: the campaign scheduler during a database outage (server/routes/index.ts). Its
 * ticks fail every interval; the log says so once, as a warning without a stack, and once more
 * when the database answers again; it logged an error with its whole stack at every tick.
 */
import { createServer, connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { DATABASE_URL, ON_POSTGRES, PUBLIC_BASE, storageFor, until } from './helpers/http.ts';

/** A TCP relay to PostgreSQL: `refuse()` ends its connections and turns new ones away, `restore()` relays again. */
async function relayTo(target: URL) {
  let refusing = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    client.on('error', () => {});
    if (refusing) return void client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        open.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    for (const s of open) s.destroy();
  };
  return {
    port: (server.address() as { port: number }).port,
    refuse: () => {
      refusing = true;
      cut();
    },
    restore: () => {
      refusing = false;
    },
    close: () => {
      cut();
      server.close();
    },
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Line {
  level: number;
  msg: string;
  err?: unknown;
}
const WARN = 40;
const INFO = 30;

describe.runIf(ON_POSTGRES)('the campaign scheduler while the database is out of reach', () => {
  it('warns once, without a stack, and says when the database answers again', async () => {
    const relay = await relayTo(new URL(DATABASE_URL));
    cleanups.push(() => relay.close());
    const { databaseUrl, drop } = await storageFor({ databaseUrl: DATABASE_URL });
    cleanups.push(drop);
    const through = new URL(databaseUrl!);
    through.hostname = '127.0.0.1';
    through.port = String(relay.port);
    const lines: Line[] = [];
    // fastify's own logger, written to this file instead of stdout.
    const logger = {
      level: 'info',
      stream: { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
    };
    const app = await buildApp({
      publicBaseUrl: PUBLIC_BASE,
      scheduler: true,
      schedulerIntervalMs: 100,
      logger,
      databaseUrl: through.toString(),
    });
    cleanups.push(() => app.close());
    await app.ready();
    const scheduler = () => lines.filter((l) => l.msg.startsWith('campaign scheduler'));

    const cutAt = lines.length;
    relay.refuse();
    // Ticks every 100 ms for 3 s: some thirty failures.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const during = lines.slice(cutAt);
    expect(during.filter((l) => l.level > WARN)).toEqual([]);
    const said = scheduler();
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ level: WARN });
    expect(said[0]!.msg).toMatch(
      /^campaign scheduler: the database is out of reach \(.*\); its ticks fail until it is back/,
    );
    expect(said[0]!.err).toBeUndefined();

    relay.restore();
    const back = await until(async () => scheduler()[1], 15_000);
    expect(back).toMatchObject({ level: INFO });
    expect(back.msg).toMatch(
      /^campaign scheduler: the database answers again after \d+ s \(\d+ ticks failed meanwhile\)$/,
    );
    const failed = Number(/\((\d+) ticks/.exec(back.msg)?.[1]);
    expect(failed).toBeGreaterThan(10);
    expect(scheduler()).toHaveLength(2);
  });
});
