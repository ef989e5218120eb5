import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../types/index.ts';
import { originAllowed, originMatches } from '../../server/live/origin.ts';
import { startLive, type LiveHarness } from './helpers/live.ts';

let h: LiveHarness;
let listed: { apiKey: string };
let open: { apiKey: string };

beforeAll(async () => {
  h = await startLive();
  listed = await h.createWidget({
    credentials: {
      whiteList: ['https://*.shop.example', 'http://localhost:3000'],
      blackList: ['https://bad.shop.example'],
    },
  });
  open = await h.createWidget({ credentials: { blackList: ['https://evil.example'] } });
});
afterAll(async () => {
  await h?.close();
});

describe('origin patterns', () => {
  it('matches wildcards on subdomains only, with scheme and port exact', () => {
    expect(originMatches('https://*.example.com', 'https://a.example.com')).toBe(true);
    expect(originMatches('https://*.example.com', 'https://a.b.example.com')).toBe(true);
    expect(originMatches('https://*.example.com', 'https://example.com')).toBe(false);
    expect(originMatches('https://*.example.com', 'https://evilexample.com')).toBe(false);
    expect(originMatches('https://*.example.com', 'http://a.example.com')).toBe(false);
    expect(originMatches('https://*.example.com', 'https://a.example.com:8443')).toBe(false);
    expect(originMatches('https://example.com', 'https://EXAMPLE.com:443')).toBe(true);
    expect(originMatches('http://localhost:3000', 'http://localhost:3001')).toBe(false);
    // Ports are numbers, however a pattern spells them.
    expect(originMatches('https://example.com:00080', 'https://example.com:80')).toBe(true);
    expect(originMatches('http://example.com:0080', 'http://example.com')).toBe(true);
    expect(originMatches('https://*.example.com:08443', 'https://a.example.com:8443')).toBe(true);
    expect(originMatches('https://example.com:00080', 'https://example.com:800')).toBe(false);
    expect(originAllowed({ whiteList: [], blackList: [] }, undefined)).toBe(true);
    expect(originAllowed({ whiteList: ['https://a.example'], blackList: [] }, undefined)).toBe(false);
    // An opaque origin (a sandboxed iframe, a file) could be any site: with a black list it is
    // refused too; with no list it is let in, with a white list it is outside it.
    expect(originAllowed({ whiteList: [], blackList: ['https://a.example'] }, 'null')).toBe(false);
    expect(originAllowed({ whiteList: [], blackList: [] }, 'null')).toBe(true);
    expect(originAllowed({ whiteList: ['https://a.example'], blackList: [] }, 'null')).toBe(false);
  });

  it('takes a host with its trailing dot for the same host, in patterns and origins', () => {
    expect(originMatches('https://evil.example', 'https://evil.example.')).toBe(true);
    expect(originMatches('https://*.evil.example', 'https://a.evil.example.')).toBe(true);
    expect(originMatches('https://evil.example.', 'https://evil.example')).toBe(true);
    expect(originMatches('https://evil.example', 'https://evil.example..')).toBe(false);
    expect(
      originAllowed({ whiteList: [], blackList: ['https://evil.example'] }, 'https://evil.example.'),
    ).toBe(false);
  });
});

