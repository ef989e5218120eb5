/**
 * New visitors per client address (server/live/new-user-limit.ts): sessions under user ids the
 * company does not know yet, or with none, at most CHARLA_NEW_USERS_PER_HOUR an hour from one
 * address; past it 429 RATE_LIMITED with Retry-After, and nothing stored. Visitors coming back
 * are never held. Here the allowance is 3 an hour.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ROUTES, type ErrorBody } from '../../types/index.ts';
import { configFromEnv } from '../../server/config.ts';
import { NewUserLimits } from '../../server/live/new-user-limit.ts';
import { BASIC } from './helpers/http.ts';
import { waitFor } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

const live = liveWidgets({ live: { newUsersPerHour: 3 } });
const firstUser = `ana-${randomUUID()}`;
const secondUser = `beto-${randomUUID()}`;

async function open(userId?: string) {
  const res = await fetch(live.h.baseUrl + ROUTES.widgetSession, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: live.h.baseUrl },
    body: JSON.stringify({ apiKey: live.apiKey, ...(userId === undefined ? {} : { userId }) }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

/** The hour's allowance spent (by the tests before, or here when a test runs alone). */
async function spendAllowance(): Promise<void> {
  for (let i = 0; i < 4 && (await open(`nobody-${randomUUID()}`)).status === 200; i++);
}

const users = async () =>
  Number(
    (await live.h.app.charla.db.query<{ n: string | number }>('SELECT count(*) AS n FROM live_users'))
      .rows[0]!.n,
  );

describe('new visitors from one address', () => {
  it('are taken up to the hour’s allowance, then 429 with Retry-After and nothing stored; returning ones still come in', async () => {
    const first = firstUser;
    expect((await open(first)).status).toBe(200);
    expect((await open()).status).toBe(200);
    expect((await open(secondUser)).status).toBe(200);
    const before = await users();
    for (const refused of [await open(`carla-${randomUUID()}`), await open()]) {
      expect(refused.status).toBe(429);
      const body = refused.body as ErrorBody & { data: { retryAfterMs: number } };
      expect(body.error).toMatchObject({ code: 'E0429', key: 'RATE_LIMITED' });
      // One new visitor comes back every 20 minutes (3 an hour).
      expect(body.data.retryAfterMs).toBeGreaterThan(0);
      expect(body.data.retryAfterMs).toBeLessThanOrEqual(20 * 60_000);
      expect(Number(refused.retryAfter)).toBe(Math.ceil(body.data.retryAfterMs / 1000));
    }
    expect(await users()).toBe(before);
    // Ana, known, opens as many sessions as she likes.
    for (let i = 0; i < 5; i++) expect((await open(first)).status).toBe(200);
  });

  it('do not include a user the business has written to (a bot message, a campaign): their first session comes in', async () => {
    await spendAllowance();
    expect((await open(`nobody-${randomUUID()}`)).status).toBe(429);
    const written = `cliente-${randomUUID()}`;
    const sent = await fetch(`${live.h.baseUrl}/v1/bots/${live.botId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: BASIC },
      body: JSON.stringify({ type: 'text', userId: written, text: 'Su pedido ha salido.' }),
    });
    expect(sent.status).toBe(200);
    const session = await open(written);
    expect(session.status).toBe(200);
    expect((session.body as { botRoomId: string }).botRoomId).toBeTruthy();
  });

  it('include the made-up ids a session brings into rooms (openRoomWithUser, addMember(s), joinRoom): 429 once spent, nothing stored', async () => {
    // The allowance is spent by the test above; Ana (known) is in.
    const ana = await open(`ana2-${randomUUID()}`);
    expect(ana.status).toBe(429);
    const known = (await open(firstUser)).body as { token: string; botRoomId: string };
    const call = async (path: string, body: unknown) => {
      const res = await fetch(live.h.baseUrl + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${known.token}` },
        body: JSON.stringify(body),
      });
      return { status: res.status, retryAfter: res.headers.get('retry-after') };
    };
    const before = await users();
    const direct = await call(ROUTES.widgetDirectRoom, { id: `made-up-${randomUUID()}`, names: 'X' });
    expect(direct.status).toBe(429);
    expect(Number(direct.retryAfter)).toBeGreaterThan(0);
    const room = known.botRoomId;
    const path = (p: string) => p.replace(':roomId', room);
    expect((await call(path(ROUTES.widgetRoomMembers), { member: `made-up-${randomUUID()}` })).status).toBe(
      429,
    );
    expect(
      (
        await call(path(ROUTES.widgetRoomMembersBulk), {
          members: [{ referenceId: `made-up-${randomUUID()}` }],
        })
      ).status,
    ).toBe(429);
    expect(await users()).toBe(before);
    // Someone the company knows is no new user: a direct room with them opens.
    expect((await call(ROUTES.widgetDirectRoom, { id: secondUser })).status).toBe(200);
  });

  it('a widget held by the allowance keeps when a chat can start, for its panel to say', async () => {
    await spendAllowance();
    const w = live.widget({ userId: `held-${randomUUID()}`, namespace: `ns-${randomUUID()}` });
    void w.connect().catch(() => undefined);
    await waitFor(
      () => w.core.stores.w.$lastError.get()?.key === 'RATE_LIMITED',
      15_000,
      'the refusal shown',
    );
    const shown = w.core.stores.w.$lastError.get()!;
    expect(shown.transient).toBe(true);
    // When a chat can start: within the 20 minutes a new visitor comes back in (3 an hour).
    expect(shown.retryAt! - Date.now()).toBeGreaterThan(0);
    expect(shown.retryAt! - Date.now()).toBeLessThanOrEqual(20 * 60_000);
  });

  it('are refilled over the hour, and counted by address (an IPv6 one by its /64)', () => {
    const limits = new NewUserLimits(2);
    const t = 1_000_000;
    expect(limits.take('203.0.113.7', t)).toBe(0);
    expect(limits.take('203.0.113.7', t)).toBe(0);
    expect(limits.take('203.0.113.7', t)).toBe(30 * 60_000);
    expect(limits.take('198.51.100.1', t)).toBe(0);
    expect(limits.take('2001:db8:1:2::1', t)).toBe(0);
    expect(limits.take('2001:db8:1:2::9', t)).toBe(0);
    expect(limits.take('2001:db8:1:2:ffff::3', t)).toBeGreaterThan(0);
    // Half an hour on, one more.
    expect(limits.take('203.0.113.7', t + 30 * 60_000)).toBe(0);
    expect(limits.take('203.0.113.7', t + 30 * 60_000)).toBeGreaterThan(0);
  });

  it('CHARLA_NEW_USERS_PER_HOUR is a positive whole number, 600 by default (anything else stops the start)', () => {
    const base = { PORT: '0' };
    expect(configFromEnv(base)).toMatchObject({ newUsersPerHour: 600 });
    expect(configFromEnv({ ...base, CHARLA_NEW_USERS_PER_HOUR: '50' })).toMatchObject({
      newUsersPerHour: 50,
    });
    for (const bad of ['0', '-1', 'many', '2.5'])
      expect(() => configFromEnv({ ...base, CHARLA_NEW_USERS_PER_HOUR: bad })).toThrow(
        /^CHARLA_NEW_USERS_PER_HOUR must be a positive whole number of users/,
      );
  });
});
