/**
 * The widget API (`/v1/widget/*`) as a hostile page would call it: text
 * PostgreSQL cannot store, values of the wrong type that a lenient validator
 * would quietly turn into strings. Each answer is the interface's error body
 * with 400, never a 500, and nothing is stored.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath, type ErrorBody } from '../../types/index.ts';
import { emitAck, startLive, type LiveHarness } from './helpers/live.ts';

let h: LiveHarness;
let apiKey: string;
let token: string;
let roomId: string;

beforeAll(async () => {
  h = await startLive();
  ({ apiKey } = await h.createWidget({ type: 'group' }));
  const s = await h.session(apiKey, 'hostile-owner');
  token = s.token;
  roomId = s.botRoomId;
});
afterAll(async () => {
  await h?.close();
});

async function expect400(res: Response, field?: string): Promise<ErrorBody> {
  const body = (await res.json()) as ErrorBody;
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body).toMatchObject({ status: 0, statusMessage: 'failed', error: { key: 'VALIDATION_ERROR' } });
  if (field) expect(Object.keys(body.validationError ?? {}).join(' ')).toContain(field);
  return body;
}

const usersNamed = async (pattern: string) =>
  (await h.app.charla.db.query('SELECT id FROM live_users WHERE id LIKE $1', [pattern])).rows.length;

describe('the widget API refuses text that cannot be stored', () => {
  it('answers 400 for a NUL or an unpaired surrogate in a session, and opens none', async () => {
    for (const body of [
      { apiKey, userId: 'nul\u0000user' },
      { apiKey, userId: 'lone\ud800user' },
      { apiKey, userId: 'names-nul', userNames: 'A\u0000B' },
      { apiKey, userId: 'names-surrogate', userNames: '\udc00' },
    ]) {
      await expect400(await h.call('POST', ROUTES.widgetSession, { body }));
    }
    expect(await usersNamed('nul%')).toBe(0);
    expect(await usersNamed('lone%')).toBe(0);
    expect(await usersNamed('names-%')).toBe(0);
  });

  it('answers 400 for a NUL in a room id, a message id, a user id or a member', async () => {
    const room = (path: string) => routePath(path, { roomId });
    const cases: Array<[string, string, unknown]> = [
      ['GET', routePath(ROUTES.widgetRoom, { roomId: 'a\u0000b' }), undefined],
      ['GET', routePath(ROUTES.widgetRoomMembers, { roomId: 'a\u0000b' }), undefined],
      ['GET', `${room(ROUTES.widgetRoomMessages)}?id=${encodeURIComponent('x\u0000')}`, undefined],
      ['POST', ROUTES.widgetDirectRoom, { id: 'other\u0000' }],
      ['POST', room(ROUTES.widgetRoomJoin), { userId: '\u0000' }],
      ['POST', room(ROUTES.widgetRoomLeave), { userId: '\u0000' }],
      ['POST', room(ROUTES.widgetRoomMembers), { member: 'm\u0000' }],
      ['POST', room(ROUTES.widgetRoomMembersBulk), { members: [{ referenceId: 'b', names: '\ud800' }] }],
    ];
    for (const [method, path, body] of cases) {
      await expect400(await h.call(method, path, { token, ...(body !== undefined ? { body } : {}) }));
    }
    const members = await h.app.charla.db.query('SELECT user_id FROM room_members WHERE room_id = $1', [
      roomId,
    ]);
    expect(members.rows.map((r) => (r as { user_id: string }).user_id)).not.toContain('b');
  });

  it('answers 400 for an upload whose roomId field carries a NUL, and stores no file', async () => {
    const before = (await h.app.charla.db.query('SELECT key FROM media')).rows.length;
    const form = new FormData();
    form.append('roomId', 'a\u0000b');
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    const res = await fetch(h.baseUrl + ROUTES.widgetUpload, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    await expect400(res, '/roomId');
    expect((await h.app.charla.db.query('SELECT key FROM media')).rows.length).toBe(before);
  });

  it('answers 400 for a multipart body it cannot read (no boundary, cut short), and stores no file', async () => {
    const before = (await h.app.charla.db.query('SELECT key FROM media')).rows.length;
    const part =
      '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n' +
      'Content-Type: text/plain\r\n\r\nhello';
    const bodies: [string, string][] = [
      ['multipart/form-data', `${part}\r\n--XyZ--\r\n`],
      ['multipart/form-data; boundary=XyZ', part],
    ];
    for (const [type, body] of bodies) {
      const res = await fetch(h.baseUrl + ROUTES.widgetUpload, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': type },
        body,
      });
      await expect400(res, '/file');
    }
    expect((await h.app.charla.db.query('SELECT key FROM media')).rows.length).toBe(before);
  });
});

describe('the widget API checks bodies as sent', () => {
  it('refuses an array or a boolean where an id is a string, instead of reading ["a"] as "a"', async () => {
    await expect400(
      await h.call('POST', ROUTES.widgetSession, { body: { apiKey, userId: ['coerced-user'] } }),
      '/userId',
    );
    expect(await usersNamed('coerced-user')).toBe(0);
    await expect400(await h.call('POST', ROUTES.widgetDirectRoom, { token, body: { id: true } }), '/id');
    await expect400(
      await h.call('POST', ROUTES.widgetDirectRoom, { token, body: { id: ['coerced-peer'] } }),
      '/id',
    );
    await expect400(
      await h.call('POST', routePath(ROUTES.widgetRoomJoin, { roomId }), {
        token,
        body: { userId: ['coerced-joiner'] },
      }),
      '/userId',
    );
    expect(await usersNamed('coerced-%')).toBe(0);
    expect(await usersNamed('true')).toBe(0);
  });

  it('refuses a body that is not JSON with 415, as the server-side operations do', async () => {
    const res = await fetch(h.baseUrl + ROUTES.widgetSession, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ apiKey, userId: 'plain-text-user' }),
    });
    const body = (await res.json()) as ErrorBody;
    expect(res.status).toBe(415);
    expect(body.error.key).toBe('UNSUPPORTED_CONTENT_TYPE');
  });

  it('still takes the widget’s own calls: a number as a contact id, a limit in the query', async () => {
    const direct = await h.call('POST', ROUTES.widgetDirectRoom, { token, body: { id: 42, names: 'N' } });
    expect(direct.status).toBe(200);
    const page = await h.call('GET', `${routePath(ROUTES.widgetRoomMessages, { roomId })}?limit=5`, {
      token,
    });
    expect(page.status).toBe(200);
  });
});

describe('an upload goes out as the kind it is', () => {
  it('refuses a video upload (its limit 25 MB) sent as an IMAGE (8 MB) or an AUDIO, 400 at /mediaUrl; as a VIDEO or a DOCUMENT it goes', async () => {
    const form = new FormData();
    form.append('roomId', roomId);
    form.append('file', new Blob([new Uint8Array(1024)], { type: 'video/mp4' }), 'grande.mp4');
    const up = await fetch(h.baseUrl + ROUTES.widgetUpload, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(up.status).toBe(200);
    const { mediaUrl, type } = (await up.json()) as { mediaUrl: string; type: string };
    expect(type).toBe('VIDEO');
    const socket = await h.connect(token);
    const before = await h.messageCount(roomId);
    const sendAs = (type: string) =>
      emitAck(socket, 'message:send', { id: randomUUID(), roomId, type, mediaUrl } as never);
    for (const as of ['IMAGE', 'AUDIO']) {
      const ack = await sendAs(as);
      expect(ack.ok, as).toBe(false);
      const error = (ack as { error: ErrorBody }).error;
      expect(error.error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(error.validationError ?? {})).toEqual(['/mediaUrl']);
    }
    expect(await h.messageCount(roomId)).toBe(before);
    for (const as of ['VIDEO', 'DOCUMENT']) expect((await sendAs(as)).ok, as).toBe(true);
    socket.close();
  });
});
