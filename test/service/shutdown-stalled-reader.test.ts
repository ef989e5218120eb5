/**
 * Shutting down (SIGTERM, a restart) waits for responses in flight, but not
 * for ever: a client that stops reading a download (a stalled phone, a hostile
 * "slow read") held app.close(), and with it the process's exit, for as long
 * as it liked. After the grace period (Config.shutdownGraceMs) the service
 * closes every connection still open and close() completes; a reader that is
 * still reading gets its whole file within it.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../types/index.ts';
import { startLive, within, type LiveHarness } from './helpers/live.ts';
import { people } from './helpers/people.ts';

const SIZE = 6 * 1024 * 1024;

/** A 6 MB document uploaded by a visitor: its signed address's path and query. */
async function bigFile(h: LiveHarness): Promise<string> {
  const { apiKey } = await h.createWidget();
  const [ana] = await people(h, apiKey, 'Ana');
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(SIZE).fill(7)], { type: 'application/pdf' }), 'grande.pdf');
  const res = await fetch(h.baseUrl + ROUTES.widgetUpload, {
    method: 'POST',
    headers: { authorization: `Bearer ${ana!.token}` },
    body: form,
  });
  expect(res.status).toBe(200);
  const { mediaUrl } = (await res.json()) as { mediaUrl: string };
  const url = new URL(mediaUrl);
  return url.pathname + url.search;
}

/** A raw connection that asks for `path`; paused, so it reads nothing until resumed. */
async function download(h: LiveHarness, path: string): Promise<{ socket: Socket; received: () => number }> {
  const { hostname, port } = new URL(h.baseUrl);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  let bytes = 0;
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
  // Long enough for the service to fill what the socket's buffers take.
  await new Promise((r) => setTimeout(r, 500));
  return { socket, received: () => bytes };
}

describe('shutdown with a download in flight', () => {
  it('closes a connection that stopped reading after the grace period, so close() completes', async () => {
    const h = await startLive({ shutdownGraceMs: 1_000 });
    const { socket, received } = await download(h, await bigFile(h));
    const ended = new Promise<void>((r) => socket.once('close', () => r()));
    const started = Date.now();
    expect(await within(h.close(), 15_000)).toBe('done');
    // Not at once: the grace period is given to the response in flight.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    // The service ended the connection: reading on finds its end before the whole file.
    socket.resume();
    expect(await within(ended, 5_000)).toBe('done');
    expect(received()).toBeLessThan(SIZE);
  });

  it('lets a download that is being read finish within the grace period', async () => {
    const h = await startLive({ shutdownGraceMs: 20_000 });
    const { socket, received } = await download(h, await bigFile(h));
    const ended = new Promise<void>((r) => socket.once('close', () => r()));
    const closing = h.close();
    // The reader comes back while shutdown waits: it gets the whole file, then close() completes.
    socket.resume();
    expect(await within(ended, 15_000)).toBe('done');
    expect(received()).toBeGreaterThan(SIZE);
    expect(await within(closing, 5_000)).toBe('done');
  });
});