describe('widget origins on REST', () => {
  it('opens a session from a white-listed origin, with CORS for it', async () => {
    const res = await h.call('POST', ROUTES.widgetSession, {
      body: { apiKey: listed.apiKey, userId: 'u1' },
      origin: 'https://www.shop.example',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://www.shop.example');
  });

  it('refuses an origin on the black list with a 403 the page can read (so the widget can say why)', async () => {
    for (const [apiKey, origin] of [
      [listed.apiKey, 'https://bad.shop.example'],
      [open.apiKey, 'https://evil.example'],
      // Its trailing dot, which a browser sends as written: the same host.
      [open.apiKey, 'https://evil.example.'],
      [listed.apiKey, 'https://bad.shop.example.'],
    ] as const) {
      const res = await h.call('POST', ROUTES.widgetSession, { body: { apiKey, userId: 'u1' }, origin });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { key: string } }).error.key).toBe('ORIGIN_NOT_ALLOWED');
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    }
  });

  it('refuses an origin outside the white list, and a call without Origin when a white list is set', async () => {
    const outside = await h.call('POST', ROUTES.widgetSession, {
      body: { apiKey: listed.apiKey, userId: 'u1' },
      origin: 'https://shop.example',
    });
    expect(outside.status).toBe(403);
    const none = await h.call('POST', ROUTES.widgetSession, {
      body: { apiKey: listed.apiKey, userId: 'u1' },
    });
    expect(none.status).toBe(403);
    // No white list: server to server (no Origin) is fine.
    const serverSide = await h.call('POST', ROUTES.widgetSession, {
      body: { apiKey: open.apiKey, userId: 'u1' },
    });
    expect(serverSide.status).toBe(200);
  });

  it('lets in the pages of a pattern stored as written, a port with leading zeros included', async () => {
    // Stored before widget creation spelled origins as browsers do.
    const old = await h.createWidget();
    await h.app.charla.db.query(
      `UPDATE widgets SET config = jsonb_set(config, '{credentials}', $2::jsonb) WHERE id = $1`,
      [old.widgetId, JSON.stringify({ whiteList: ['https://Example.com:00080'], blackList: [] })],
    );
    const session = (origin: string) =>
      h.call('POST', ROUTES.widgetSession, { body: { apiKey: old.apiKey, userId: 'u5' }, origin });
    expect((await session('https://example.com:80')).status).toBe(200);
    expect((await session('https://example.com')).status).toBe(403);
  });

  it('re-checks the origin on every call with a session', async () => {
    const s = await h.session(listed.apiKey, 'u2', { origin: 'https://a.shop.example' });
    const good = await h.call('GET', ROUTES.widgetRooms, {
      token: s.token,
      origin: 'https://a.shop.example',
    });
    expect(good.status).toBe(200);
    expect(good.headers.get('access-control-allow-origin')).toBe('https://a.shop.example');
    const bad = await h.call('GET', ROUTES.widgetRooms, {
      token: s.token,
      origin: 'https://bad.shop.example',
    });
    expect(bad.status).toBe(403);
    expect(bad.headers.get('access-control-allow-origin')).toBeNull();
    const outside = await h.call('GET', ROUTES.widgetRooms, {
      token: s.token,
      origin: 'https://other.example',
    });
    expect(outside.status).toBe(403);
  });

  it('answers a preflight', async () => {
    const res = await fetch(h.baseUrl + ROUTES.widgetRooms, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://a.shop.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://a.shop.example');
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  it('answers 401 for a wrong key, a tampered token and a missing token', async () => {
    const wrong = await h.call('POST', ROUTES.widgetSession, {
      body: { apiKey: 'ck_not-a-real-key-at-all', userId: 'u1' },
    });
    expect(wrong.status).toBe(401);
    const s = await h.session(open.apiKey, 'u3');
    const [claims = '', sig = ''] = s.token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(claims, 'base64url').toString()), uid: 'someone-else' }),
    ).toString('base64url');
    const tampered = await h.call('GET', ROUTES.widgetRooms, { token: `${forged}.${sig}` });
    expect(tampered.status).toBe(401);
    const missing = await h.call('GET', ROUTES.widgetRooms);
    expect(missing.status).toBe(401);
  });

  it('answers 401 for an expired session', async () => {
    const { sessions } = (await import('../../server/live/index.ts')).liveOf(h.app);
    const access = await sessions.accessByKey(open.apiKey);
    const { token } = sessions.issue(access, 'u4', Date.now() - 2 * 24 * 3600 * 1000);
    const res = await h.call('GET', ROUTES.widgetRooms, { token });
    expect(res.status).toBe(401);
  });
});

describe('widget origins on the socket handshake', () => {
  it('connects from an allowed origin', async () => {
    const s = await h.session(listed.apiKey, 'w1', { origin: 'https://a.shop.example' });
    const socket = await h.connect(s.token, { origin: 'https://a.shop.example' });
    expect(socket.connected).toBe(true);
  });

  it('refuses a black-listed origin and one outside the white list with the error body', async () => {
    const s = await h.session(listed.apiKey, 'w2', { origin: 'https://a.shop.example' });
    for (const origin of ['https://bad.shop.example', 'https://elsewhere.example']) {
      const err = (await h.connect(s.token, { origin }).catch((e: unknown) => e)) as {
        data?: { error: { key: string } };
      };
      expect(err.data?.error.key).toBe('ORIGIN_NOT_ALLOWED');
    }
    const o = await h.session(open.apiKey, 'w3');
    const err = (await h.connect(o.token, { origin: 'https://evil.example' }).catch((e: unknown) => e)) as {
      data?: { error: { key: string } };
    };
    expect(err.data?.error.key).toBe('ORIGIN_NOT_ALLOWED');
  });

  it('refuses a bad token with 401', async () => {
    const err = (await h.connect('garbage').catch((e: unknown) => e)) as {
      data?: { error: { key: string } };
    };
    expect(err.data?.error.key).toBe('UNAUTHORIZED');
  });
});

describe('session expiry on the socket', () => {
  it('tells a connected widget its session expired and closes the socket', async () => {
    const { liveOf } = await import('../../server/live/index.ts');
    const { SESSION_TTL_SECONDS } = await import('../../types/index.ts');
    const { sessions } = liveOf(h.app);
    const access = await sessions.accessByKey(open.apiKey);
    // Issued long ago: five seconds of life left. With one, a slow handshake on a loaded machine let the
    // expiry and the close arrive with the connect, before the listeners below existed (a 60 s wait in CI).
    const { token } = sessions.issue(access, 'x1', Date.now() - SESSION_TTL_SECONDS * 1000 + 5000);
    const socket = await h.connect(token);
    const expired = new Promise<void>((resolve) => socket.once('session:expired', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('disconnect', () => resolve()));
    await expired;
    await closed;
    expect(socket.connected).toBe(false);
  });
});
