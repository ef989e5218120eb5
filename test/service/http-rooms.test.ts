import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveMessaging } from '../../server/live/messaging.ts';
import { COMPANY, call, createBot, snapshot, startServer, uid, type Server } from './helpers/http.ts';

let server: Server;
let botId: string;
let roomId: string;

beforeAll(async () => {
  server = await startServer();
  botId = await createBot(server);
  roomId = (await server.app.charla.messaging.ensureBotRoom({ botId, userId: uid('user') })).roomId;
});
afterAll(async () => {
  await server?.close();
});

const post = (body: unknown, room = roomId, headers: Record<string, string | undefined> = {}) =>
  call(server, 'POST', `/v1/rooms/${encodeURIComponent(room)}/message`, { body, headers });

async function stored(id: string) {
  const { rows } = await server.app.charla.db.query<{ body: Record<string, unknown>; room_id: string }>(
    'SELECT body, room_id FROM messages WHERE id = $1',
    [id],
  );
  return rows;
}

describe('POST /v1/rooms/{roomId}/message', () => {
  it('stores text and media messages in the room and answers the ids', async () => {
    const t = randomUUID();
    const i = randomUUID();
    const d = randomUUID();
    const res = await post({
      senderId: 'system-crm',
      messages: [
        { id: t, type: 'TEXT', text: 'Tu pedido salió' },
        { id: i, type: 'IMAGE', mediaUrl: 'https://cdn.example.com/a.png', caption: 'Foto' },
        { id: d, type: 'DOCUMENT', mediaUrl: 'https://cdn.example.com/f.pdf' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: expect.any(Array),
      statusMessage: 'success',
      status: 1,
      data: { roomId, messageIds: [t, i, d], duplicates: [] },
    });
    const [text] = await stored(t);
    expect(text?.room_id).toBe(roomId);
    expect(text?.body).toMatchObject({
      type: 'TEXT',
      text: 'Tu pedido salió',
      senderId: 'system-crm',
      by: 'charla',
    });
    expect((await stored(i))[0]?.body).toMatchObject({
      type: 'IMAGE',
      mediaUrl: 'https://cdn.example.com/a.png',
      caption: 'Foto',
    });
    expect((await stored(d))[0]?.body).toMatchObject({
      type: 'DOCUMENT',
      mediaUrl: 'https://cdn.example.com/f.pdf',
    });
  });

  it('speaks as the bot, under its name, when the sender is the room bot; a system has no name', async () => {
    const id = randomUUID();
    const res = await post({ senderId: botId, messages: [{ id, type: 'TEXT', text: 'Soy el bot' }] });
    expect(res.status).toBe(200);
    expect((await stored(id))[0]?.body).toMatchObject({
      by: 'bot',
      senderId: botId,
      senderNames: 'Charla Bot',
    });
    const system = randomUUID();
    await post({ senderId: 'system-crm', messages: [{ id: system, type: 'TEXT', text: 'Aviso' }] });
    expect((await stored(system))[0]?.body).not.toHaveProperty('senderNames');
  });

  it('speaks as a bot of the company, under its name, in a room that is not that bot’s (two people’s, another bot’s)', async () => {
    const messaging = server.app.charla.messaging as LiveMessaging;
    const { roomId: direct } = await messaging.rooms.openDirect(
      server.app.charla.config.companyId,
      { id: uid('ana') },
      { id: uid('luis') },
    );
    const salesBot = await createBot(server, { name: 'Ventas' });
    const id = randomUUID();
    expect(
      (await post({ senderId: salesBot, messages: [{ id, type: 'TEXT', text: 'Hola' }] }, direct)).status,
    ).toBe(200);
    expect((await stored(id))[0]?.body).toMatchObject({
      by: 'bot',
      senderId: salesBot,
      senderNames: 'Ventas',
    });
    // An id that is no bot of the company is the service, without a name.
    const other = randomUUID();
    await post({ senderId: 'not-a-bot', messages: [{ id: other, type: 'TEXT', text: 'Aviso' }] }, direct);
    expect((await stored(other))[0]?.body).toMatchObject({ by: 'charla', senderId: 'not-a-bot' });
    expect((await stored(other))[0]?.body).not.toHaveProperty('senderNames');
    // In another bot's room, the sales bot speaks under its own name, not the room bot's.
    const inBotRoom = randomUUID();
    await post({ senderId: salesBot, messages: [{ id: inBotRoom, type: 'TEXT', text: 'Oferta' }] });
    expect((await stored(inBotRoom))[0]?.body).toMatchObject({
      by: 'bot',
      senderId: salesBot,
      senderNames: 'Ventas',
    });
  });

  it('a media message’s text is its caption: held to a caption’s 1,024 characters; blank, no caption', async () => {
    const long = await post({
      senderId: 's',
      messages: [
        {
          id: randomUUID(),
          type: 'IMAGE',
          mediaUrl: 'https://cdn.example.com/a.png',
          text: 'c'.repeat(1025),
        },
      ],
    });
    expect(long.status).toBe(400);
    expect(Object.keys(long.body.validationError)).toEqual(['/messages/0/text']);
    // Characters are code points: 1,025 emoji are one too many, 1,024 fit (2,048 UTF-16 units).
    const image = (text: string, id: string = randomUUID()) => ({
      id,
      type: 'IMAGE',
      mediaUrl: 'https://cdn.example.com/a.png',
      text,
    });
    const emojiOver = await post({ senderId: 's', messages: [image('😀'.repeat(1025))] });
    expect(emojiOver.status).toBe(400);
    expect(Object.keys(emojiOver.body.validationError)).toEqual(['/messages/0/text']);
    const emoji = randomUUID();
    expect((await post({ senderId: 's', messages: [image('😀'.repeat(1024), emoji)] })).status).toBe(200);
    expect((await stored(emoji))[0]?.body).toMatchObject({ caption: '😀'.repeat(1024) });
    const blank = randomUUID();
    const ok = await post({
      senderId: 's',
      messages: [{ id: blank, type: 'IMAGE', mediaUrl: 'https://cdn.example.com/a.png', text: '   ' }],
    });
    expect(ok.status).toBe(200);
    expect((await stored(blank))[0]?.body).not.toHaveProperty('caption');
    // A blank caption is no caption either: the text, which says something, is the caption.
    const blankCaption = randomUUID();
    const both = await post({
      senderId: 's',
      messages: [
        {
          id: blankCaption,
          type: 'DOCUMENT',
          mediaUrl: 'https://cdn.example.com/a.pdf',
          caption: '  ',
          text: 'Factura de marzo',
        },
      ],
    });
    expect(both.status).toBe(200);
    expect((await stored(blankCaption))[0]?.body).toMatchObject({ caption: 'Factura de marzo' });
  });

  it('a post that names the room’s user as its sender is the service’s: unread for them, and theirs to mark seen', async () => {
    const userId = uid('user');
    const room = (await server.app.charla.messaging.ensureBotRoom({ botId, userId })).roomId;
    const unread = async () =>
      (
        await server.app.charla.db.query<{ unread: number }>(
          'SELECT unread FROM room_members WHERE room_id = $1 AND user_id = $2',
          [room, userId],
        )
      ).rows[0]?.unread;
    const before = await unread();
    const one = randomUUID();
    const two = [randomUUID(), randomUUID()];
    // One message (stored alone) and two (stored together): each way of storing counts it.
    expect(
      (await post({ senderId: userId, messages: [{ id: one, type: 'TEXT', text: 'a' }] }, room)).status,
    ).toBe(200);
    const both = two.map((id) => ({ id, type: 'TEXT', text: 'b' }));
    expect((await post({ senderId: userId, messages: both }, room)).status).toBe(200);
    expect(await unread()).toBe(Number(before) + 3);
    expect((await stored(one))[0]?.body).toMatchObject({ senderId: userId, by: 'charla' });
    // The user saw them: they become DELIVERED_USER (a person's own messages never do by their own eyes).
    const live = server.app.charla.messaging as LiveMessaging;
    expect(await live.markSeen(room, userId, [one, ...two])).toBe(3);
  });

  it('one message twice in a request is one message whatever the order of its fields', async () => {
    const id = randomUUID();
    const res = await post({
      senderId: 's',
      messages: [
        { id, type: 'TEXT', text: 'k' },
        { text: 'k', type: 'TEXT', id },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ messageIds: [id] });
  });

  it('is idempotent on the message id: posting it again stores nothing', async () => {
    const id = randomUUID();
    const body = { senderId: 'system', messages: [{ id, type: 'TEXT', text: 'Una vez' }] };
    const first = await post(body);
    expect(first.body.data).toMatchObject({ messageIds: [id], duplicates: [] });
    const before = await snapshot(server);
    const again = await post(body);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ messageIds: [], duplicates: [id] });
    expect(await snapshot(server)).toEqual(before);
    expect(await stored(id)).toHaveLength(1);
    // Twice in one request: one stored.
    const twin = randomUUID();
    const both = await post({
      senderId: 's',
      messages: [
        { id: twin, type: 'TEXT', text: 'a' },
        { id: twin, type: 'TEXT', text: 'a' },
      ],
    });
    expect(both.body.data).toMatchObject({ messageIds: [twin], duplicates: [twin] });
  });

  it('is one message whatever the case of its UUID', async () => {
    const id = randomUUID();
    const first = await post({
      senderId: 's',
      messages: [{ id: id.toUpperCase(), type: 'TEXT', text: 'upper' }],
    });
    expect(first.body.data).toMatchObject({ messageIds: [id], duplicates: [] });
    const again = await post({ senderId: 's', messages: [{ id, type: 'TEXT', text: 'upper' }] });
    expect(again.body.data).toMatchObject({ messageIds: [], duplicates: [id] });
    const rows = await stored(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.body).toMatchObject({ id, text: 'upper' });
  });

  it('finds the room whatever the case of its UUID in the path', async () => {
    const id = randomUUID();
    const res = await post(
      { senderId: 's', messages: [{ id, type: 'TEXT', text: 'mayúsculas' }] },
      roomId.toUpperCase(),
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ roomId, messageIds: [id] });
    expect((await stored(id))[0]?.room_id).toBe(roomId);
  });

  it('under concurrent posts of one id to two rooms: one room gets it, every other request stores nothing', async () => {
    const other = (await server.app.charla.messaging.ensureBotRoom({ botId, userId: uid('user') })).roomId;
    for (let trial = 0; trial < 4; trial++) {
      const shared = randomUUID();
      const requests = Array.from({ length: 12 }, (_, k) => {
        const fresh = [randomUUID(), randomUUID()];
        const room = k % 2 === 0 ? roomId : other;
        return post(
          {
            senderId: 'race',
            messages: [
              ...fresh.map((id) => ({ id, type: 'TEXT', text: 'fresh' })),
              { id: shared, type: 'TEXT', text: 'shared' },
            ],
          },
          room,
        ).then((res) => ({ res, room, fresh }));
      });
      const done = await Promise.all(requests);
      const holder = (await stored(shared))[0]?.room_id;
      expect([roomId, other]).toContain(holder);
      for (const { res, room, fresh } of done) {
        const kept = (await Promise.all(fresh.map(stored))).map((r) => r.length);
        if (room === holder) {
          // The shared id is stored once; each request to its room stores its own messages.
          expect(res.status).toBe(200);
          expect(kept).toEqual([1, 1]);
        } else {
          expect(res.status).toBe(400);
          expect(res.body.validationError).toEqual({
            '/messages/2/id': 'is already the id of a message in another room',
          });
          expect(kept).toEqual([0, 0]);
        }
      }
      const winners = done.filter(
        ({ res, room }) => room === holder && (res.body.data?.messageIds ?? []).includes(shared),
      );
      expect(winners).toHaveLength(1);
    }
  });

  it('accepts the company token; 401 without credentials, 404 for an unknown room', async () => {
    const ok = await post(
      { senderId: 's', messages: [{ id: randomUUID(), type: 'TEXT', text: 'x' }] },
      roomId,
      {
        authorization: COMPANY,
      },
    );
    expect(ok.status).toBe(200);
    const before = await snapshot(server);
    const noAuth = await post(
      { senderId: 's', messages: [{ id: randomUUID(), type: 'TEXT', text: 'x' }] },
      roomId,
      {
        authorization: undefined,
      },
    );
    expect(noAuth.status).toBe(401);
    const wrong = await post(
      { senderId: 's', messages: [{ id: randomUUID(), type: 'TEXT', text: 'x' }] },
      roomId,
      {
        authorization: 'Basic bad-token',
      },
    );
    expect(wrong.status).toBe(401);
    const missing = await post(
      { senderId: 's', messages: [{ id: randomUUID(), type: 'TEXT', text: 'x' }] },
      uid('room'),
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error.key).toBe('NOT_FOUND');
    expect(await snapshot(server)).toEqual(before);
  });

  it('a TEXT ignores the fields its type does not have (mediaUrl, caption), whatever they hold', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const res = await post({
      senderId: 'system-crm',
      messages: [
        { id: ids[0], type: 'TEXT', text: 'Tu pedido ha salido', mediaUrl: 'https://example.com/r.png' },
        { id: ids[1], type: 'TEXT', text: 'con un objeto', mediaUrl: { a: 1 }, caption: 'x' },
        { id: ids[2], type: 'TEXT', text: 'con null', mediaUrl: null },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((res.body as { data: { messageIds: string[] } }).data.messageIds).toEqual(ids);
    for (const [i, id] of ids.entries()) {
      const body = (await stored(id!))[0]?.body;
      expect(body).toMatchObject({
        type: 'TEXT',
        text: ['Tu pedido ha salido', 'con un objeto', 'con null'][i],
      });
      expect(body).not.toHaveProperty('mediaUrl');
      expect(body).not.toHaveProperty('caption');
    }
  });

  it('validates each message by its type and changes nothing when any is bad', async () => {
    const before = await snapshot(server);
    const good = { id: randomUUID(), type: 'TEXT', text: 'ok' };
    const cases: Array<[unknown, string[]]> = [
      [{ messages: [good] }, ['/senderId']],
      [{ senderId: '', messages: [good] }, ['/senderId']],
      [{ senderId: 's' }, ['/messages']],
      [{ senderId: 's', messages: [] }, ['/messages']],
      [
        { senderId: 's', messages: Array.from({ length: 101 }, () => ({ ...good, id: randomUUID() })) },
        ['/messages'],
      ],
      [
        { senderId: 's', messages: [good, { id: 'not-a-uuid', type: 'TEXT', text: 'x' }] },
        ['/messages/1/id'],
      ],
      [{ senderId: 's', messages: [{ type: 'TEXT', text: 'x' }] }, ['/messages/0/id']],
      [{ senderId: 's', messages: [{ id: randomUUID(), type: 'TEXT' }] }, ['/messages/0/text']],
      [{ senderId: 's', messages: [{ id: randomUUID(), type: 'TEXT', text: '' }] }, ['/messages/0/text']],
      [{ senderId: 's', messages: [{ id: randomUUID(), type: 'IMAGE' }] }, ['/messages/0/mediaUrl']],
      [
        { senderId: 's', messages: [{ id: randomUUID(), type: 'VIDEO', text: 'x' }] },
        ['/messages/0/mediaUrl'],
      ],
      [
        {
          senderId: 's',
          messages: [{ id: randomUUID(), type: 'DOCUMENT', mediaUrl: 'http://example.com/a.pdf' }],
        },
        ['/messages/0/mediaUrl'],
      ],
      [
        {
          senderId: 's',
          messages: [{ id: randomUUID(), type: 'IMAGE', mediaUrl: 'https://192.168.0.1/a.png' }],
        },
        ['/messages/0/mediaUrl'],
      ],
      [
        {
          senderId: 's',
          messages: [good, { id: randomUUID(), type: 'IMAGE', mediaUrl: 'https://ev\til.example/a.png' }],
        },
        ['/messages/1/mediaUrl'],
      ],
      [
        {
          senderId: 's',
          messages: [
            { id: randomUUID(), type: 'DOCUMENT', mediaUrl: 'https://evil.example/\njavascript:alert(1)' },
          ],
        },
        ['/messages/0/mediaUrl'],
      ],
      [
        {
          senderId: 's',
          messages: [{ id: randomUUID(), type: 'IMAGE', mediaUrl: 'https://cdn.example/\u202Egnp.exe' }],
        },
        ['/messages/0/mediaUrl'],
      ],
      [
        { senderId: 's', messages: [{ id: randomUUID(), type: 'LOCATION', lat: '1', lng: '2' }] },
        ['/messages/0/type'],
      ],
      [{ senderId: 's', messages: [{ id: randomUUID() }] }, ['/messages/0/type']],
      [{ senderId: 's', messages: ['hola'] }, ['/messages/0']],
      [
        { senderId: 's', messages: [good, { id: randomUUID(), type: 'TEXT', text: 5 }] },
        ['/messages/1/text'],
      ],
    ];
    for (const [body, fields] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      for (const f of fields)
        expect(Object.keys(res.body.validationError), JSON.stringify(body).slice(0, 200)).toContain(f);
    }
    expect(await snapshot(server)).toEqual(before);
    const hundred = await post({
      senderId: 's',
      messages: Array.from({ length: 100 }, () => ({ ...good, id: randomUUID() })),
    });
    expect(hundred.status).toBe(200);
    expect(hundred.body.data.messageIds).toHaveLength(100);
  });
});
