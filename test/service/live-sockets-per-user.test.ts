/**
 * Live connections per user (config socketsPerUser, CHARLA_SOCKETS_PER_USER): at most that many
 * sockets of one widget user at once on a process; one more is refused in its handshake as 429
 * RATE_LIMITED with when to try again, other users are not held, a socket that ends gives its
 * place back, handshakes arriving together cannot pass the limit, and a widget refused so
 * connects by itself once a place is free. Real service, real sockets, real storage; the limit
 * is 3 here so it is quick to reach.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../types/index.ts';
import { configFromEnv, defaultConfig } from '../../server/config.ts';
import { TOO_MANY_SOCKETS_RETRY_MS } from '../../server/live/gateway.ts';
import { liveOf } from '../../server/live/index.ts';
import { waitFor, type ClientSocket } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

const LIMIT = 3;
const live = liveWidgets({ live: { socketsPerUser: LIMIT } });

async function session(userId = `spu-${randomUUID()}`) {
  const s = await live.h.session(live.apiKey, userId);
  return { userId, token: s.token, roomId: s.botRoomId };
}

/** What a refused handshake said (a handshake that connects fails the test). */
async function refusal(token: string): Promise<ErrorBody> {
  const err = await live.h.connect(token).then(
    (socket) => {
      socket.close();
      throw new Error('expected the handshake to be refused');
    },
    (e: Error & { data?: ErrorBody }) => e,
  );
  expect(err.data, err.message).toBeDefined();
  return err.data!;
}

function expectTooMany(body: ErrorBody): void {
  expect(body).toMatchObject({ error: { code: 'E0429', key: 'RATE_LIMITED' } });
  expect(body.data['retryAfterMs']).toBe(TOO_MANY_SOCKETS_RETRY_MS);
  expect(String(body.message)).toContain(`${LIMIT} at most`);
}

/** The service's sockets of a user, as the gateway sees them. */
function socketsOf(userId: string) {
  const io = liveOf(live.h.app).io;
  return [...io.sockets.sockets.values()].filter((s) => s.data.userId === userId);
}

describe('live connections per user', () => {
  it(`takes ${LIMIT} sockets of one user, refuses one more as RATE_LIMITED, and holds no other user`, async () => {
    const u = await session();
    const open: ClientSocket[] = [];
    for (let i = 0; i < LIMIT; i++) open.push(await live.h.connect(u.token));
    expectTooMany(await refusal(u.token));
    expect(socketsOf(u.userId)).toHaveLength(LIMIT);

    // Another user of the same widget, from the same address, is not held.
    const v = await session();
    const other = await live.h.connect(v.token);
    expect(other.connected).toBe(true);

    // A socket that ends gives its place back (the service may see the end a moment later).
    open.shift()!.close();
    await waitFor(() => socketsOf(u.userId).length === LIMIT - 1, 5000, 'the closed socket to end');
    const again = await live.h.connect(u.token);
    expect(again.connected).toBe(true);
    expectTooMany(await refusal(u.token));
  });

  it('lets no more than the limit through when many handshakes arrive together', async () => {
    const u = await session();
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => live.h.connect(u.token)));
    const connected = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(connected).toHaveLength(LIMIT);
    expect(refused).toHaveLength(12 - LIMIT);
    for (const r of refused) expectTooMany((r.reason as { data: ErrorBody }).data);
    expect(socketsOf(u.userId)).toHaveLength(LIMIT);
  });

  it('gives the place back of a socket the service closed; a handshake refused for another reason takes none', async () => {
    const u = await session();
    const open: ClientSocket[] = [];
    for (let i = 0; i < LIMIT; i++) open.push(await live.h.connect(u.token));
    // The service ends one (as a shutdown or a flood would).
    socketsOf(u.userId)[0]!.disconnect(true);
    await waitFor(() => socketsOf(u.userId).length === LIMIT - 1, 5000, 'the socket to end');
    const replaced = await live.h.connect(u.token);
    expect(replaced.connected).toBe(true);
    // Handshakes refused before they are counted (a bad origin here) take no place: once every
    // socket has ended, the whole limit is open again (the check after the loop below).
    for (let i = 0; i < 5; i++) {
      await live.h.connect(u.token, { origin: 'https://not-allowed.example' }).catch(() => undefined);
    }
    expectTooMany(await refusal(u.token));
    for (const s of open) s.close();
    replaced.close();
    await waitFor(() => socketsOf(u.userId).length === 0, 5000, 'every socket to end');
    const fresh: ClientSocket[] = [];
    for (let i = 0; i < LIMIT; i++) fresh.push(await live.h.connect(u.token));
    expect(fresh.every((s) => s.connected)).toBe(true);
  });

  it('a widget refused for too many connections of its user connects by itself once one ends', async () => {
    const u = await session();
    const open: ClientSocket[] = [];
    for (let i = 0; i < LIMIT; i++) open.push(await live.h.connect(u.token));
    const widget = live.widget({ userId: u.userId });
    const errors: string[] = [];
    widget.on('error', (e) => errors.push(e.error.key));
    const first = widget.connect().then(
      () => 'connected',
      (e: { key?: string }) => e.key ?? 'rejected',
    );
    await waitFor(() => errors.includes('RATE_LIMITED'), 10_000, 'the widget to be refused');
    expect(socketsOf(u.userId)).toHaveLength(LIMIT);

    open.pop()!.close();
    await waitFor(
      () => socketsOf(u.userId).length === LIMIT && widget.stores.$connection.get() === 'connected',
      TOO_MANY_SOCKETS_RETRY_MS * 4,
      'the widget to connect by itself',
    );
    await first;
    const sent = await widget.sendMessage({ roomId: u.roomId, type: 'TEXT', text: 'por fin dentro' });
    expect(sent).toMatchObject({ type: 'TEXT', text: 'por fin dentro' });

    // Connected, dropped, and its place taken meanwhile: it comes back once a place is free again.
    const taker = await session(u.userId);
    const mine = socketsOf(u.userId).find((s) => !open.some((o) => o.id === s.id))!;
    mine.conn.close();
    // Taken by another tab of the same user before the widget is back.
    let squatter: ClientSocket | undefined;
    for (const end = Date.now() + 5000; !squatter && Date.now() < end;) {
      squatter = await live.h.connect(taker.token).catch(() => undefined);
    }
    expect(squatter, 'the freed place taken').toBeDefined();
    await waitFor(() => errors.filter((k) => k === 'RATE_LIMITED').length >= 2, 15_000, 'a second refusal');
    squatter!.close();
    await waitFor(
      () => widget.stores.$connection.get() === 'connected',
      TOO_MANY_SOCKETS_RETRY_MS * 6,
      'the widget to come back',
    );
  });

  it('reads CHARLA_SOCKETS_PER_USER, 50 when unset, and refuses what is not a positive whole number', () => {
    expect(defaultConfig().socketsPerUser).toBe(50);
    expect(configFromEnv({}).socketsPerUser).toBe(50);
    expect(configFromEnv({ CHARLA_SOCKETS_PER_USER: '7' }).socketsPerUser).toBe(7);
    for (const bad of ['0', '-1', '2.5', 'many']) {
      expect(() => configFromEnv({ CHARLA_SOCKETS_PER_USER: bad })).toThrow(
        `CHARLA_SOCKETS_PER_USER must be a positive whole number of connections (it is "${bad}")`,
      );
    }
  });
});
