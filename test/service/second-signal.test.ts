/**
 * A process already shutting down (server/main.ts) that is told to stop again (SIGTERM or SIGINT)
 * stops at once, non-zero, saying so in one line: a shutdown held up (here by a request whose body
 * stopped arriving, which the shutdown waits for up to its grace period; a database that stopped
 * answering holds it likewise) used to keep the process alive whatever the operator sent.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BASIC, until } from './helpers/http.ts';
import { startMain } from './helpers/main-process.ts';

/** A request whose body stops half-way: a shutdown waits for it (up to its 10 s grace). */
async function holdShutdown(base: string): Promise<Socket> {
  const { hostname, port } = new URL(base);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /v1/campaigns HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: ${BASIC}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":',
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  return socket;
}

describe('a second signal while the process shuts down', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`${signal} stops the process at once, non-zero, with one log line`, async () => {
      const main = startMain({ DATABASE_URL: 'memory://' });
      const { child } = main;
      try {
        const base = await main.baseUrl();
        const socket = await holdShutdown(base);

        child.kill(signal);
        // The port closes once the shutdown has begun.
        await until(async () => (await fetch(`${base}/health`).catch(() => null)) === null, 5_000);
        // Still shutting down, held by the request.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(child.exitCode).toBeNull();
        expect(child.signalCode).toBeNull();
        const before = main.out();

        const again = Date.now();
        child.kill(signal);
        const { code, at } = await main.exited;
        expect(at - again).toBeLessThan(2_000);
        expect(code).toBe(signal === 'SIGINT' ? 130 : 143);
        const said = main.out().slice(before.length).trim().split('\n');
        expect(said).toHaveLength(1);
        expect(said[0]).toContain(`${signal} while shutting down: stopping at once`);
        socket.destroy();
      } finally {
        main.kill();
      }
    });

  it('the same signal twice at once (a process-group stop that npm start relays) is one: the shutdown goes on', async () => {
    const main = startMain({ DATABASE_URL: 'memory://' });
    const { child } = main;
    try {
      const base = await main.baseUrl();
      const socket = await holdShutdown(base);

      // Delivered directly and again through npm and tsx, a few ms apart.
      child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 10));
      child.kill('SIGTERM');
      await until(async () => (await fetch(`${base}/health`).catch(() => null)) === null, 5_000);
      // Still shutting down, held by the request: the repeat did not end it.
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(child.exitCode).toBeNull();
      expect(main.out()).not.toContain('while shutting down');
      // A signal sent later is a second one: it stops at once.
      child.kill('SIGTERM');
      expect((await main.exited).code).toBe(143);
      expect(main.out()).toContain('SIGTERM while shutting down: stopping at once');
      socket.destroy();
    } finally {
      main.kill();
    }
  });
});
