/**
 * JSON bodies as a hostile or careless client sends them: another charset
 * than UTF-8, bytes that are not UTF-8, a compressed body the service does
 * not decode. None may be read as something else and stored: 415 or 400 with
 * the interface's error body, nothing stored.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../types/index.ts';
import { BASIC, startServer, type Server } from './helpers/http.ts';

let s: Server;
const botId = 'hostile-body-bot';

beforeAll(async () => {
  s = await startServer();
  await s.app.charla.db.query('INSERT INTO bots (id, company_id, name) VALUES ($1, $2, $3)', [
    botId,
    s.app.charla.config.companyId,
    'Bot',
  ]);
});
afterAll(async () => {
  await s?.close();
});

const messagesTo = async (userId: string) =>
  (
    await s.app.charla.db.query(
      `SELECT m.body FROM messages m JOIN room_members r ON r.room_id = m.room_id WHERE r.user_id = $1`,
      [userId],
    )
  ).rows as Array<{ body: { text?: string } }>;

async function send(body: Buffer | string, headers: Record<string, string>) {
  const res = await fetch(`${s.base}/v1/bots/${botId}/messages`, {
    method: 'POST',
    headers: { authorization: BASIC, ...headers },
    body: typeof body === 'string' ? body : Uint8Array.from(body),
  });
  return { status: res.status, body: (await res.json()) as ErrorBody };
}

const json = (userId: string, text: string) => JSON.stringify({ type: 'text', userId, text });

describe('JSON bodies are UTF-8', () => {
  it('refuses a body that declares another charset with 415, instead of reading its bytes as UTF-8', async () => {
    const latin1 = Buffer.from(json('latin1-user', 'café'), 'latin1');
    const r = await send(latin1, { 'content-type': 'application/json; charset=ISO-8859-1' });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ status: 0, error: { key: 'UNSUPPORTED_CONTENT_TYPE' } });
    expect(String(r.body.message)).toContain('charset');
    const utf16 = await send(Buffer.from(json('utf16-user', 'hola'), 'utf16le'), {
      'content-type': 'application/json; charset=utf-16',
    });
    expect(utf16.status).toBe(415);
    expect(await messagesTo('latin1-user')).toEqual([]);
    expect(await messagesTo('utf16-user')).toEqual([]);
  });

  it('refuses bytes that are not UTF-8 with 400, instead of storing U+FFFD for them', async () => {
    const bad = Buffer.concat([
      Buffer.from('{"type":"text","userId":"bad-bytes-user","text":"caf'),
      Buffer.from([0xe9, 0xff]),
      Buffer.from('"}'),
    ]);
    const r = await send(bad, { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error: { key: 'VALIDATION_ERROR' },
      validationError: { '/': expect.any(String) },
    });
    expect(await messagesTo('bad-bytes-user')).toEqual([]);
  });

  it('still takes UTF-8, declared or not, with any spelling of the charset', async () => {
    for (const [userId, type] of [
      ['plain-user', 'application/json'],
      ['declared-user', 'application/json; charset=utf-8'],
      ['quoted-user', 'application/json;charset="UTF-8"'],
    ] as const) {
      const r = await send(json(userId, 'café ☕'), { 'content-type': type });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect((await messagesTo(userId)).map((m) => m.body.text)).toEqual(['café ☕']);
    }
  });
});

describe('compressed bodies', () => {
  it('refuses a Content-Encoding the service does not decode with 415, not a 400 about JSON or a silent read', async () => {
    const gz = await send(gzipSync(json('gzip-user', 'hola')), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(gz.status).toBe(415);
    expect(String(gz.body.message)).toContain('Content-Encoding');
    // Claimed but not done: the plain bytes are not read as if the claim were false.
    const br = await send(json('br-user', 'hola'), {
      'content-type': 'application/json',
      'content-encoding': 'br',
    });
    expect(br.status).toBe(415);
    expect(await messagesTo('gzip-user')).toEqual([]);
    expect(await messagesTo('br-user')).toEqual([]);
    const identity = await send(json('identity-user', 'hola'), {
      'content-type': 'application/json',
      'content-encoding': 'identity',
    });
    expect(identity.status).toBe(200);
  });
});
