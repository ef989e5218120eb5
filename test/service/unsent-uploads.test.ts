/**
 * Widget uploads no message carries (the visitor cancelled, or left before sending) are removed a
 * day on (sweepUnsentUploads, run at the start and hourly): their row, rooms and pieces, so
 * their address answers 404. An upload a message carries stays, whoever sent it (the visitor, a
 * room post), and so does one younger than a day. Migration 019 takes every file stored before it
 * as sent.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES, type Room } from '../../types/index.ts';
import { openDb } from '../../server/store/db.ts';
import { migrate } from '../../server/store/migrate.ts';
import { coreMigrations } from '../../server/store/core-migrations.ts';
import { liveMigrations } from '../../server/live/migrations.ts';
import { sweepUnsentUploads, UNSENT_UPLOAD_AGE_MS } from '../../server/live/media-rooms.ts';
import { ON_POSTGRES } from './helpers/http.ts';
import { liveWidgets } from './helpers/widgets.ts';
import { postDocument, sendDocument } from './helpers/documents.ts';
import { people, type Person } from './helpers/people.ts';

const live = liveWidgets({ widget: { type: 'group' } });
const db = () => live.h.app.charla.db;

async function upload(p: Person, roomId?: string): Promise<{ url: string; key: string }> {
  const form = new FormData();
  if (roomId) form.append('roomId', roomId);
  // Over one 256 KB piece, so the pieces removed are several.
  form.append('file', new Blob([new Uint8Array(300_000).fill(7)], { type: 'application/pdf' }), 'a.pdf');
  const res = await fetch(live.h.baseUrl + ROUTES.widgetUpload, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.token}` },
    body: form,
  });
  expect(res.status).toBe(200);
  const url = ((await res.json()) as { mediaUrl: string }).mediaUrl;
  return { url, key: decodeURIComponent(new URL(url).pathname.replace(/^\/v1\/media\//, '')) };
}

const direct = async (p: Person, userId: string) =>
  (await (
    await live.h.call('POST', ROUTES.widgetDirectRoom, { token: p.token, body: { id: userId } })
  ).json()) as Room;

/** Makes the uploads look `hours` old. */
async function age(keys: string[], hours: number): Promise<void> {
  await db().query(
    `UPDATE media SET created_at = now() - make_interval(hours => $2) WHERE key = ANY($1::text[])`,
    [keys, hours],
  );
}

/** What is left of an upload: its row, its rooms, its pieces, and what its address answers. */
async function leftOf(upload: { url: string; key: string }) {
  const count = async (sql: string) =>
    Number((await db().query<{ n: string | number }>(sql, [upload.key])).rows[0]!.n);
  const res = await fetch(upload.url);
  await res.arrayBuffer();
  return {
    row: await count('SELECT count(*) AS n FROM media WHERE key = $1'),
    rooms: await count('SELECT count(*) AS n FROM media_rooms WHERE media_key = $1'),
    pieces: await count('SELECT count(*) AS n FROM media_chunks WHERE media_key = $1'),
    status: res.status,
  };
}

const removedAll = { row: 0, rooms: 0, pieces: 0, status: 404 };

