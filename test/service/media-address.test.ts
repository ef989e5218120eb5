/**
 * Media addresses the service will fetch (the video check) or show (room
 * posts): only globally routable unicast hosts, however the address is
 * spelled, and a host name leads only to the addresses that were checked
 * (no DNS rebinding). Real code against local servers; names are resolved by
 * an injected lookup, so nothing leaves the machine.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkVideo, mediaUrlProblem, type MediaLookup } from '../../server/bot-message.ts';
import { ApiError } from '../../server/http/errors.ts';

describe('mediaUrlProblem: only globally routable unicast IP literals pass', () => {
  const refused: Array<[string, string]> = [
    // The four the review found.
    ['NAT64 of 10.0.0.1', 'https://[64:ff9b::a00:1]/x.mp4'],
    ['6to4 of 10.0.0.1', 'https://[2002:a00:1::]/x.mp4'],
    ['IPv4 multicast', 'https://224.0.0.1/'],
    ['IPv4 broadcast', 'https://255.255.255.255/'],
    // IPv4.
    ['10/8', 'https://10.0.0.1/x.mp4'],
    ['172.16/12', 'https://172.16.0.1/x.mp4'],
    ['172.16/12 top', 'https://172.31.255.254/x.mp4'],
    ['192.168/16', 'https://192.168.1.10/x.mp4'],
    ['127/8 (not a loopback host of the configuration)', 'https://127.0.0.2/x.mp4'],
    ['169.254/16 (cloud metadata)', 'https://169.254.169.254/latest/meta-data'],
    ['0.0.0.0', 'https://0.0.0.0/x.mp4'],
    ['0/8', 'https://0.1.2.3/x.mp4'],
    ['100.64/10', 'https://100.64.0.1/x.mp4'],
    ['100.64/10 top', 'https://100.127.255.254/x.mp4'],
    ['192.0.0/24', 'https://192.0.0.8/x.mp4'],
    ['192.0.2/24 (TEST-NET-1)', 'https://192.0.2.1/x.mp4'],
    ['198.18/15', 'https://198.18.0.1/x.mp4'],
    ['198.18/15 top', 'https://198.19.255.254/x.mp4'],
    ['198.51.100/24 (TEST-NET-2)', 'https://198.51.100.7/x.mp4'],
    ['203.0.113/24 (TEST-NET-3)', 'https://203.0.113.9/x.mp4'],
    ['224/4 top', 'https://239.255.255.250/x.mp4'],
    ['240/4', 'https://240.0.0.1/x.mp4'],
    ['240/4 high', 'https://254.1.2.3/x.mp4'],
    // IPv4 spellings the URL parser turns into 10.0.0.1.
    ['decimal 10.0.0.1', 'https://167772161/x.mp4'],
    ['hex 10.0.0.1', 'https://0xa.0.0.1/x.mp4'],
    ['octal 10.0.0.1', 'https://012.0.0.1/x.mp4'],
    ['short 10.0.0.1', 'https://10.1/x.mp4'],
    // IPv6 carrying an IPv4 address.
    ['IPv4-mapped dotted', 'https://[::ffff:10.0.0.1]/x.mp4'],
    ['IPv4-mapped hex', 'https://[::ffff:a00:1]/x.mp4'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/x.mp4'],
    ['IPv4-mapped metadata', 'https://[::ffff:169.254.169.254]/x.mp4'],
    ['IPv4-mapped long form', 'https://[0:0:0:0:0:ffff:0a00:0001]/x.mp4'],
    ['IPv4-compatible private', 'https://[::10.0.0.1]/x.mp4'],
    ['IPv4-compatible public (deprecated form, refused outright)', 'https://[::8.8.8.8]/x.mp4'],
    ['IPv4-translated (RFC 6145)', 'https://[::ffff:0:a00:1]/x.mp4'],
    ['NAT64 dotted', 'https://[64:ff9b::10.0.0.1]/x.mp4'],
    ['NAT64 of loopback', 'https://[64:ff9b::7f00:1]/x.mp4'],
    ['NAT64 of metadata', 'https://[64:ff9b::a9fe:a9fe]/x.mp4'],
    ['local-use NAT64 64:ff9b:1::/48', 'https://[64:ff9b:1::a00:1]/x.mp4'],
    ['6to4 of a public address (refused outright)', 'https://[2002:808:808::1]/x.mp4'],
    ['Teredo', 'https://[2001::1]/x.mp4'],
    ['Teredo with addresses', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x.mp4'],
    // IPv6.
    ['::', 'https://[::]/x.mp4'],
    ['ff00::/8 link-local multicast', 'https://[ff02::1]/x.mp4'],
    ['ff00::/8 global multicast', 'https://[ff0e::1]/x.mp4'],
    ['fc00::/7', 'https://[fc00::1]/x.mp4'],
    ['fc00::/7 (fd)', 'https://[fd12:3456:789a::1]/x.mp4'],
    ['fe80::/10', 'https://[fe80::1]/x.mp4'],
    ['fe80::/10 top', 'https://[febf::1]/x.mp4'],
    ['fec0::/10', 'https://[fec0::1]/x.mp4'],
    ['2001:db8::/32', 'https://[2001:db8::1]/x.mp4'],
    ['3fff::/20 (documentation)', 'https://[3fff::1]/x.mp4'],
    ['100::/64 (discard)', 'https://[100::1]/x.mp4'],
    ['outside 2000::/3', 'https://[4000::1]/x.mp4'],
    // Names.
    ['a localhost name', 'https://media.localhost/x.mp4'],
    ['a name of one label', 'https://intranet/x.mp4'],
    ['a .internal name', 'https://metadata.google.internal/x.mp4'],
    ['a .local name', 'https://printer.local/x.mp4'],
    ['a .home.arpa name', 'https://nas.home.arpa/x.mp4'],
    ['a .lan name, in capitals', 'https://NAS.LAN/x.mp4'],
  ];

  it.each(refused)('refuses %s (%s), whether loopback is allowed or not', (_label, url) => {
    expect(mediaUrlProblem(url, false)).toBe('must be a public https address');
    expect(mediaUrlProblem(url, true)).toBe('must be a public https address');
  });

  const allowed: Array<[string, string]> = [
    ['public IPv4', 'https://8.8.8.8/x.mp4'],
    ['a public name with "internal" or "local" as a label', 'https://internal.cdn.example.com/x.mp4'],
    ['a public name under a label "local"', 'https://local.example.com/x.mp4'],
    ['public IPv4 with a port', 'https://1.1.1.1:8443/x.mp4'],
    ['just below 100.64/10', 'https://100.63.255.255/x.mp4'],
    ['just above 100.64/10', 'https://100.128.0.1/x.mp4'],
    ['just above 172.16/12', 'https://172.32.0.1/x.mp4'],
    ['just above 198.18/15', 'https://198.20.0.1/x.mp4'],
    ['public IPv6', 'https://[2606:4700::1111]/x.mp4'],
    ['public IPv6 (Google)', 'https://[2001:4860:4860::8888]/x.mp4'],
    ['NAT64 of a public address (DNS64 networks)', 'https://[64:ff9b::808:808]/x.mp4'],
    ['IPv4-mapped public address', 'https://[::ffff:8.8.8.8]/x.mp4'],
    ['a host name', 'https://cdn.example.com/x.mp4'],
    ['a host name with a port', 'https://media.example.org:8443/v/x.mp4?sig=1'],
  ];

  it.each(allowed)('allows %s (%s)', (_label, url) => {
    expect(mediaUrlProblem(url, false)).toBeNull();
  });

  it('keeps the other rules: https only, no credentials, absolute, no trailing dot', () => {
    expect(mediaUrlProblem('http://8.8.8.8/x.mp4', false)).toBe('must be an https address');
    expect(mediaUrlProblem('http://cdn.example.com/x.mp4', true)).toBe('must be an https address');
    expect(mediaUrlProblem('https://u:p@cdn.example.com/x.mp4', false)).toBe('must not carry credentials');
    expect(mediaUrlProblem('/x.mp4', false)).toBe('must be an absolute address');
    expect(mediaUrlProblem('https://cdn.example.com./x.mp4', false)).toBe(
      'must name its host without a trailing dot',
    );
    // Spaces and control characters, which the URL parser would drop or encode silently.
    for (const url of [
      'https://cdn.example.com/\tx.mp4',
      'https://cdn.ex\nample.com/x.mp4',
      'https://cdn.example.com/x.mp4\r\njavascript:alert(1)',
      'https://cdn.example.com/a b.mp4',
      'https://cdn.example.com/x\u0000.mp4',
      'https://cdn.example.com/x\u009f.mp4',
    ])
      expect(mediaUrlProblem(url, false), url).toBe('must not contain spaces or control characters');
  });

  it('allows the loopback hosts (http or https) only when the configuration does', () => {
    for (const url of [
      'http://127.0.0.1:8080/x.mp4',
      'https://127.0.0.1/x.mp4',
      'http://localhost:8080/x.mp4',
      'http://[::1]:8080/x.mp4',
    ]) {
      expect(mediaUrlProblem(url, true), url).toBeNull();
      expect(mediaUrlProblem(url, false), url).toBe('must be a public https address');
    }
    expect(mediaUrlProblem('ftp://127.0.0.1/x.mp4', true)).toBe('must be a public https address');
  });
});

/** The ApiError a call fails with (fails the test if it does not). */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected the check to fail');
}

