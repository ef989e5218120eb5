import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_BASE, call, snapshot, startServer, uid, type Server } from './helpers/http.ts';

let server: Server;
const bytes = Buffer.from([0, 1, 2, 3, 250, 251, 252, 253, 254, 255]);
let key: string;

beforeAll(async () => {
  server = await startServer();
  key = `uploads/${uid('file')}/clip one.mp4`;
  await server.app.charla.db.query(
    'INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)',
    [key, 'company-1', 'video/mp4', bytes.length, 'clip one.mp4', bytes],
  );
});
afterAll(async () => {
  await server?.close();
});

const refresh = (body: unknown, headers: Record<string, string | undefined> = {}) =>
  call(server, 'POST', '/v1/external/assets/refresh', { body, headers });
const ownUrl = () => `${PUBLIC_BASE}/v1/media/${key.split('/').map(encodeURIComponent).join('/')}`;
/** The text with its last character changed (an altered signature). */
const flipLast = (text: string) => text.slice(0, -1) + (text.endsWith('A') ? 'B' : 'A');
/** The signed address, fetched from the test server whatever host it names. */
const fetchSigned = (signedUrl: string) => {
  const u = new URL(signedUrl);
  return fetch(server.base + u.pathname + u.search);
};

describe('POST /v1/external/assets/refresh', () => {
  it('signs an address of its own media for ttl 900 to 3600 seconds', async () => {
    for (const ttl of [900, 1800, 3600]) {
      const before = Date.now();
      const res = await refresh({ resourceUrl: ownUrl(), ttl });
      const after = Date.now();
      expect(res.status).toBe(200);
      const signed = new URL(res.body.signedUrl);
      expect(signed.origin).toBe(PUBLIC_BASE);
      // It lives at least the ttl asked for (exp in whole seconds, rounded up), not up to 1 s less.
      const exp = Number(signed.searchParams.get('exp')) * 1000;
      expect(exp - before).toBeGreaterThanOrEqual(ttl * 1000);
      expect(exp - after).toBeLessThanOrEqual(ttl * 1000 + 1000);
      const asked = Date.now();
      const file = await fetchSigned(res.body.signedUrl);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toContain('video/mp4');
      // A cached copy never outlives the signature: max-age is what is left, rounded down.
      const maxAge = Number(/max-age=(\d+)/.exec(file.headers.get('cache-control') ?? '')?.[1]);
      expect(maxAge * 1000).toBeLessThanOrEqual(exp - asked);
      expect(maxAge).toBeGreaterThanOrEqual(ttl - 2);
      expect(Buffer.from(await file.arrayBuffer())).toEqual(bytes);
    }
  });

  it('takes its own host however it is spelled: upper case, the default port, a trailing dot', async () => {
    const own = new URL(ownUrl());
    const spellings = [
      ownUrl().replace(own.hostname, own.hostname.toUpperCase()),
      ownUrl().replace(own.host, `${own.hostname}:443`),
      ownUrl().replace(own.host, `${own.hostname}.`),
    ];
    for (const resourceUrl of spellings) {
      const res = await refresh({ resourceUrl, ttl: 900 });
      expect(res.status, resourceUrl).toBe(200);
      expect(new URL(res.body.signedUrl).origin).toBe(PUBLIC_BASE);
      expect((await fetchSigned(res.body.signedUrl)).status).toBe(200);
    }
    // Another name that only ends as ours is not ours.
    const res = await refresh({ resourceUrl: ownUrl().replace(own.host, `x${own.hostname}`), ttl: 900 });
    expect(res.status).toBe(422);
  });

  it('re-signs its own expired signed address', async () => {
    const expired = server.app.charla.signer.sign(key, 900, PUBLIC_BASE, Date.now() - 3 * 3600_000);
    expect((await fetchSigned(expired)).status).toBe(403);
    const res = await refresh({ resourceUrl: expired, ttl: 900 });
    expect(res.status).toBe(200);
    const file = await fetchSigned(res.body.signedUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toMatch(/^inline/);
    // A download link (the document card's) refreshed is still one: the file is saved, not shown.
    const download = await refresh({ resourceUrl: `${expired}&download=1`, ttl: 900 });
    expect(download.status).toBe(200);
    expect(new URL(download.body.signedUrl).searchParams.get('download')).toBe('1');
    const saved = await fetchSigned(download.body.signedUrl);
    expect(saved.status).toBe(200);
    expect(saved.headers.get('content-disposition')).toMatch(/^attachment/);
  });

  it('re-signs its address signed for another host of the deployment (another process, another name), expired or not', async () => {
    const elsewhere = 'https://charla-b.internal.example:8443';
    for (const at of [Date.now(), Date.now() - 3 * 3600_000]) {
      const signed = server.app.charla.signer.sign(key, 900, elsewhere, at);
      const res = await refresh({ resourceUrl: signed, ttl: 900 });
      expect(res.status, signed).toBe(200);
      expect(new URL(res.body.signedUrl).origin).toBe(PUBLIC_BASE);
      expect((await fetchSigned(res.body.signedUrl)).status).toBe(200);
    }
    // On another host, only a signature of ours makes it ours: altered, missing or another key's, 422.
    const signed = new URL(server.app.charla.signer.sign(key, 900, elsewhere));
    const variants = [
      (u: URL) => u.searchParams.set('sig', flipLast(u.searchParams.get('sig')!)),
      (u: URL) => u.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 1)),
      (u: URL) => u.searchParams.delete('sig'),
      (u: URL) => u.searchParams.set('kid', 'nope'),
      (u: URL) => (u.search = ''),
    ];
    for (const alter of variants) {
      const u = new URL(signed);
      alter(u);
      const res = await refresh({ resourceUrl: u.href, ttl: 900 });
      expect(res.status, u.href).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'E1126', key: 'SIGNED_URL_ERROR' });
    }
  });

  it('is 422 E1126 for an address it cannot sign', async () => {
    for (const resourceUrl of [
      'https://cdn.example.com/v1/media/x.mp4',
      `${PUBLIC_BASE}/v1/media/${uid('missing')}.mp4`,
      `${PUBLIC_BASE}/v1/campaigns`,
      `${PUBLIC_BASE}/v1/media/../../etc/passwd`,
      'https://charla.test.evil.com/v1/media/x',
    ]) {
      const res = await refresh({ resourceUrl, ttl: 900 });
      expect(res.status, resourceUrl).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'E1126', key: 'SIGNED_URL_ERROR' });
      expect(res.body.status).toBe(0);
    }
  });

  it('needs an https resourceUrl and an integer ttl within 900..3600 (400), and credentials', async () => {
    const before = await snapshot(server);
    const cases: Array<[unknown, string]> = [
      [{ resourceUrl: ownUrl().replace('https:', 'http:'), ttl: 900 }, '/resourceUrl'],
      [{ resourceUrl: 'ftp://charla.test/v1/media/a', ttl: 900 }, '/resourceUrl'],
      [{ resourceUrl: 'not a url', ttl: 900 }, '/resourceUrl'],
      [{ resourceUrl: ownUrl().replace('https://', 'https://user:pass@'), ttl: 900 }, '/resourceUrl'],
      // Spaces and control characters, which the URL parser would drop silently.
      [{ resourceUrl: `${ownUrl()} `, ttl: 900 }, '/resourceUrl'],
      [{ resourceUrl: `${ownUrl()}\n`, ttl: 900 }, '/resourceUrl'],
      [{ resourceUrl: ownUrl().replace('/v1/', '/v1/\t'), ttl: 900 }, '/resourceUrl'],
      [{ resourceUrl: `${ownUrl()}\u00A0`, ttl: 900 }, '/resourceUrl'],
      [{ ttl: 900 }, '/resourceUrl'],
      [{ resourceUrl: ownUrl(), ttl: 899 }, '/ttl'],
      [{ resourceUrl: ownUrl(), ttl: 3601 }, '/ttl'],
      [{ resourceUrl: ownUrl(), ttl: 900.5 }, '/ttl'],
      [{ resourceUrl: ownUrl(), ttl: '900' }, '/ttl'],
      [{ resourceUrl: ownUrl() }, '/ttl'],
      [{ resourceUrl: ownUrl(), ttl: null }, '/ttl'],
    ];
    for (const [body, field] of cases) {
      const res = await refresh(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.validationError), JSON.stringify(body)).toContain(field);
    }
    expect((await refresh({ resourceUrl: ownUrl(), ttl: 900 }, { authorization: undefined })).status).toBe(
      401,
    );
    expect(
      (await refresh({ resourceUrl: ownUrl(), ttl: 900 }, { authorization: 'Basic demo-company-token' }))
        .status,
    ).toBe(401);
    expect(await snapshot(server)).toEqual(before);
  });
});

