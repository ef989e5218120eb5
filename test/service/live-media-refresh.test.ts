/**
 * A widget session has a media address signed afresh
 * (POST /v1/widget/assets/refresh) only for media it could see: uploaded for
 * or sent in a room the user is in now, its own uploads, and the bot's demo
 * media. An address someone once saw is not a key for ever.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { MEDIA_URL_TTL_DEFAULT, ROUTES, routePath, type ErrorBody, type Room } from '../../types/index.ts';
import { openDb } from '../../server/store/db.ts';
import { migrate } from '../../server/store/migrate.ts';
import { coreMigrations } from '../../server/store/core-migrations.ts';
import { liveMigrations } from '../../server/live/migrations.ts';
import { mediaSentIn } from '../../server/live/media-rooms.ts';
import { liveOf } from '../../server/live/index.ts';
import { BASIC, collect, emitAck, sendText, waitFor } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';
import { postDocument, sendDocument } from './helpers/documents.ts';
import { people, type Person } from './helpers/people.ts';

const live = liveWidgets({ widget: { type: 'group' } });

/** Uploads for `p` (through `baseUrl`, the service's by default: the address is signed for its host). */
async function upload(p: Person, roomId?: string, baseUrl = live.h.baseUrl): Promise<string> {
  const form = new FormData();
  if (roomId) form.append('roomId', roomId);
  form.append('file', new Blob([new Uint8Array(64)], { type: 'application/pdf' }), 'contrato.pdf');
  const res = await fetch(baseUrl + ROUTES.widgetUpload, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.token}` },
    body: form,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { mediaUrl: string }).mediaUrl;
}

async function refresh(
  p: Person,
  resourceUrl: string,
  baseUrl = live.h.baseUrl,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(baseUrl + ROUTES.widgetAssetsRefresh, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ resourceUrl }),
  });
  return { status: res.status, body: await res.json() };
}

function expectNotAMember(res: { status: number; body: unknown }, who: string): void {
  expect(res.status, who).toBe(403);
  expect((res.body as ErrorBody).error.key, who).toBe('NOT_A_MEMBER');
}

/** A room route called by `p`, which must succeed. */
async function roomCall(p: Person, route: string, roomId: string, body: unknown): Promise<void> {
  const res = await live.h.call('POST', routePath(route, { roomId }), { token: p.token, body });
  expect(res.status, route).toBe(200);
}

const direct = async (p: Person, userId: string) =>
  (await (
    await live.h.call('POST', ROUTES.widgetDirectRoom, { token: p.token, body: { id: userId } })
  ).json()) as Room;

describe('POST /v1/widget/assets/refresh', () => {
  it('re-signs media of the user’s rooms, their own uploads and the bot’s demo media, and nothing else', async () => {
    const [ana, beto, carla, zed] = await people(live.h, live.apiKey, 'Ana', 'Beto', 'Carla', 'Zed');
    const room = await direct(ana, beto.id);
    await roomCall(ana, ROUTES.widgetRoomMembers, room.id, { member: carla.id });
    const contract = await upload(ana, room.id);
    await sendDocument(live.h, ana, room.id, contract);

    for (const member of [ana, beto, carla]) expect((await refresh(member, contract)).status).toBe(200);

    // Carla taken out of the room, Zed never in it: refused, as a media that does not exist is.
    await roomCall(ana, ROUTES.widgetRoomLeave, room.id, { userId: carla.id });
    const removed = await refresh(carla, contract);
    const stranger = await refresh(zed, contract);
    const missing = await refresh(zed, contract.replace(/widget\/[0-9a-f-]+/, `widget/${randomUUID()}`));
    expectNotAMember(removed, 'removed');
    expectNotAMember(stranger, 'stranger');
    expect(stranger.body).toEqual(missing.body);
    expect(missing.status).toBe(403);

    // Sending the address into a room of his own does not make it his.
    await sendDocument(live.h, zed, zed.botRoomId, contract);
    expectNotAMember(await refresh(zed, contract), 'stranger after sending it');

    // An upload that named no room: its uploader only.
    const loose = await upload(zed);
    expect((await refresh(zed, loose)).status).toBe(200);
    expectNotAMember(await refresh(ana, loose), 'another user');

    // The bot's demo media, as the flows sign them, for any session of the company.
    const demo = live.h.app.charla.signer.sign(
      'demo/charla.png',
      MEDIA_URL_TTL_DEFAULT,
      live.h.app.charla.baseUrlFor(),
    );
    for (const anyone of [zed, carla]) expect((await refresh(anyone, demo)).status).toBe(200);
    // Sent in a room, they are noted nowhere (one row per visitor per asset, which nothing reads).
    await postDocument(live.h, carla.botRoomId, demo);
    const demoRows = await live.h.app.charla.db.query(
      `SELECT 1 FROM media_rooms WHERE media_key LIKE 'demo/%'`,
    );
    expect(demoRows.rows).toEqual([]);
    expect((await refresh(carla, demo)).status).toBe(200);
  });

  it('re-signs media sent in a room by one who could see it, or by the service, for that room’s members', async () => {
    const [ana, beto, dani, eva] = await people(live.h, live.apiKey, 'Ana', 'Beto', 'Dani', 'Eva');
    const room = await direct(ana, beto.id);
    const photo = await upload(ana, room.id);
    expectNotAMember(await refresh(dani, photo), 'before it was sent to her');
    // Ana passes it on in her room with Dani.
    const withDani = await direct(ana, dani.id);
    await sendDocument(live.h, ana, withDani.id, photo);
    expect((await refresh(dani, photo)).status).toBe(200);

    // A room post (a server-side operation) into Eva's bot room.
    expectNotAMember(await refresh(eva, photo), 'before the post');
    await postDocument(live.h, eva.botRoomId, photo);
    expect((await refresh(eva, photo)).status).toBe(200);
  });

  it('counts a media in its room before the room hears of the message (socket and room post alike)', async () => {
    const [ana, beto, dani, eva] = await people(live.h, live.apiKey, 'Ana', 'Beto', 'Dani', 'Eva');
    const photo = await upload(ana, (await direct(ana, beto.id)).id);
    const { hub } = liveOf(live.h.app);
    const { db } = live.h.app.charla;
    // At each broadcast, whether the media is noted in the message's room then (asked at that moment:
    // the store takes statements in order, so a row written after the broadcast is not seen).
    const noted: Promise<boolean>[] = [];
    hub.messageNew = (message) => {
      if ((message as { mediaUrl?: string }).mediaUrl === photo)
        noted.push(
          db
            .query(`SELECT 1 FROM media_rooms WHERE media_key = $1 AND room_id = $2`, [
              new URL(photo).pathname.replace('/v1/media/', ''),
              message.roomId,
            ])
            .then((r) => r.rows.length === 1),
        );
      Object.getPrototypeOf(hub).messageNew.call(hub, message);
    };
    try {
      await sendDocument(live.h, ana, (await direct(ana, dani.id)).id, photo);
      await postDocument(live.h, eva.botRoomId, photo);
    } finally {
      delete (hub as { messageNew?: unknown }).messageNew;
    }
    expect(await Promise.all(noted)).toEqual([true, true]);
  });

  it('stores and tells nothing when the media cannot be noted in the room', async () => {
    const [ana, beto] = await people(live.h, live.apiKey, 'Ana', 'Beto');
    const room = await direct(ana, beto.id);
    const photo = await upload(ana, room.id);
    const heard = collect(await live.h.connect(beto.token));
    const anaSocket = await live.h.connect(ana.token);
    const { db } = live.h.app.charla;
    // The note fails (its table is away) after the message's own statement has run.
    await db.exec('ALTER TABLE media_rooms RENAME TO media_rooms_away');
    try {
      const ack = await emitAck(anaSocket, 'message:send', {
        id: randomUUID(),
        roomId: room.id,
        type: 'DOCUMENT',
        mediaUrl: photo,
      });
      expect(ack.ok).toBe(false);
      const post = await fetch(live.h.baseUrl + routePath(ROUTES.roomMessage, { roomId: room.id }), {
        method: 'POST',
        headers: { authorization: BASIC, 'content-type': 'application/json' },
        body: JSON.stringify({
          senderId: 'sistema',
          messages: [{ id: randomUUID(), type: 'DOCUMENT', mediaUrl: photo }],
        }),
      });
      expect(post.status).toBe(500);
    } finally {
      await db.exec('ALTER TABLE media_rooms_away RENAME TO media_rooms');
    }
    expect(await live.h.messageCount(room.id)).toBe(0);
    // Beto hears what comes next, and nothing before it.
    expect((await sendText(anaSocket, room.id, 'después')).ok).toBe(true);
    await waitFor(() => heard.length > 0, 5000, 'Beto’s message:new');
    expect(heard.map((m) => m.type)).toEqual(['TEXT']);
  });

  it('counts media sent in a room whatever host the upload was signed for', async () => {
    const [ana, beto, dani] = await people(live.h, live.apiKey, 'Ana', 'Beto', 'Dani');
    const room = await direct(ana, beto.id);
    // Pages on localhost: the upload is signed for the host it was asked through, not the
    // service's own (127.0.0.1, where the socket is), and refreshed through it.
    const viaLocalhost = live.h.baseUrl.replace('127.0.0.1', 'localhost');
    const photo = await upload(ana, room.id, viaLocalhost);
    expect(new URL(photo).hostname).toBe('localhost');
    const withDani = await direct(ana, dani.id);
    await sendDocument(live.h, ana, withDani.id, photo);
    expect((await refresh(dani, photo, viaLocalhost)).status).toBe(200);
  });

  it('re-signs an address another process signed for its own host (no CHARLA_PUBLIC_URL), and only one we signed', async () => {
    const [ana, beto] = await people(live.h, live.apiKey, 'Ana', 'Beto');
    const room = await direct(ana, beto.id);
    const photo = new URL(await upload(ana, room.id));
    // As process B, on another port, signed it: its host, our signature.
    const fromB = new URL(photo.pathname + photo.search, 'http://127.0.0.1:1');
    const res = await refresh(beto, fromB.href);
    expect(res.status).toBe(200);
    const signed = new URL((res.body as { signedUrl: string }).signedUrl);
    expect(signed.origin).toBe(new URL(live.h.baseUrl).origin);
    expect((await fetch(signed)).status).toBe(200);
    // Altered, or without its signature, on that host: not ours (422).
    const sig = photo.searchParams.get('sig')!;
    const altered = photo.search.replace(sig, sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A'));
    // Not an address at all: the caller's format mistake, 400 naming the field (as the business's refresh).
    for (const resourceUrl of ['not a url at all', 'https://user:pw@127.0.0.1/v1/media/x', '']) {
      const res = await refresh(beto, resourceUrl);
      expect(res.status, resourceUrl).toBe(400);
      expect(Object.keys((res.body as { validationError: object }).validationError), resourceUrl).toEqual([
        '/resourceUrl',
      ]);
    }
    for (const search of [altered, '']) {
      const other = await refresh(beto, new URL(photo.pathname + search, 'http://127.0.0.1:1').href);
      expect(other.status, search).toBe(422);
      expect((other.body as ErrorBody).error.key).toBe('SIGNED_URL_ERROR');
    }
  });
});

describe('mediaSentIn', () => {
  it('counts a person’s message only for media they could see in a room of the media’s company', async () => {
    const db = await openDb({ databaseUrl: 'memory://', storeTemplate: inject('pgliteTemplate') });
    try {
      await migrate(db, [...coreMigrations, ...liveMigrations]);
      // Ana is in r2 of another company, where a row (none the service writes) names c1's media.
      await db.exec(`
        INSERT INTO companies (id, name) VALUES ('c1', 'Uno'), ('c2', 'Dos');
        INSERT INTO rooms (id, company_id, type) VALUES ('r1', 'c1', 'group'), ('r2', 'c2', 'group');
        INSERT INTO media (key, company_id, content_type, size, name, data)
          VALUES ('widget/k', 'c1', 'application/pdf', 1, 'a.pdf', '\\x00');
        INSERT INTO room_members (room_id, user_id, id, company_id) VALUES ('r2', 'ana', 'm1', 'c2');
        INSERT INTO media_rooms (media_key, room_id) VALUES ('widget/k', 'r2');
      `);
      await mediaSentIn(db, 'widget/k', 'r1', 'ana', false);
      const { rows } = await db.query(`SELECT 1 FROM media_rooms WHERE room_id = 'r1'`);
      expect(rows).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

describe('the media_rooms migration', () => {
  it('keeps uploads already sent in rooms refreshable there: their rooms are read from the messages', async () => {
    const db = await openDb({ databaseUrl: 'memory://', storeTemplate: inject('pgliteTemplate') });
    try {
      const mediaRooms = liveMigrations.find((m) => m.id === '016_media_rooms');
      expect(mediaRooms).toBeDefined();
      // The schema as it was before 016 (the later ones build on it).
      await migrate(db, [...coreMigrations, ...liveMigrations.filter((m) => m.id < mediaRooms!.id)]);
      const key = `widget/${randomUUID()}`;
      const url = `https://charla.example/v1/media/${key}?kid=k1&exp=1&sig=x`;
      await db.exec(`
        INSERT INTO companies (id, name) VALUES ('c1', 'Uno'), ('c2', 'Dos');
        INSERT INTO rooms (id, company_id, type) VALUES ('r1', 'c1', 'group'), ('r2', 'c1', 'group'), ('r3', 'c2', 'group');
        INSERT INTO media (key, company_id, content_type, size, name, data)
          VALUES ('${key}', 'c1', 'application/pdf', 1, 'a.pdf', '\\x00');
        INSERT INTO messages (id, room_id, seq, sender_id, status, body) VALUES
          ('m1', 'r1', 1, 'ana', 'DELIVERED', '{"type": "DOCUMENT", "mediaUrl": "${url}"}'),
          ('m2', 'r1', 2, 'ana', 'DELIVERED', '{"type": "DOCUMENT", "mediaUrl": "${url}"}'),
          ('m3', 'r2', 1, 'ana', 'DELIVERED', '{"type": "TEXT", "text": "${url}"}'),
          ('m4', 'r3', 1, 'eve', 'DELIVERED', '{"type": "DOCUMENT", "mediaUrl": "${url}"}');
      `);
      await migrate(db, [...coreMigrations, ...liveMigrations]);
      const { rows } = await db.query<{ media_key: string; room_id: string }>(
        'SELECT media_key, room_id FROM media_rooms ORDER BY room_id',
      );
      // Sent as media in r1 (once, whatever the count); not from a text, nor from another company's room.
      expect(rows).toEqual([{ media_key: key, room_id: 'r1' }]);
    } finally {
      await db.close();
    }
  });
});