describe('checkVideo against a local file host', () => {
  let media: HttpServer;
  let base: string;
  let port: number;
  const requests: string[] = [];
  const open = new Set<Socket>();
  // A plain TCP listener on loopback: any connection to it counts.
  let trap: TcpServer;
  let trapPort: number;
  let trapConnections = 0;

  beforeAll(async () => {
    media = createHttpServer((req, res) => {
      const url = req.url ?? '/';
      requests.push(`${req.method} ${url}`);
      const file = (type: string, size: number) => {
        res.writeHead(200, { 'content-type': type, 'content-length': String(size) });
        res.end();
      };
      if (url === '/ok.mp4') return file('video/mp4', 1000);
      if (url === '/page') return file('text/html; charset=utf-8', 500);
      if (url === '/webm') return file('video/webm', 500);
      if (url === '/huge.mp4') return file('video/mp4', 16 * 1024 * 1024 + 1);
      const hops = /^\/r(\d)$/.exec(url);
      if (hops) {
        const left = Number(hops[1]) - 1;
        res.writeHead(302, { location: left === 0 ? '/ok.mp4' : `/r${left}` });
        return res.end();
      }
      if (url === '/to-literal') {
        res.writeHead(302, { location: 'https://[2002:a00:1::]/x.mp4' });
        return res.end();
      }
      if (url === '/to-name') {
        res.writeHead(302, { location: `https://media.test:${trapPort}/x.mp4` });
        return res.end();
      }
      if (url === '/again') {
        res.writeHead(302, { location: `http://localhost:${port}/ok.mp4` });
        return res.end();
      }
      if (url === '/nowhere') {
        res.writeHead(302);
        return res.end();
      }
      if (url === '/hang') return; // never answers
      res.writeHead(404);
      res.end();
    });
    media.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
    port = (media.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    trap = createTcpServer((socket) => {
      trapConnections++;
      socket.destroy();
    });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    trapPort = (trap.address() as AddressInfo).port;
  });
  afterAll(async () => {
    media.closeAllConnections();
    await new Promise((r) => media.close(r));
    await new Promise((r) => trap.close(r));
  });

  /** Every connection the checks opened to the file host is closed again. */
  const noOpenSockets = () => vi.waitFor(() => expect(open.size).toBe(0), { timeout: 2000 });

  /** A lookup answering from a script per name, recording each question. */
  function scripted(answers: Record<string, string[][]>) {
    const asked: string[] = [];
    const lookup: MediaLookup = async (hostname) => {
      asked.push(hostname);
      const next = answers[hostname]?.shift();
      if (!next) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return next.map((address) => ({ address }));
    };
    return { lookup, asked };
  }

  it('passes a video (HEAD, video/mp4, 1000 bytes) and closes its connection', async () => {
    requests.length = 0;
    await expect(checkVideo(`${base}/ok.mp4`, true)).resolves.toBeUndefined();
    expect(requests).toEqual(['HEAD /ok.mp4']);
    await noOpenSockets();
  });

  it('follows up to 3 redirects and refuses a chain of 4', async () => {
    requests.length = 0;
    await expect(checkVideo(`${base}/r3`, true)).resolves.toBeUndefined();
    expect(requests).toEqual(['HEAD /r3', 'HEAD /r2', 'HEAD /r1', 'HEAD /ok.mp4']);
    const tooMany = await failure(checkVideo(`${base}/r4`, true));
    expect(tooMany.key).toBe('INVALID_MEDIA_URL');
    expect(tooMany.message).toMatch(/too many/);
    await noOpenSockets();
  });

  it('refuses a page, a redirect to nowhere and a missing file (INVALID_MEDIA_URL)', async () => {
    for (const path of ['/page', '/nowhere', '/missing.mp4']) {
      const err = await failure(checkVideo(base + path, true));
      expect(err.key, path).toBe('INVALID_MEDIA_URL');
      expect(err.httpStatus, path).toBe(422);
    }
    await noOpenSockets();
  });

  it('keeps the type and size outcomes', async () => {
    expect((await failure(checkVideo(`${base}/webm`, true))).key).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await failure(checkVideo(`${base}/huge.mp4`, true))).key).toBe('MEDIA_TOO_LARGE');
    await noOpenSockets();
  });

  it('cuts a host that never answers at the timeout given, and closes the connection', async () => {
    const started = Date.now();
    const err = await failure(checkVideo(`${base}/hang`, true, 300));
    const took = Date.now() - started;
    expect(err.key).toBe('INVALID_MEDIA_URL');
    expect(err.message).toMatch(/did not answer within 300 ms/);
    // Not before the time given (the message names it; a hang would meet the test's own timeout).
    expect(took).toBeGreaterThanOrEqual(250);
    await noOpenSockets();
  });

  it('cuts a name resolution that never ends at the timeout given', async () => {
    const lookup: MediaLookup = () => new Promise(() => {});
    const err = await failure(checkVideo('https://slow.example/x.mp4', false, 300, { lookup }));
    expect(err.key).toBe('INVALID_MEDIA_URL');
  });

  it('refuses loopback when the configuration does not allow it (422 INVALID_MEDIA_URL, nothing fetched)', async () => {
    requests.length = 0;
    const err = await failure(checkVideo(`${base}/ok.mp4`, false));
    expect(err.key).toBe('INVALID_MEDIA_URL');
    expect(err.httpStatus).toBe(422);
    expect(err.body).toMatchObject({ validationError: { '/mediaUrl': 'must be a public https address' } });
    expect(requests).toEqual([]);
  });

  it('refuses a private first address with 422 INVALID_MEDIA_URL before resolving or fetching anything, naming the field given', async () => {
    const { lookup, asked } = scripted({});
    for (const url of [
      'https://[64:ff9b::a00:1]/x.mp4',
      'https://[2002:a00:1::]/x.mp4',
      'https://224.0.0.1/',
    ]) {
      const err = await failure(checkVideo(url, false, 1000, { lookup, field: '/message/mediaUrl' }));
      expect(err.key, url).toBe('INVALID_MEDIA_URL');
      expect(err.httpStatus, url).toBe(422);
      expect(err.body.validationError, url).toEqual({
        '/message/mediaUrl': 'must be a public https address',
      });
      expect(err.message, url).toContain('/message/mediaUrl');
    }
    expect(asked).toEqual([]);
  });

  it('refuses a redirect to a private IP literal (INVALID_MEDIA_URL)', async () => {
    const err = await failure(checkVideo(`${base}/to-literal`, true));
    expect(err.key).toBe('INVALID_MEDIA_URL');
    expect(err.message).toMatch(/redirects to an address that must be a public https address/);
  });

  it('refuses a name that resolves to a private address, without connecting to it', async () => {
    // media.test answers 127.0.0.1 (where the trap listens): private for a name that is
    // not one of the configuration's loopback hosts, even with loopback allowed.
    const cases: Array<[string, string[]]> = [
      ['only private', ['127.0.0.1']],
      ['public and private', ['8.8.8.8', '127.0.0.1']],
      ['IPv4-mapped private', ['::ffff:127.0.0.1']],
      ['NAT64 of private', ['64:ff9b::7f00:1']],
    ];
    for (const [label, answer] of cases) {
      const { lookup, asked } = scripted({ 'media.test': [answer] });
      const first = await failure(checkVideo(`https://media.test:${trapPort}/x.mp4`, true, 2000, { lookup }));
      expect(first.key, label).toBe('INVALID_MEDIA_URL');
      expect(first.message, label).toBe('The media host resolves to a private address.');
      expect(asked, label).toEqual(['media.test']);
    }
    // The same after a redirect from an allowed host.
    const { lookup } = scripted({ 'media.test': [['127.0.0.1']] });
    const redirected = await failure(checkVideo(`${base}/to-name`, true, 2000, { lookup }));
    expect(redirected.key).toBe('INVALID_MEDIA_URL');
    expect(redirected.message).toBe('The media host resolves to a private address.');
    expect(trapConnections).toBe(0);
  });

  it('DNS rebinding: each hop resolves once and connects only to the answer it checked', async () => {
    // localhost is a loopback host the configuration allows, so 127.0.0.1 is a checked answer;
    // the second time the name is asked it answers 10.0.0.1. Resolving once for the check and
    // again for the connection would reach 10.0.0.1; here the first hop uses its checked answer
    // and the second hop's answer is refused before any connection.
    requests.length = 0;
    const { lookup, asked } = scripted({ localhost: [['127.0.0.1'], ['10.0.0.1']] });
    const err = await failure(checkVideo(`http://localhost:${port}/again`, true, 3000, { lookup }));
    expect(err.key).toBe('INVALID_MEDIA_URL');
    expect(err.message).toBe('The media host resolves to a private address.');
    expect(asked).toEqual(['localhost', 'localhost']); // once per hop, not once to check and once to connect
    // Refused at the second hop's answer, not a connection left to time out: the message says which.
    expect(requests).toEqual(['HEAD /again']);
    await noOpenSockets();
  });

  it('a loopback host name passes when it resolves to loopback, once', async () => {
    requests.length = 0;
    const { lookup, asked } = scripted({ localhost: [['127.0.0.1'], ['10.0.0.1']] });
    await expect(
      checkVideo(`http://localhost:${port}/ok.mp4`, true, 3000, { lookup }),
    ).resolves.toBeUndefined();
    expect(asked).toEqual(['localhost']);
    expect(requests).toEqual(['HEAD /ok.mp4']);
    await noOpenSockets();
  });

  it('a name that does not resolve is INVALID_MEDIA_URL', async () => {
    const { lookup } = scripted({});
    const err = await failure(checkVideo('https://nothing.test/x.mp4', false, 1000, { lookup }));
    expect(err.key).toBe('INVALID_MEDIA_URL');
    expect(err.message).toBe('The media host does not resolve.');
  });
});