describe('GET /v1/media/<key> (signed)', () => {
  it('serves with a valid signature, whatever the Host, and refuses one altered byte or an expiry (403)', async () => {
    const signedUrl = (await refresh({ resourceUrl: ownUrl(), ttl: 900 })).body.signedUrl as string;
    const good = await fetchSigned(signedUrl);
    expect(good.status).toBe(200);
    expect(good.headers.get('x-content-type-options')).toBe('nosniff');
    const u = new URL(signedUrl);
    const sig = u.searchParams.get('sig') as string;
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const variants: string[] = [];
    for (const i of [0, Math.floor(sig.length / 2), sig.length - 1]) {
      const v = new URL(signedUrl);
      v.searchParams.set('sig', flip(sig, i));
      variants.push(v.toString());
    }
    const later = new URL(signedUrl);
    later.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 1));
    variants.push(later.toString());
    const otherKid = new URL(signedUrl);
    otherKid.searchParams.set('kid', 'k2');
    variants.push(otherKid.toString());
    const otherPath = new URL(signedUrl);
    otherPath.pathname = otherPath.pathname.replace('clip', 'clap');
    variants.push(otherPath.toString());
    const noSig = new URL(signedUrl);
    noSig.searchParams.delete('sig');
    variants.push(noSig.toString());
    variants.push(server.app.charla.signer.sign(key, 900, PUBLIC_BASE, Date.now() - 901_000));
    for (const v of variants) {
      const res = await fetchSigned(v);
      expect(res.status, v).toBe(403);
      const body = await res.json();
      expect(body.error.key).toBe('SIGNATURE_INVALID');
    }
  });

  it('answers byte ranges (206) for players that seek, 416 outside the file', async () => {
    const signedUrl = (await refresh({ resourceUrl: ownUrl(), ttl: 900 })).body.signedUrl as string;
    const u = new URL(signedUrl);
    const get = (range: string) => fetch(server.base + u.pathname + u.search, { headers: { range } });
    const mid = await get('bytes=2-5');
    expect(mid.status).toBe(206);
    expect(mid.headers.get('content-range')).toBe(`bytes 2-5/${bytes.length}`);
    expect(Buffer.from(await mid.arrayBuffer())).toEqual(bytes.subarray(2, 6));
    const tail = await get('bytes=-3');
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 3));
    const open = await get('bytes=7-');
    expect(Buffer.from(await open.arrayBuffer())).toEqual(bytes.subarray(7));
    expect((await get('bytes=100-')).status).toBe(416);
    const whole = await get('items=1-2');
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(bytes);
  });

  it('is 404 for a validly signed key with no stored file', async () => {
    const signed = server.app.charla.signer.sign(uid('nothing'), 900, PUBLIC_BASE);
    expect((await fetchSigned(signed)).status).toBe(404);
  });
});

