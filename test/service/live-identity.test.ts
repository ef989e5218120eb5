/**
 * Identity verification (credentials.identityVerification): a widget session
 * needs the page's userId and the userHash the business's backend made with
 * the key's identitySecret, so a visitor cannot open another user's rooms by
 * claiming their id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../types/index.ts';
import { BASIC, startLive, type LiveHarness } from './helpers/live.ts';
import { hashOf, openSession as openSessionOn } from './helpers/identity.ts';

let h: LiveHarness;

type Created = Awaited<ReturnType<LiveHarness['createWidget']>>;

/** A widget creation with these credentials, answered as it is (a refusal included). */
async function create(credentials: Record<string, unknown>): Promise<Response> {
  return fetch(h.baseUrl + ROUTES.createWidget, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({ bot: {}, widget: { properties: { type: 'normal' }, credentials } }),
  });
}

const openSession = (body: Record<string, unknown>) => openSessionOn(h, body);

let verified: Created;
let plain: Created;

beforeAll(async () => {
  h = await startLive();
  verified = await h.createWidget({ credentials: { identityVerification: true } });
  plain = await h.createWidget();
});
afterAll(async () => {
  await h?.close();
});

describe('identity secrets', () => {
  it('issues each API key its own secret of 32 random bytes, shown at creation only', async () => {
    expect(verified.identitySecret).toMatch(/^cis_[A-Za-z0-9_-]{43}$/);
    expect(plain.identitySecret).toMatch(/^cis_[A-Za-z0-9_-]{43}$/);
    expect(verified.identitySecret).not.toBe(plain.identitySecret);
    const s = await openSession({
      apiKey: verified.apiKey,
      userId: 'ana',
      userHash: hashOf(verified.identitySecret, 'ana'),
    });
    expect(s.status).toBe(200);
    // The session answer (what a page sees) never carries the secret.
    expect(JSON.stringify(s.body)).not.toContain(verified.identitySecret);
  });

  it('refuses a non-boolean identityVerification at widget creation with 400', async () => {
    const res = await create({ identityVerification: 'yes' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { validationError: Record<string, string> };
    expect(Object.keys(body.validationError).join(' ')).toContain('identityVerification');
  });
});

describe('sessions of a widget that verifies identities', () => {
  it('opens a session for the userId its userHash was made for (hex, any case)', async () => {
    const ok = await openSession({
      apiKey: verified.apiKey,
      userId: 'user-42',
      userHash: hashOf(verified.identitySecret, 'user-42').toUpperCase(),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.user.id).toBe('user-42');
  });

  it('refuses, with 401 and the error body, a missing, wrong or borrowed userHash and a missing userId', async () => {
    const cases: Record<string, unknown>[] = [
      { apiKey: verified.apiKey, userId: 'user-42' },
      { apiKey: verified.apiKey, userId: 'user-42', userHash: '' },
      { apiKey: verified.apiKey, userId: 'user-42', userHash: 'f'.repeat(64) },
      // A hash made for another user does not open this one's rooms.
      { apiKey: verified.apiKey, userId: 'user-42', userHash: hashOf(verified.identitySecret, 'user-7') },
      // A hash made with another key's secret does not count either.
      { apiKey: verified.apiKey, userId: 'user-42', userHash: hashOf(plain.identitySecret, 'user-42') },
      { apiKey: verified.apiKey, userHash: hashOf(verified.identitySecret, 'user-42') },
    ];
    for (const body of cases) {
      const res = await openSession(body);
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(res.body.status).toBe(0);
      expect(res.body.statusMessage).toBe('failed');
      expect(res.body.error.key).toBe('UNAUTHORIZED');
      expect(typeof res.body.message === 'string' ? res.body.message : res.body.message.join(' ')).toMatch(
        /userHash|userId/,
      );
    }
  });

  it('stores nothing for a refused session (no user, no bot room)', async () => {
    await openSession({ apiKey: verified.apiKey, userId: 'intruder-1', userHash: 'a'.repeat(64) });
    const users = await h.app.charla.db.query('SELECT 1 FROM live_users WHERE id = $1', ['intruder-1']);
    const rooms = await h.app.charla.db.query('SELECT 1 FROM room_members WHERE user_id = $1', [
      'intruder-1',
    ]);
    expect(users.rows).toHaveLength(0);
    expect(rooms.rows).toHaveLength(0);
  });
});

describe('sessions of a widget that does not verify identities', () => {
  it('takes the page userId as given and ignores any userHash', async () => {
    const given = await openSession({ apiKey: plain.apiKey, userId: 'user-9' });
    expect(given.status).toBe(200);
    expect(given.body.user.id).toBe('user-9');
    const withHash = await openSession({ apiKey: plain.apiKey, userId: 'user-9', userHash: 'nonsense' });
    expect(withHash.status).toBe(200);
    const anonymous = await openSession({ apiKey: plain.apiKey });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.user.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
