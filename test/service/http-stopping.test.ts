/**
 * A server shutting down (SIGTERM: app.close()) refuses what still arrives on its open
 * connections with the interface's error body, 503 SERVICE_STOPPING with Retry-After, not
 * fastify's own `{"error":"Service Unavailable",...}`; nothing of a refused request is done.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../types/index.ts';
import { BASIC, createBot, startServer, type Server } from './helpers/http.ts';

/**
 * Counts the messages stored, once the server has stopped answering and just before its storage
 * closes (app.close() closes it last), with `read`.
 */
function countAtClose(server: Server): () => number {
  const db = server.app.charla.db;
  const close = db.close.bind(db);
  let n = -1;
  db.close = async () => {
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM messages');
    n = Number(rows[0]?.n);
    return close();
  };
  return () => n;
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** The interface's 503 SERVICE_STOPPING, as every refused request must carry it. */
function expectStopping(a: Answer): void {
  expect(a.status).toBe(503);
  expect(a.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  expect(a.headers.get('content-type')).toMatch(/^application\/json/);
  expect(a.body).toMatchObject({
    statusMessage: 'failed',
    status: 0,
    error: { code: ERRORS.SERVICE_STOPPING.code, key: 'SERVICE_STOPPING' },
    data: { retryAfterMs: expect.any(Number) },
  });
}

describe('a server shutting down', () => {
  it('answers 50 keep-alive posters with 200 or the interface 503 SERVICE_STOPPING, never fastify’s body', async () => {
    const server = await startServer();
    const botId = await createBot(server);
    const stored = countAtClose(server);
    const before = Number(
      (await server.app.charla.db.query<{ n: string }>('SELECT count(*) AS n FROM messages')).rows[0]?.n,
    );
    const answers: Answer[] = [];
    let stop = false;
    let sent = 0;
    const poster = async (n: number) => {
      while (!stop) {
        const res = await fetch(`${server.base}/v1/bots/${botId}/messages`, {
          method: 'POST',
          headers: { authorization: BASIC, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'text', userId: `u-${n}`, text: `m ${sent++}` }),
        }).catch(() => null);
        // A connection closed under the request: nothing to read (the server is gone).
        if (!res) return;
        const text = await res.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // kept as text: the assertions below say what it was
        }
        answers.push({ status: res.status, headers: res.headers, body });
        if (res.status !== 200) return;
      }
    };
    const posters = Array.from({ length: 50 }, (_, n) => poster(n));
    // Under way on every connection before the shutdown begins.
    while (answers.length < 200) await new Promise((r) => setTimeout(r, 5));
    const closed = server.close();
    await Promise.all(posters);
    stop = true;
    await closed;
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.length).toBeGreaterThan(0);
    for (const a of refused) expectStopping(a);
    // Nothing of a refused request was done: one message stored per 200.
    expect(stored() - before).toBe(answers.length - refused.length);
  }, 60_000);

  it('a request pipelined behind one in progress gets 503 SERVICE_STOPPING, with Retry-After, and is not run', async () => {
    const server = await startServer();
    const botId = await createBot(server);
    const body = JSON.stringify({ type: 'text', userId: 'u-pipelined', text: 'first' });
    const second = JSON.stringify({ type: 'text', userId: 'u-pipelined', text: 'second' });
    const head = (length: number) =>
      `POST /v1/bots/${botId}/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${BASIC}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const url = new URL(server.base);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // The first request's headers and half its body: the connection is busy when the shutdown begins.
    socket.write(head(Buffer.byteLength(body)) + body.slice(0, 10));
    await new Promise((r) => setTimeout(r, 100));
    const stored = countAtClose(server);
    const closed = server.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write(body.slice(10) + head(Buffer.byteLength(second)) + second);
    await ended;
    await closed;
    const responses = raw.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    const parse = (r: string): Answer => {
      const [top = '', payload = ''] = r.split('\r\n\r\n');
      const lines = top.split('\r\n');
      const headers = new Headers();
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
      }
      const status = Number(lines[0]?.split(' ')[1]);
      const text = headers.get('transfer-encoding') === 'chunked' ? dechunk(payload) : payload;
      return { status, headers, body: JSON.parse(text) as unknown };
    };
    const [a, b] = responses.map(parse);
    expect(a?.status).toBe(200);
    expectStopping(b!);
    expect(b?.headers.get('connection')).toBe('close');
    // The first was stored, the second refused before anything ran.
    expect(stored()).toBe(1);
  }, 30_000);
});

function dechunk(s: string): string {
  let out = '';
  let rest = s;
  for (;;) {
    const nl = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, nl), 16);
    if (!size) return out;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
}
