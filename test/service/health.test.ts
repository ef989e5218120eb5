/**
 * GET /health (liveness) and GET /ready (readiness), server/routes/health.ts: no credentials,
 * never cached; /ready answers 503 once the process is stopping (SIGTERM: at once, and for
 * CHARLA_SHUTDOWN_DELAY_MS while the rest is still served) and, on PostgreSQL, while the
 * database is down or does not answer within 2 s, while /health stays 200.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { markStopping } from '../../server/routes/health.ts';
import { ON_POSTGRES, startOnDataDir, startServer, until, type Server } from './helpers/http.ts';
import { startMain } from './helpers/main-process.ts';

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) await server.close().catch(() => {});
});

/** A GET without credentials: status, JSON body, Cache-Control. */
async function get(base: string, path: string) {
  const res = await fetch(base + path);
  return { status: res.status, body: await res.json(), cacheControl: res.headers.get('cache-control') };
}

describe('GET /health and GET /ready', () => {
  it('answer 200 without credentials, never cached; /ready 503 once the process is stopping, /health still 200', async () => {
    const server = await startServer();
    servers.push(server);
    expect(await get(server.base, '/health')).toEqual({
      status: 200,
      body: { status: 'ok' },
      cacheControl: 'no-store',
    });
    expect(await get(server.base, '/ready')).toEqual({
      status: 200,
      body: { status: 'ready', process: 'running', database: 'ok' },
      cacheControl: 'no-store',
    });
    // Polled every few seconds by a balancer: never held by a per-address allowance.
    const many = await Promise.all(Array.from({ length: 50 }, () => fetch(`${server.base}/ready`)));
    expect(many.map((r) => r.status)).toEqual(many.map(() => 200));

    markStopping(server.app);
    expect(await get(server.base, '/ready')).toEqual({
      status: 503,
      body: { status: 'unavailable', process: 'stopping', database: 'not checked' },
      cacheControl: 'no-store',
    });
    expect((await get(server.base, '/health')).status).toBe(200);
  });
});

describe('GET /ready on the embedded store with its disk nearly full', () => {
  it('answers 503 "disk-full" while the data directory has under 8 MB free (no write would succeed), 200 again once it has room; /health stays 200', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'charla-ready-disk-'));
    let free = 1024 * 1024 * 1024;
    const asked: string[] = [];
    const { app, baseUrl } = await startOnDataDir(dir, 0, {
      diskFree: async (d) => (asked.push(d), free),
    });
    try {
      expect((await get(baseUrl, '/ready')).body).toEqual({
        status: 'ready',
        process: 'running',
        database: 'ok',
      });
      free = 4 * 1024 * 1024;
      expect(await get(baseUrl, '/ready')).toEqual({
        status: 503,
        body: { status: 'unavailable', process: 'running', database: 'disk-full' },
        cacheControl: 'no-store',
      });
      expect((await get(baseUrl, '/health')).status).toBe(200);
      free = 100 * 1024 * 1024;
      expect((await get(baseUrl, '/ready')).status).toBe(200);
      expect(asked.every((d) => d === dir)).toBe(true);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a process told to stop (SIGTERM)', () => {
  it('answers 503 on /ready at once and keeps serving for CHARLA_SHUTDOWN_DELAY_MS, then exits', async () => {
    const main = startMain({ DATABASE_URL: 'memory://', CHARLA_SHUTDOWN_DELAY_MS: '3000' });
    const { child } = main;
    try {
      const base = await main.baseUrl();
      expect((await get(base, '/ready')).status).toBe(200);
      const signalled = Date.now();
      child.kill('SIGTERM');
      await until(async () => (await fetch(`${base}/ready`)).status === 503, 2_000);
      expect(await get(base, '/ready')).toEqual({
        status: 503,
        body: { status: 'unavailable', process: 'stopping', database: 'not checked' },
        cacheControl: 'no-store',
      });
      // Everything else is still served meanwhile.
      expect((await get(base, '/health')).status).toBe(200);
      expect((await fetch(`${base}/v1/openapi.json`)).status).toBe(200);
      expect((await main.exited).code).toBe(0);
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(3_000);
    } finally {
      main.kill();
    }
  });
});

/**
 * A TCP relay between the service and PostgreSQL that the test can cut: `refuse` closes every
 * relayed connection and turns new ones away; `hold` closes them and leaves new ones hanging
 * unanswered (a host gone from the network); `restore` relays again, held ones included.
 */
async function relayTo(target: URL) {
  let mode: 'relay' | 'refuse' | 'hold' = 'relay';
  const open = new Set<Socket>();
  const held: Socket[] = [];
  const { connect } = await import('node:net');
  const pipe = (socket: Socket) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    open.add(socket).add(upstream);
    for (const s of [socket, upstream]) {
      s.on('error', () => {});
      s.on('close', () => {
        open.delete(s);
        socket.destroy();
        upstream.destroy();
      });
    }
    socket.pipe(upstream).pipe(socket);
  };
  const relay = createServer((socket) => {
    socket.on('error', () => {});
    if (mode === 'relay') pipe(socket);
    else if (mode === 'hold') held.push(socket);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    for (const s of open) s.destroy();
  };
  return {
    port: (relay.address() as { port: number }).port,
    refuse: () => ((mode = 'refuse'), cut()),
    hold: () => ((mode = 'hold'), cut()),
    restore: () => {
      mode = 'relay';
      for (const socket of held.splice(0)) pipe(socket);
    },
    close: () => {
      cut();
      for (const s of held) s.destroy();
      relay.close();
    },
  };
}

describe.runIf(ON_POSTGRES)('/ready on PostgreSQL', () => {
  it('answers 503 "database down" while PostgreSQL refuses or does not answer within 2 s, /health 200 throughout', async () => {
    const target = new URL(process.env['DATABASE_URL'] as string);
    const relay = await relayTo(target);
    const through = new URL(target);
    through.hostname = '127.0.0.1';
    through.port = String(relay.port);
    const server = await startServer({ databaseUrl: through.toString() });
    servers.push(server);
    const down = { status: 'unavailable', process: 'running', database: 'down' };
    try {
      expect((await get(server.base, '/ready')).body).toEqual({
        status: 'ready',
        process: 'running',
        database: 'ok',
      });

      relay.refuse();
      expect(await get(server.base, '/ready')).toEqual({ status: 503, body: down, cacheControl: 'no-store' });
      expect(await get(server.base, '/health')).toEqual({
        status: 200,
        body: { status: 'ok' },
        cacheControl: 'no-store',
      });

      relay.hold();
      const asked = Date.now();
      const [first, second] = await Promise.all([get(server.base, '/ready'), get(server.base, '/ready')]);
      const took = Date.now() - asked;
      expect([first.status, second.status]).toEqual([503, 503]);
      expect(first.body).toEqual(down);
      expect(took).toBeGreaterThanOrEqual(1_900);
      expect(took).toBeLessThan(4_000);
      expect((await get(server.base, '/health')).status).toBe(200);

      relay.restore();
      await until(async () => (await fetch(`${server.base}/ready`)).status === 200, 15_000);
    } finally {
      relay.restore();
      await server.close();
      relay.close();
    }
  });
});
