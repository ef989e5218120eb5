/**
 * A visitor on a slow or flaky link: the widget's first connection fails for want of the network
 * (the session request past requestTimeoutMs, or refused at the TCP level), with nothing in its
 * outbox. It tries again by itself, 1 s doubling, and is connected once the link allows, without
 * another connect() from the page or a click (it stayed in `error` for good before).
 */
import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

const live = liveWidgets();

/**
 * A TCP relay to the service that can hold new connections without a word (`stall`), refuse them
 * (`refuse`: closed at once), or let them through (`open`).
 */
async function relay(targetPort: number) {
  let mode: 'stall' | 'refuse' | 'open' = 'open';
  let cutOff = 0;
  const held = new Set<Socket>();
  const all = new Set<Socket>();
  const server: Server = createServer((client) => {
    all.add(client);
    client.on('close', () => all.delete(client));
    client.on('error', () => {});
    if (mode !== 'open') cutOff++;
    if (mode === 'refuse') return void client.destroy();
    if (mode === 'stall') {
      held.add(client);
      client.on('close', () => held.delete(client));
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    upstream.on('error', () => {});
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    /** Connections held or refused so far. */
    cutOff: () => cutOff,
    set(next: typeof mode) {
      mode = next;
      if (next !== 'stall') for (const s of held) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of all) s.destroy();
      }),
  };
}

const relays: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const r of relays) await r.close();
});

describe('a first connection that the network did not let through', () => {
  for (const [how, mode, key] of [
    ['a session request past requestTimeoutMs', 'stall', 'TIMEOUT'],
    ['a service out of reach', 'refuse', 'NETWORK_ERROR'],
  ] as const) {
    it(`is made by itself once the link allows, nothing waiting (${how})`, async () => {
      const port = Number(new URL(live.h.baseUrl).port);
      const r = await relay(port);
      relays.push(r);
      r.set(mode);
      const w = live.widget({ userId: `slow-${randomUUID()}`, baseUrl: r.url, requestTimeoutMs: 400 });
      const states: string[] = [];
      w.on('connection', (d) => states.push(d.state));
      const errors: string[] = [];
      w.on('error', (d) => errors.push(d.error.key));
      const failed = await w.connect().then(
        () => null,
        (err: unknown) => err as { key?: string },
      );
      expect(failed?.key).toBe(key);
      expect(w.stores.$connection.get()).toBe('error');
      // Still cut for a while: it keeps trying without a word from the page, 1 s, then 2 s later
      // (not in a tight loop): one or two more tries in these 3.5 s.
      const before = r.cutOff();
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      expect(r.cutOff() - before).toBeGreaterThanOrEqual(1);
      expect(r.cutOff() - before).toBeLessThanOrEqual(3);
      // Its own tries change nothing on the page: still `error` throughout (no `connecting` in
      // between to take the panel's Retry from under a keyboard user), the error said once.
      expect(states).toEqual(['connecting', 'error']);
      expect(errors).toEqual([key]);
      r.set('open');
      await waitFor(
        () => w.stores.$connection.get() === 'connected',
        15_000,
        'connected once the link allows',
      );
      const sent = await w.sendMessage({ type: 'TEXT', text: 'por fin' });
      expect(sent.seq).toBeTypeOf('number');
      expect(states.at(-1)).toBe('connected');
    }, 30_000);
  }
});
