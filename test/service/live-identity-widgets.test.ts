/**
 * Identity verification holds across the widgets of a company. Users, rooms
 * and membership are per company, so a user id proven once with its userHash
 * on a widget that verifies identities must be proven on every widget of the
 * company: another widget (one without verification, like the demo group
 * widget) must not open that user's rooms, post as them or rename them.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath, type ErrorBody, type Room } from '../../types/index.ts';
import { emitAck, sendText, startLive, waitFor, type LiveHarness } from './helpers/live.ts';
import { hashOf, openSession } from './helpers/identity.ts';

type Created = Awaited<ReturnType<LiveHarness['createWidget']>>;

/** A group widget (as the demo's) with these credentials. */
const createWidget = (h: LiveHarness, credentials: { identityVerification?: boolean }) =>
  h.createWidget({ type: 'group', credentials });

/** The refusal every identity failure answers: 401 UNAUTHORIZED with the error body, naming the userHash. */
function expectRefused(res: { status: number; body: ErrorBody }, what: string): void {
  expect(res.status, what).toBe(401);
  expect(res.body.status).toBe(0);
  expect(res.body.statusMessage).toBe('failed');
  expect(res.body.error.key).toBe('UNAUTHORIZED');
  expect(String(res.body.message)).toMatch(/userHash/);
}

const namesOf = async (h: LiveHarness, userId: string) =>
  (
    await h.app.charla.db.query<{ names: string | null }>('SELECT names FROM live_users WHERE id = $1', [
      userId,
    ])
  ).rows[0]?.names;

const roomsOfUser = async (h: LiveHarness, userId: string) =>
  (
    await h.app.charla.db.query<{ room_id: string }>(
      'SELECT room_id FROM room_members WHERE user_id = $1 ORDER BY room_id',
      [userId],
    )
  ).rows.map((r) => r.room_id);

describe('a verified user id on the other widgets of its company', () => {
  let h: LiveHarness;
  let verified: Created;
  let plain: Created;

  beforeAll(async () => {
    h = await startLive();
    verified = await createWidget(h, { identityVerification: true });
    plain = await createWidget(h, {});
  });
  afterAll(async () => {
    await h?.close();
  });

  it('needs the userHash of that widget’s key: without it, nothing is read, posted, stored or renamed', async () => {
    const victim = `victim-${randomUUID()}`;
    const friend = `friend-${randomUUID()}`;
    const own = await openSession(h, {
      apiKey: verified.apiKey,
      userId: victim,
      userHash: hashOf(verified.identitySecret, victim),
      userNames: 'Victoria',
    });
    expect(own.status).toBe(200);
    const direct = (await (
      await h.call('POST', ROUTES.widgetDirectRoom, { token: own.body.token, body: { id: friend } })
    ).json()) as Room;
    const socket = await h.connect(own.body.token);
    expect((await sendText(socket, direct.id, 'solo para mi amigo')).ok).toBe(true);
    const roomsBefore = await roomsOfUser(h, victim);

    const attempts: [string, Record<string, unknown>][] = [
      ['no hash', { apiKey: plain.apiKey, userId: victim, userNames: 'Atacante' }],
      [
        'a wrong hash',
        { apiKey: plain.apiKey, userId: victim, userHash: 'a'.repeat(64), userNames: 'Atacante' },
      ],
      // The hash the verified widget's page holds is made with another key's secret.
      [
        'the other widget’s hash',
        { apiKey: plain.apiKey, userId: victim, userHash: hashOf(verified.identitySecret, victim) },
      ],
    ];
    for (const [what, body] of attempts) expectRefused(await openSession(h, body), what);
    // Stored nothing: no bot room with the other widget's bot, the same rooms, the same name.
    expect(await roomsOfUser(h, victim)).toEqual(roomsBefore);
    expect(await namesOf(h, victim)).toBe('Victoria');

    // The user themselves, with the hash of this widget's key, is welcome on it.
    const there = await openSession(h, {
      apiKey: plain.apiKey,
      userId: victim,
      userHash: hashOf(plain.identitySecret, victim),
    });
    expect(there.status).toBe(200);
    const listed = (await (await h.call('GET', ROUTES.widgetRooms, { token: there.body.token })).json()) as {
      rooms: Room[];
    };
    expect(listed.rooms.map((r) => r.id)).toContain(direct.id);

    // Everyone else on that widget opens sessions as before: a new visitor, an id never verified.
    const anonymous = await openSession(h, { apiKey: plain.apiKey });
    expect(anonymous.status).toBe(200);
    const unverified = `plain-${randomUUID()}`;
    expect((await openSession(h, { apiKey: plain.apiKey, userId: unverified })).status).toBe(200);
    expect(
      (await openSession(h, { apiKey: plain.apiKey, userId: unverified, userNames: 'Otra' })).status,
    ).toBe(200);
    expect(await namesOf(h, unverified)).toBe('Otra');
  });

  it('ends the sessions opened without its hash before it became verified: calls, sockets and new connections', async () => {
    const userId = `later-${randomUUID()}`;
    const early = await openSession(h, { apiKey: plain.apiKey, userId });
    expect(early.status).toBe(200);
    const socket = await h.connect(early.body.token);
    let expired = false;
    socket.on('session:expired', () => (expired = true));
    expect((await emitAck(socket, 'room:read', { roomId: early.body.botRoomId })).ok).toBe(true);

    const proven = await openSession(h, {
      apiKey: verified.apiKey,
      userId,
      userHash: hashOf(verified.identitySecret, userId),
    });
    expect(proven.status).toBe(200);

    await waitFor(() => expired && !socket.connected, 5000, 'the early socket to be closed');
    const call = await h.call('GET', routePath(ROUTES.widgetRoom, { roomId: early.body.botRoomId }), {
      token: early.body.token,
    });
    expect(call.status).toBe(401);
    const refused = await h.connect(early.body.token).then(
      () => null,
      (err: { data?: ErrorBody }) => err.data,
    );
    expect(refused?.error.key).toBe('UNAUTHORIZED');
    // The proven session goes on.
    const own = await h.connect(proven.body.token);
    expect((await emitAck(own, 'room:read', { roomId: proven.body.botRoomId })).ok).toBe(true);
  });
});

describe('the verified mark', () => {
  const dir = mkdtempSync(join(tmpdir(), 'charla-verified-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('survives a restart', async () => {
    const storage = { databaseUrl: undefined, dataDir: dir };
    const first = await startLive(storage);
    let verified: Created;
    let plain: Created;
    const userId = `kept-${randomUUID()}`;
    try {
      verified = await createWidget(first, { identityVerification: true });
      plain = await createWidget(first, {});
      const proven = await openSession(first, {
        apiKey: verified.apiKey,
        userId,
        userHash: hashOf(verified.identitySecret, userId),
      });
      expect(proven.status).toBe(200);
    } finally {
      await first.close();
    }
    const second = await startLive(storage);
    try {
      expectRefused(await openSession(second, { apiKey: plain.apiKey, userId }), 'after the restart');
    } finally {
      await second.close();
    }
  });
});