describe('signing key rotation', () => {
  it('signs with the newest key and still serves addresses signed with an older one', async () => {
    const oldSecret = 'demo-signing-secret-change-me';
    const rotated = await startServer({ signingKeys: { k2: 'a-newer-secret', k1: oldSecret } });
    try {
      await rotated.app.charla.db.query(
        'INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)',
        [key, 'company-1', 'video/mp4', bytes.length, 'clip one.mp4', bytes],
      );
      // Signed by the service before the rotation (k1).
      const before = server.app.charla.signer.sign(key, 900, PUBLIC_BASE);
      const u = new URL(before);
      expect(u.searchParams.get('kid')).toBe('k1');
      expect((await fetch(rotated.base + u.pathname + u.search)).status).toBe(200);
      const res = await call(rotated, 'POST', '/v1/external/assets/refresh', {
        body: { resourceUrl: before, ttl: 900 },
      });
      expect(res.status).toBe(200);
      const fresh = new URL(res.body.signedUrl);
      expect(fresh.searchParams.get('kid')).toBe('k2');
      expect((await fetch(rotated.base + fresh.pathname + fresh.search)).status).toBe(200);
      // The old service does not know k2.
      expect((await fetchSigned(res.body.signedUrl)).status).toBe(403);
    } finally {
      await rotated.close();
    }
  }, 120_000);
});

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document with every operation of the interface, served without credentials', async () => {
    const res = await call(server, 'GET', '/v1/openapi.json', { headers: { authorization: undefined } });
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    const operations: Array<[string, string]> = [
      ['/v1/campaigns', 'get'],
      ['/v1/campaigns', 'post'],
      ['/v1/campaigns/{campaignId}', 'delete'],
      ['/v1/campaigns/{campaignId}', 'put'],
      ['/v1/widget/create', 'post'],
      ['/v1/bots/{botId}/messages', 'post'],
      ['/v1/rooms/{roomId}/message', 'post'],
      ['/v1/external/assets/refresh', 'post'],
    ];
    for (const [path, method] of operations) {
      const op = doc.paths?.[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.responses['200'], `${method} ${path}`).toBeDefined();
      expect(op.security, `${method} ${path}`).toEqual(expect.arrayContaining([{ basicAuth: [] }]));
      // What every operation may also answer: 400 (its path, query or body), 500; with a body, 413 and 415.
      const statuses = Object.keys(op.responses);
      expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '500']));
      if (method !== 'get' && method !== 'delete')
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['413', '415']));
    }
    // Every operation, the widget API's too, says it may fail unexpectedly (500), beside its 200.
    for (const [path, ops] of Object.entries(
      doc.paths as Record<string, Record<string, { responses: object }>>,
    ))
      for (const [method, op] of Object.entries(ops))
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['200', '500']),
        );
    const list = doc.paths['/v1/campaigns'].get;
    const required = list.parameters
      .filter((p: { required?: boolean }) => p.required)
      .map((p: { name: string }) => p.name);
    expect(required.sort()).toEqual(['botId', 'endAt', 'startAt']);
    const limit = list.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ maximum: 50, default: 10 });
    const botBody =
      doc.paths['/v1/bots/{botId}/messages'].post.requestBody.content['application/json'].schema;
    expect(JSON.stringify(botBody)).toContain('voice_call');
    expect(doc.components.securitySchemes.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('documents the widget API too, and no CORS preflight plumbing', async () => {
    const res = await call(server, 'GET', '/v1/openapi.json', { headers: { authorization: undefined } });
    const doc = res.body;
    for (const [path, method] of [
      ['/v1/widget/session', 'post'],
      ['/v1/widget/rooms', 'get'],
      ['/v1/widget/rooms/{roomId}', 'get'],
      ['/v1/widget/rooms/{roomId}/messages', 'get'],
      ['/v1/widget/rooms/{roomId}/members', 'get'],
      ['/v1/widget/uploads', 'post'],
    ] as const) {
      expect(doc.paths?.[path]?.[method], `${method} ${path}`).toBeDefined();
      // Everything but opening the session needs the session's Bearer token.
      expect(doc.paths[path][method].security, `${method} ${path}`).toEqual(
        path === '/v1/widget/session' ? undefined : [{ widgetSession: [] }],
      );
    }
    // Each widget route lists what it answers: without a token 401, a refused origin or a room the
    // user is not in 403, and its own (an unknown cursor or flow 404, a file of a refused type 422).
    const statuses = (path: string, method = 'post') => Object.keys(doc.paths[path][method].responses);
    expect(statuses('/v1/widget/session')).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404']),
    );
    expect(statuses('/v1/widget/rooms/{roomId}', 'get')).toEqual(
      expect.arrayContaining(['400', '401', '403']),
    );
    expect(statuses('/v1/widget/rooms/{roomId}/messages', 'get')).toEqual(
      expect.arrayContaining(['400', '401', '403', '404']),
    );
    expect(statuses('/v1/widget/uploads')).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '413', '415', '422', '500']),
    );
    expect(statuses('/v1/widget/assets/refresh')).toEqual(expect.arrayContaining(['401', '403', '422']));
    const upload = doc.paths['/v1/widget/uploads'].post.requestBody;
    expect(upload.content['multipart/form-data'].schema.required).toEqual(['file']);
    expect(upload.content['multipart/form-data'].schema.properties.file.description).toContain('image/png');
    // And what they really answer is listed: each widget API route without a token.
    for (const [path, method] of Object.entries(doc.paths as Record<string, Record<string, object>>).flatMap(
      ([p, ops]) => Object.keys(ops).map((m) => [p, m] as const),
    )) {
      if (!path.startsWith('/v1/widget/') || path === '/v1/widget/session' || path === '/v1/widget/create')
        continue;
      const real = path.replace(/\{(\w+)\}/g, 'x');
      const res = await call(server, method.toUpperCase(), real, {
        headers: { authorization: undefined },
        ...(method === 'get' ? {} : { body: {} }),
      });
      expect(statuses(path, method), `${method} ${path} answered ${res.status}`).toContain(
        String(res.status),
      );
    }
    expect(doc.paths['/v1/widget/{*}']).toBeUndefined();
    // Static files and catch-all paths are not operations.
    for (const path of Object.keys(doc.paths)) {
      expect(path.startsWith('/v1/'), path).toBe(true);
      expect(path, path).not.toContain('*');
    }
  });
});
