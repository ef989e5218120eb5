import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROUTES,
  routePath,
  type ApiResponse,
  type Member,
  type Message,
  type Room,
} from '../../types/index.ts';
import { makePng } from '../../server/live/assets.ts';
import { collect, emitAck, sendText, startLive, waitFor, type LiveHarness } from './helpers/live.ts';

let h: LiveHarness;
let apiKey: string;
let botId: string;

beforeAll(async () => {
  h = await startLive();
  ({ apiKey, botId } = await h.createWidget());
});
afterAll(async () => {
  await h?.close();
});

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

describe('widget rooms over REST', () => {
  it('opens a session with the widget, its bot and the bot room', async () => {
    const s = await h.session(apiKey, undefined, { userNames: 'Nadie' });
    expect(s.user.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.user.names).toBe('Nadie');
    expect(s.bot.id).toBe(botId);
    expect(s.widget.theme).toMatchObject({ position: 'br' });
    const room = await json<Room>(
      await h.call('GET', routePath(ROUTES.widgetRoom, { roomId: s.botRoomId }), { token: s.token }),
    );
    expect(room).toMatchObject({
      id: s.botRoomId,
      type: 'bot',
      channel: 'web',
      deleted: false,
      bot: { id: botId },
    });
    expect(room.members).toEqual(expect.arrayContaining([s.user.id, botId]));
    const keys = [
      'unread',
      'id',
      'bot',
      'type',
      'company',
      'channel',
      'deleted',
      'members',
      'avatarUrl',
      'createdAt',
      'updatedAt',
      'name',
      'membersInfo',
      'lastMessageAt',
      'channelProvider',
    ];
    for (const k of keys) expect(room, k).toHaveProperty(k);
    const member = room.membersInfo.find((m) => m.referenceId === s.user.id) as Member;
    for (const k of [
      'id',
      'referenceId',
      'roomId',
      'botId',
      'companyId',
      'socketId',
      'createdAt',
      'memberType',
    ])
      expect(member, k).toHaveProperty(k);
    expect(member.memberType).toBe('Client');
    // The same user again finds the same room.
    const again = await h.session(apiKey, s.user.id);
    expect(again.botRoomId).toBe(s.botRoomId);
  });

  it('opens the direct room of two users once and finds it again from either side', async () => {
    const a = await h.session(apiKey, `a-${randomUUID()}`, { userNames: 'Ana' });
    const b = await h.session(apiKey, `b-${randomUUID()}`, { userNames: 'Beto' });
    const r1 = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, {
        token: a.token,
        body: { id: b.user.id, names: 'Beto' },
      }),
    );
    const r2 = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: a.token, body: { id: b.user.id } }),
    );
    const r3 = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: b.token, body: { id: a.user.id } }),
    );
    expect(r1.id).toBe(r2.id);
    expect(r1.id).toBe(r3.id);
    expect(r1.type).toBe('direct');
    expect(r1.name).toBe('Beto');
    expect(r3.name).toBe('Ana');
  });

  it('lists the user’s rooms with the last message and unread count', async () => {
    const a = await h.session(apiKey, `a-${randomUUID()}`);
    const b = await h.session(apiKey, `b-${randomUUID()}`);
    const room = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: a.token, body: { id: b.user.id } }),
    );
    const sa = await h.connect(a.token);
    await sendText(sa, room.id, 'uno');
    await sendText(sa, room.id, 'dos');
    const { rooms } = await json<{ rooms: Room[] }>(
      await h.call('GET', ROUTES.widgetRooms, { token: b.token }),
    );
    const listed = rooms.find((r) => r.id === room.id) as Room;
    expect(listed.unread).toBe(2);
    expect(listed.lastMessage).toMatchObject({ type: 'TEXT', text: 'dos' });
    expect(rooms[0]?.id).toBe(room.id); // most recent first
  });

  it('pages history backwards from a message id, newest last, with a cap on limit', async () => {
    const a = await h.session(apiKey, `a-${randomUUID()}`);
    const b = await h.session(apiKey, `b-${randomUUID()}`);
    const room = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: a.token, body: { id: b.user.id } }),
    );
    const sa = await h.connect(a.token);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const r = (await sendText(sa, room.id, `m${i}`)) as { ok: true; data: Message };
      ids.push(String(r.data.id));
    }
    const path = routePath(ROUTES.widgetRoomMessages, { roomId: room.id });
    const latest = await json<{ messages: Message[] }>(await h.call('GET', path, { token: b.token }));
    expect(latest.messages.map((m) => m.id)).toEqual(ids.slice(5));
    const older = await json<{ messages: Message[] }>(
      await h.call('GET', `${path}?limit=3&id=${ids[5]}`, { token: b.token }),
    );
    expect(older.messages.map((m) => m.id)).toEqual(ids.slice(2, 5));
    // The cap at its bound: 100 is a page (all 25 here), 101 and 1000 are a 400 naming limit.
    const hundred = await json<{ messages: Message[] }>(
      await h.call('GET', `${path}?limit=100`, { token: b.token }),
    );
    expect(hundred.messages.map((m) => m.id)).toEqual(ids);
    for (const limit of [101, 1000]) {
      const tooMany = await h.call('GET', `${path}?limit=${limit}`, { token: b.token });
      expect(tooMany.status).toBe(400);
      expect(Object.keys(((await tooMany.json()) as { validationError: object }).validationError)).toEqual([
        'querystring:/limit',
      ]);
    }
    const unknown = await h.call('GET', `${path}?id=${randomUUID()}`, { token: b.token });
    expect(unknown.status).toBe(404);
  });

  it('adds at most 100 members in one call: 101 are a 400 naming /members and nobody is added', async () => {
    const a = await h.session(apiKey, `a-${randomUUID()}`);
    const b = await h.session(apiKey, `b-${randomUUID()}`);
    const room = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: a.token, body: { id: b.user.id } }),
    );
    const path = routePath(ROUTES.widgetRoomMembersBulk, { roomId: room.id });
    const people = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({ referenceId: `${tag}-${i}`, names: `P ${i}` }));
    const count = async () =>
      (
        await json<{ members: Member[] }>(
          await h.call('GET', routePath(ROUTES.widgetRoomMembers, { roomId: room.id }), { token: a.token }),
        )
      ).members.length;
    const over = await h.call('POST', path, { token: a.token, body: { members: people(101, 'over') } });
    expect(over.status).toBe(400);
    expect(Object.keys(((await over.json()) as { validationError: object }).validationError)).toEqual([
      '/members',
    ]);
    expect(await count()).toBe(2);
    const hundred = await h.call('POST', path, { token: a.token, body: { members: people(100, 'ok') } });
    expect((await json<ApiResponse>(hundred)).status).toBe(true);
    expect(await count()).toBe(102);
  });

  it('adds members one by one and in bulk, joins and leaves, and tells the room live', async () => {
    const a = await h.session(apiKey, `a-${randomUUID()}`, { userNames: 'Ana' });
    const b = await h.session(apiKey, `b-${randomUUID()}`);
    const c = await h.session(apiKey, `c-${randomUUID()}`);
    const room = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: a.token, body: { id: b.user.id } }),
    );
    const sa = await h.connect(a.token);
    const sc = await h.connect(c.token);
    const joined: string[] = [];
    const left: string[] = [];
    sa.on('member:joined', (e) => joined.push(e.member.referenceId));
    sa.on('member:left', (e) => left.push(e.member.referenceId));
    const gotC = collect(sc);

    const add = await h.call('POST', routePath(ROUTES.widgetRoomMembers, { roomId: room.id }), {
      token: a.token,
      body: { member: { id: c.user.id, names: 'Carla' } },
    });
    expect(await json<ApiResponse>(add)).toMatchObject({ status: true, statusMessage: 'success' });
    await waitFor(() => joined.includes(c.user.id), 3000, 'member:joined');
    // C's connected socket is in the room now: it gets messages live.
    await sendText(sa, room.id, 'bienvenida Carla');
    await waitFor(
      () => gotC.some((m) => m.type === 'TEXT' && m.text === 'bienvenida Carla'),
      3000,
      'live to the new member',
    );
    // A third person turns the direct room into a group.
    const asGroup = await json<Room>(
      await h.call('GET', routePath(ROUTES.widgetRoom, { roomId: room.id }), { token: c.token }),
    );
    expect(asGroup.type).toBe('group');
    expect(asGroup.membersInfo.find((m) => m.referenceId === c.user.id)?.names).toBe('Carla');

    const bulk = await h.call('POST', routePath(ROUTES.widgetRoomMembersBulk, { roomId: room.id }), {
      token: a.token,
      body: {
        members: [{ referenceId: 'agent-1', names: 'Agente', memberType: 'Charla' }, { referenceId: 'd-1' }],
      },
    });
    expect((await json<ApiResponse>(bulk)).status).toBe(true);
    const { members } = await json<{ members: Member[] }>(
      await h.call('GET', routePath(ROUTES.widgetRoomMembers, { roomId: room.id }), { token: a.token }),
    );
    expect(members.find((m) => m.referenceId === 'agent-1')?.memberType).toBe('Charla');
    expect(members.find((m) => m.referenceId === 'd-1')?.memberType).toBe('Client');

    const leave = await h.call('POST', routePath(ROUTES.widgetRoomLeave, { roomId: room.id }), {
      token: c.token,
      body: { userId: c.user.id },
    });
    expect((await json<ApiResponse>(leave)).status).toBe(true);
    await waitFor(() => left.includes(c.user.id), 3000, 'member:left');
    const afterLeave = await sendText(sc, room.id, 'sigo aquí?');
    expect(afterLeave.ok).toBe(false);
    const forbidden = await h.call('GET', routePath(ROUTES.widgetRoom, { roomId: room.id }), {
      token: c.token,
    });
    expect(forbidden.status).toBe(403);

    // Back in through a member.
    const rejoin = await h.call('POST', routePath(ROUTES.widgetRoomJoin, { roomId: room.id }), {
      token: a.token,
      body: { userId: c.user.id },
    });
    expect((await json<ApiResponse>(rejoin)).status).toBe(true);
    const back = await sendText(sc, room.id, 'volví');
    expect(back.ok).toBe(true);
    // An outsider cannot join someone else into a room, nor themselves into a non-group room.
    const d = await h.session(apiKey, `e-${randomUUID()}`);
    const self = await h.call('POST', routePath(ROUTES.widgetRoomJoin, { roomId: a.botRoomId }), {
      token: d.token,
      body: { userId: d.user.id },
    });
    expect(self.status).toBe(403);
  });

  it('keeps a direct conversation between its two people when a third makes it a group', async () => {
    const a = await h.session(apiKey, `a-${randomUUID()}`, { userNames: 'Ana' });
    const b = await h.session(apiKey, `b-${randomUUID()}`, { userNames: 'Beto' });
    const c = await h.session(apiKey, `c-${randomUUID()}`, { userNames: 'Carla' });
    const d = await h.session(apiKey, `d-${randomUUID()}`, { userNames: 'Dani' });
    const room = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: a.token, body: { id: b.user.id } }),
    );
    const sa = await h.connect(a.token);
    const sb = await h.connect(b.token);
    await sendText(sa, room.id, 'solo entre nosotros 1');
    await sendText(sb, room.id, 'solo entre nosotros 2');
    const addMember = (token: string, id: string) =>
      h.call('POST', routePath(ROUTES.widgetRoomMembers, { roomId: room.id }), {
        token,
        body: { member: { id } },
      });
    expect((await addMember(a.token, c.user.id)).status).toBe(200);
    await sendText(sa, room.id, 'hola Carla');
    expect((await addMember(b.token, d.user.id)).status).toBe(200);
    await sendText(sb, room.id, 'hola Dani');

    const texts = async (token: string, query = '') =>
      (
        await json<{ messages: Message[] }>(
          await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId: room.id }) + query, { token }),
        )
      ).messages.map((m) => (m.type === 'TEXT' ? m.text : m.type));
    const all = ['solo entre nosotros 1', 'solo entre nosotros 2', 'hola Carla', 'hola Dani'];
    expect(await texts(a.token)).toEqual(all);
    expect(await texts(b.token)).toEqual(all);
    // Whoever joined after it became a group sees what came after: both C and D.
    expect(await texts(c.token)).toEqual(['hola Carla', 'hola Dani']);
    expect(await texts(d.token)).toEqual(['hola Carla', 'hola Dani']);
    // Paging back from the first visible message finds nothing older.
    const mine = await json<{ messages: Message[] }>(
      await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId: room.id }), { token: c.token }),
    );
    expect(await texts(c.token, `?id=${mine.messages[0]?.id}`)).toEqual([]);
    // Nor over the socket's catch-up, nor as the room's last message.
    const sc = await h.connect(c.token);
    const synced = await emitAck(sc, 'messages:sync', { after: { [room.id]: 0 } });
    expect(synced.ok).toBe(true);
    const got = synced.ok ? (synced.data as { messages: Message[] }).messages : [];
    expect(got.filter((m) => m.roomId === room.id).map((m) => (m.type === 'TEXT' ? m.text : ''))).toEqual([
      'hola Carla',
      'hola Dani',
    ]);
    const { rooms } = await json<{ rooms: Room[] }>(
      await h.call('GET', ROUTES.widgetRooms, { token: d.token }),
    );
    const listed = rooms.find((r) => r.id === room.id);
    expect(listed?.lastMessage).toMatchObject({ text: 'hola Dani' });
    const sd = await h.connect(d.token);
    await sendText(sd, room.id, 'gracias');
    expect(await texts(a.token)).toEqual([...all, 'gracias']);
  });

  it('uploads an image and answers a signed address that serves it, and refreshes it', async () => {
    const s = await h.session(apiKey, `u-${randomUUID()}`);
    const png = makePng();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'foto.png');
    const res = await fetch(h.baseUrl + ROUTES.widgetUpload, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}` },
      body: form,
    });
    expect(res.status).toBe(200);
    const up = await json<{ mediaUrl: string; type: string; size: number; name: string }>(res);
    expect(up).toMatchObject({ type: 'IMAGE', size: png.length, name: 'foto.png' });
    const file = await fetch(up.mediaUrl);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true);
    const refreshed = await json<{ signedUrl: string }>(
      await h.call('POST', ROUTES.widgetAssetsRefresh, {
        token: s.token,
        body: { resourceUrl: up.mediaUrl },
      }),
    );
    expect((await fetch(refreshed.signedUrl)).status).toBe(200);
    const foreign = await h.call('POST', ROUTES.widgetAssetsRefresh, {
      token: s.token,
      body: { resourceUrl: 'https://elsewhere.example/v1/media/widget/x' },
    });
    expect(foreign.status).toBe(422);
  });

  it('refuses uploads of the wrong type and images over 8 MB', async () => {
    const s = await h.session(apiKey, `u-${randomUUID()}`);
    const send = (blob: Blob, name: string, roomIds: string[] = []) => {
      const form = new FormData();
      for (const roomId of roomIds) form.append('roomId', roomId);
      form.append('file', blob, name);
      return fetch(h.baseUrl + ROUTES.widgetUpload, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}` },
        body: form,
      });
    };
    const html = await send(new Blob(['<script>alert(1)</script>'], { type: 'text/html' }), 'x.html');
    expect(html.status).toBe(422);
    expect((await json<{ error: { key: string } }>(html)).error.key).toBe('UNSUPPORTED_MEDIA_TYPE');
    const big = await send(
      new Blob([new Uint8Array(8 * 1024 * 1024 + 10)], { type: 'image/png' }),
      'big.png',
    );
    expect(big.status).toBe(413);
    // Refused before its whole body came: the connection is not kept for another request, which
    // would meet the rest of this body (keep-alive clients saw their next request reset).
    const bigger = await send(new Blob([new Uint8Array(12 * 1024 * 1024)], { type: 'image/png' }), 'big.png');
    expect(bigger.status).toBe(413);
    expect(bigger.headers.get('connection')).toBe('close');
    expect((await json<{ error: { key: string } }>(bigger)).error.key).toBe('PAYLOAD_TOO_LARGE');
    const next = await h.call('GET', routePath(ROUTES.widgetRoomMembers, { roomId: s.botRoomId }), {
      token: s.token,
    });
    expect(next.status).toBe(200);
    const pdf = await send(
      new Blob([new Uint8Array(2 * 1024 * 1024)], { type: 'application/pdf' }),
      'doc.pdf',
    );
    expect(pdf.status).toBe(200);
    // For a room the user is not in: refused.
    const png = () => new Blob([new Uint8Array(makePng())], { type: 'image/png' });
    const notMine = await send(png(), 'x.png', [randomUUID()]);
    expect(notMine.status).toBe(403);
    // The room given twice (one of them the user's own) names no one room: 400, nothing stored.
    const mediaBefore = await h.app.charla.db.query('SELECT key FROM media');
    for (const rooms of [
      [randomUUID(), s.botRoomId],
      [s.botRoomId, randomUUID()],
      [s.botRoomId, s.botRoomId],
    ]) {
      const res = await send(png(), 'x.png', rooms);
      expect(res.status).toBe(400);
      const body = await json<{ error: { key: string }; validationError: Record<string, string> }>(res);
      expect(body.error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(body.validationError)).toEqual(['/roomId']);
    }
    expect((await h.app.charla.db.query('SELECT key FROM media')).rows).toEqual(mediaBefore.rows);
    expect(
      (
        await h.app.charla.db.query(
          'SELECT count(*)::int AS n FROM media_chunks WHERE media_key NOT IN (SELECT key FROM media)',
        )
      ).rows,
    ).toEqual([{ n: 0 }]);
  });

  it('shows a connected member’s socket id, and null once it disconnects', async () => {
    const s = await h.session(apiKey, `u-${randomUUID()}`);
    const socket = await h.connect(s.token);
    const path = routePath(ROUTES.widgetRoomMembers, { roomId: s.botRoomId });
    const socketIdOf = async () =>
      (await json<{ members: Member[] }>(await h.call('GET', path, { token: s.token }))).members.find(
        (m) => m.referenceId === s.user.id,
      )?.socketId;
    let seen: string | null | undefined;
    for (let i = 0; i < 50 && seen !== socket.id; i++) {
      seen = await socketIdOf();
      if (seen !== socket.id) await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen).toBe(socket.id);
    socket.disconnect();
    for (let i = 0; i < 50 && seen !== null; i++) {
      seen = await socketIdOf();
      if (seen !== null) await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen).toBeNull();
  });

  it('room:read with the last seq the widget holds leaves what came after it unread (a report the service handles late clears no more)', async () => {
    const a = await h.session(apiKey, `a-${randomUUID()}`);
    const b = await h.session(apiKey, `b-${randomUUID()}`);
    const room = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: a.token, body: { id: b.user.id } }),
    );
    const sa = await h.connect(a.token);
    const sb = await h.connect(b.token);
    const first = (await sendText(sa, room.id, 'uno')) as { ok: true; data: Message };
    // Beto read up to 'uno'; 'dos' and 'tres' reach the service before his report does.
    await sendText(sa, room.id, 'dos');
    await sendText(sa, room.id, 'tres');
    const unread = async () =>
      (
        await json<Room>(
          await h.call('GET', routePath(ROUTES.widgetRoom, { roomId: room.id }), { token: b.token }),
        )
      ).unread;
    expect(await unread()).toBe(3);
    expect(await emitAck(sb, 'room:read', { roomId: room.id, seq: first.data.seq })).toEqual({
      ok: true,
      data: { unread: 2 },
    });
    expect(await unread()).toBe(2);
    // An older report changes nothing; a seq past the end reads everything.
    expect(await emitAck(sb, 'room:read', { roomId: room.id, seq: 0 })).toEqual({
      ok: true,
      data: { unread: 2 },
    });
    expect(await emitAck(sb, 'room:read', { roomId: room.id, seq: 1e9 })).toEqual({
      ok: true,
      data: { unread: 0 },
    });
    expect(await unread()).toBe(0);
    // Without a seq: the whole room, as before. A seq that is not a whole number is refused.
    await sendText(sa, room.id, 'cuatro');
    for (const seq of [-1, 1.5, '3', null])
      expect((await emitAck(sb, 'room:read', { roomId: room.id, seq: seq as never })).ok, String(seq)).toBe(
        false,
      );
    expect(await emitAck(sb, 'room:read', { roomId: room.id })).toEqual({ ok: true, data: { unread: 0 } });
    expect(await unread()).toBe(0);
  });

  it('acks room:read and messages:seen only for members', async () => {
    const s = await h.session(apiKey, `u-${randomUUID()}`);
    const socket = await h.connect(s.token);
    expect(await emitAck(socket, 'room:read', { roomId: s.botRoomId })).toEqual({
      ok: true,
      data: { unread: 0 },
    });
    const other = await emitAck(socket, 'room:read', { roomId: randomUUID() });
    expect(other.ok).toBe(false);
  });
});