describe('uploads no message carries', () => {
  it('are removed a day on; those sent (by the visitor or a room post) and younger ones stay', async () => {
    const [ana, beto] = await people(live.h, live.apiKey, 'Ana', 'Beto');
    const room = await direct(ana, beto.id);
    const cancelled = await upload(ana, room.id); // uploaded for the room, never sent
    const abandoned = await upload(beto); // no room named, never sent
    const sent = await upload(ana, room.id);
    await sendDocument(live.h, ana, room.id, sent.url);
    const posted = await upload(beto);
    await postDocument(live.h, room.id, posted.url);
    const recent = await upload(ana, room.id);
    // Sending notes it at once (the sweep does not have to find its message).
    const noted = await db().query<{ key: string }>(
      'SELECT key FROM media WHERE key = ANY($1::text[]) AND sent_at IS NOT NULL ORDER BY key',
      [[cancelled.key, abandoned.key, sent.key, posted.key, recent.key]],
    );
    expect(noted.rows.map((r) => r.key)).toEqual([sent.key, posted.key].sort());

    await age([cancelled.key, abandoned.key, sent.key, posted.key], 25);
    await age([recent.key], 23);
    expect(await sweepUnsentUploads(db(), UNSENT_UPLOAD_AGE_MS)).toBe(2);

    expect(await leftOf(cancelled)).toEqual(removedAll);
    expect(await leftOf(abandoned)).toEqual(removedAll);
    expect(await leftOf(sent)).toEqual({ row: 1, rooms: 1, pieces: 2, status: 200 });
    expect(await leftOf(posted)).toEqual({ row: 1, rooms: 1, pieces: 2, status: 200 });
    expect(await leftOf(recent)).toEqual({ row: 1, rooms: 1, pieces: 2, status: 200 });
    // Nothing more to do.
    expect(await sweepUnsentUploads(db(), UNSENT_UPLOAD_AGE_MS)).toBe(0);
  });

  it('keeps, and notes, an upload a message carries that was not noted (sent by a process older than 019)', async () => {
    const [ana, beto] = await people(live.h, live.apiKey, 'Ana', 'Beto');
    const room = await direct(ana, beto.id);
    const file = await upload(ana, room.id);
    await sendDocument(live.h, ana, room.id, file.url);
    await db().query('UPDATE media SET sent_at = NULL WHERE key = $1', [file.key]);
    await age([file.key], 48);

    expect(await sweepUnsentUploads(db(), UNSENT_UPLOAD_AGE_MS)).toBe(0);
    expect(await leftOf(file)).toEqual({ row: 1, rooms: 1, pieces: 2, status: 200 });
    const { rows } = await db().query<{ noted: boolean }>(
      'SELECT sent_at IS NOT NULL AS noted FROM media WHERE key = $1',
      [file.key],
    );
    expect(rows).toEqual([{ noted: true }]);
  });

  it.skipIf(ON_POSTGRES)(
    'on the embedded store, the planner has statistics from the start (no autovacuum takes them)',
    async () => {
      // Without them the sweep read every message for each upload, and a start over 1,000 old uploads timed out.
      const { rows } = await db().query<{ relname: string; analyzed: boolean }>(
        `SELECT c.relname, s.last_analyze IS NOT NULL AS analyzed FROM pg_class c
       JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname IN ('messages', 'media', 'media_rooms')
       ORDER BY c.relname`,
      );
      expect(rows).toEqual([
        { relname: 'media', analyzed: true },
        { relname: 'media_rooms', analyzed: true },
        { relname: 'messages', analyzed: true },
      ]);
    },
  );

  it('works through many in batches', async () => {
    const [ana] = await people(live.h, live.apiKey, 'Ana');
    const files = await Promise.all(Array.from({ length: 7 }, () => upload(ana)));
    await age(
      files.map((f) => f.key),
      30,
    );
    expect(await sweepUnsentUploads(db(), UNSENT_UPLOAD_AGE_MS, 3)).toBe(7);
    for (const f of files) expect(await leftOf(f)).toEqual(removedAll);
  });

  it('migration 019 takes every file stored before it as sent', async () => {
    const before = await openDb({ databaseUrl: 'memory://' });
    try {
      const sent = liveMigrations.find((m) => m.id === '019_upload_sent');
      expect(sent).toBeDefined();
      await migrate(before, [...coreMigrations, ...liveMigrations.filter((m) => m !== sent)]);
      await before.exec(`
        INSERT INTO companies (id, name) VALUES ('c1', 'Uno');
        INSERT INTO media (key, company_id, content_type, size, name, uploaded_by, created_at)
          VALUES ('widget/old', 'c1', 'application/pdf', 1, 'a.pdf', 'ana', now() - interval '30 days');
      `);
      await migrate(before, [...coreMigrations, ...liveMigrations]);
      expect(await sweepUnsentUploads(before, 0)).toBe(0);
      const { rows } = await before.query('SELECT key FROM media');
      expect(rows).toEqual([{ key: 'widget/old' }]);
    } finally {
      await before.close();
    }
  });
});
