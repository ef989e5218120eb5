/**
 * The video check against hosts that do not answer HEAD as a plain file
 * server does: object stores whose pre-signed addresses are signed for GET
 * only (HEAD is 403), and servers without HEAD (405, 501). Such an address
 * is public and points to the file, as the interface asks, so the check asks
 * again with a one-byte GET and reads the same facts (status, type, size).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, snapshot, startServer, uid, type Server } from './helpers/http.ts';

const MB = 1024 * 1024;
let server: Server;
let media: HttpServer;
let mediaBase: string;
let botId: string;
const seen: string[] = [];

beforeAll(async () => {
  // GET-only host: HEAD answers `status` (as S3 does for an address signed for GET).
  media = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const headStatus = Number(url.searchParams.get('head') ?? 403);
    const size = Number(url.searchParams.get('size') ?? 1000);
    const type = url.searchParams.get('type') ?? 'video/mp4';
    seen.push(`${req.method} ${req.headers.range ?? ''}`);
    if (req.method === 'HEAD') {
      res.writeHead(headStatus, { 'content-type': 'application/xml' });
      return res.end();
    }
    if (url.pathname === '/missing.mp4') {
      res.writeHead(404, { 'content-type': 'application/xml' });
      return res.end('<Error/>');
    }
    if (url.pathname === '/norange.mp4' || !req.headers.range) {
      // Ignores Range: the whole file's length (the check must not read it).
      res.writeHead(200, { 'content-type': type, 'content-length': String(size) });
      res.write(Buffer.alloc(Math.min(size, 64 * 1024)));
      return; // never ends: only the headers may be read
    }
    res.writeHead(206, { 'content-type': type, 'content-range': `bytes 0-0/${size}`, 'content-length': '1' });
    res.end(Buffer.alloc(1));
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', () => r()));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
  server = await startServer();
  botId = await createBot(server);
});
afterAll(async () => {
  media?.closeAllConnections();
  media?.close();
  await server?.close();
});

const send = (mediaUrl: string) =>
  call(server, 'POST', `/v1/bots/${botId}/messages`, {
    body: { type: 'video', mediaUrl, userId: uid('u') },
  });

describe('video check on hosts that refuse HEAD', () => {
  it('accepts a video whose host answers HEAD with 403, 405 or 501, checking it with a one-byte GET', async () => {
    for (const head of [403, 405, 501]) {
      seen.length = 0;
      const res = await send(`${mediaBase}/clip.mp4?head=${head}`);
      expect(res.status, `HEAD ${head}: ${res.text}`).toBe(200);
      expect(res.body.success).toBe(true);
      expect(seen).toEqual(['HEAD ', 'GET bytes=0-0']);
    }
  });

  it('holds the GET answer to the same rules: size from Content-Range, type, status', async () => {
    const before = await snapshot(server);
    const exact = await send(`${mediaBase}/exact.mp4?size=${16 * MB}`);
    expect(exact.status).toBe(200);
    const cases: Array<[string, number, string]> = [
      [`/over.mp4?size=${16 * MB + 1}`, 422, 'MEDIA_TOO_LARGE'],
      [`/norange.mp4?size=${16 * MB + 1}`, 422, 'MEDIA_TOO_LARGE'],
      ['/clip.mov?type=video/quicktime', 422, 'UNSUPPORTED_MEDIA_TYPE'],
      ['/page?type=text/html', 422, 'INVALID_MEDIA_URL'],
      ['/missing.mp4', 422, 'INVALID_MEDIA_URL'],
    ];
    const after = await snapshot(server);
    for (const [path, status, key] of cases) {
      const res = await send(mediaBase + path);
      expect(res.status, path).toBe(status);
      expect(res.body.error.key, path).toBe(key);
    }
    expect(await snapshot(server)).toEqual(after);
    expect(after).not.toEqual(before); // the exact one was sent
  });

  it('still refuses a host whose HEAD says 404 without asking again', async () => {
    seen.length = 0;
    const res = await send(`${mediaBase}/gone.mp4?head=404`);
    expect(res.status).toBe(422);
    expect(res.body.error.key).toBe('INVALID_MEDIA_URL');
    expect(seen).toEqual(['HEAD ']);
  });
});
