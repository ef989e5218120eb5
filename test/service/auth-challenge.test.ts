/**
 * A 401 says which scheme would be accepted (RFC 9110's WWW-Authenticate):
 * Basic on the server-side operations, Bearer on the widget API. A script in
 * a browser (Sec-Fetch-Dest: empty, its fetch or XHR) gets no Basic challenge, so
 * its browser does not put a login box over the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Server } from './helpers/http.ts';

let server: Server;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

async function challengeOf(method: string, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.base}${path}`, { method, headers });
  await res.arrayBuffer();
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}

describe('401 challenges', () => {
  it('names Basic on every server-side operation, without or with wrong credentials', async () => {
    const wrong = { authorization: `Basic ${Buffer.from('x:y').toString('base64')}` };
    for (const [method, path, headers] of [
      ['GET', '/v1/campaigns?botId=b&startAt=2026-01-01&endAt=2026-01-02', {}],
      ['POST', '/v1/campaigns', wrong],
      ['DELETE', '/v1/campaigns/5f1c1b5e-0000-4000-8000-000000000000', { authorization: 'Bearer x' }],
      ['POST', '/v1/external/assets/refresh', wrong],
      // Widget creation is a server-side operation (Basic), though its path is under /v1/widget/.
      ['POST', '/v1/widget/create', {}],
      ['POST', '/v1/widget/create', wrong],
      ['POST', '/v1/widget/create', { authorization: 'Basic nope' }],
      ['POST', '/v1/widget/create?x=1', { authorization: 'Bearer x' }],
      ['POST', '/v1/rooms/5f1c1b5e-0000-4000-8000-000000000000/message', wrong],
    ] as const) {
      const r = await challengeOf(method, path, headers);
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.challenge, `${method} ${path}`).toBe('Basic realm="Charla", charset="UTF-8"');
    }
  });

  it('gives a browser script its 401 without a Basic challenge (no login box over the page)', async () => {
    for (const mode of ['cors', 'same-origin']) {
      const r = await challengeOf('POST', '/v1/campaigns', {
        'sec-fetch-mode': mode,
        'sec-fetch-dest': 'empty',
        'sec-fetch-site': 'same-origin',
      });
      expect(r).toEqual({ status: 401, challenge: null });
    }
    // A page the browser navigates to is not a script: the challenge stays.
    const page = await challengeOf('GET', '/v1/campaigns', {
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
    });
    expect(page.challenge).toMatch(/^Basic /);
  });

  it('names Bearer on the widget API', async () => {
    const r = await challengeOf('GET', '/v1/widget/rooms', { 'sec-fetch-mode': 'cors' });
    expect(r).toEqual({ status: 401, challenge: 'Bearer realm="Charla"' });
  });

  it('adds no challenge to answers that are not 401', async () => {
    const r = await challengeOf('GET', '/v1/nothing-here');
    expect(r.status).toBe(404);
    expect(r.challenge).toBeNull();
  });
});
