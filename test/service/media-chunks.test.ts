/**
 * A stored file's bytes in pieces (server/media-store.ts, migration 018): uploads are written
 * piece by piece as they arrive and served piece by piece, a Range request reading only the
 * pieces it covers; an upload refused or cut short leaves nothing; files stored inline before
 * the migration are moved into pieces and still served whole.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ROUTES } from '../../types/index.ts';
import { buildApp } from '../../server/app.ts';
import { openDb } from '../../server/store/db.ts';
import { migrate } from '../../server/store/migrate.ts';
import { coreMigrations } from '../../server/store/core-migrations.ts';
import { liveMigrations } from '../../server/live/migrations.ts';
import { MEDIA_CHUNK_BYTES, sweepOrphanChunks } from '../../server/media-store.ts';
import { liveWidgets } from './helpers/widgets.ts';
import { people } from './helpers/people.ts';
import { ON_POSTGRES } from './helpers/http.ts';
import { openUpload } from './helpers/open-upload.ts';

const live = liveWidgets();
const db = () => live.h.app.charla.db;

/** Bytes no two pieces share (a piece served out of place shows). */
function patterned(length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 7 + (i >> 18)) & 255;
  return bytes;
}

async function tokenOf(name = 'Ana'): Promise<string> {
  const [person] = await people(live.h, live.apiKey, name);
  return person!.token;
}

async function upload(token: string, bytes: Uint8Array<ArrayBuffer>, type: string, name: string) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  return fetch(live.h.baseUrl + ROUTES.widgetUpload, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
}

const keyOf = (mediaUrl: string) =>
  decodeURIComponent(new URL(mediaUrl).pathname.replace(/^\/v1\/media\//, ''));

async function pieces(key: string): Promise<number> {
  const { rows } = await db().query<{ n: string | number }>(
    'SELECT count(*) AS n FROM media_chunks WHERE media_key = $1',
    [key],
  );
  return Number(rows[0]!.n);
}

const allPieces = async () =>
  Number((await db().query<{ n: string | number }>('SELECT count(*) AS n FROM media_chunks')).rows[0]!.n);
const mediaRows = async () =>
  Number((await db().query<{ n: string | number }>('SELECT count(*) AS n FROM media')).rows[0]!.n);

describe('media stored in pieces', () => {
  it('stores an upload in 256 KB pieces and serves it whole, by ranges across pieces, and to HEAD', async () => {
    const size = 3 * MEDIA_CHUNK_BYTES + 12_345;
    const bytes = patterned(size);
    const res = await upload(await tokenOf(), bytes, 'application/pdf', 'grande.pdf');
    expect(res.status).toBe(200);
    const up = (await res.json()) as { mediaUrl: string; size: number };
    expect(up.size).toBe(size);
    const key = keyOf(up.mediaUrl);
    expect(await pieces(key)).toBe(4);
    const row = await db().query<{ inline: boolean; size: string | number }>(
      'SELECT data IS NOT NULL AS inline, size FROM media WHERE key = $1',
      [key],
    );
    expect(row.rows[0]).toMatchObject({ inline: false });
    expect(Number(row.rows[0]!.size)).toBe(size);

    const whole = await fetch(up.mediaUrl);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe(String(size));
    expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);

    // A range across the first piece boundary, one inside the last piece, and a suffix.
    const ranges: [string, number, number][] = [
      [
        `bytes=${MEDIA_CHUNK_BYTES - 10}-${MEDIA_CHUNK_BYTES + 9}`,
        MEDIA_CHUNK_BYTES - 10,
        MEDIA_CHUNK_BYTES + 9,
      ],
      [`bytes=${3 * MEDIA_CHUNK_BYTES + 5}-`, 3 * MEDIA_CHUNK_BYTES + 5, size - 1],
      ['bytes=-100', size - 100, size - 1],
      [`bytes=0-${2 * MEDIA_CHUNK_BYTES}`, 0, 2 * MEDIA_CHUNK_BYTES],
    ];
    for (const [header, start, end] of ranges) {
      const part = await fetch(up.mediaUrl, { headers: { range: header } });
      expect(part.status, header).toBe(206);
      expect(part.headers.get('content-range'), header).toBe(`bytes ${start}-${end}/${size}`);
      const got = Buffer.from(await part.arrayBuffer());
      expect(got.equals(Buffer.from(bytes.subarray(start, end + 1))), header).toBe(true);
    }
    const outside = await fetch(up.mediaUrl, { headers: { range: `bytes=${size}-` } });
    expect(outside.status).toBe(416);
    // The interface's error body, as every failure answers, and the file's length.
    expect(outside.headers.get('content-type')).toMatch(/^application\/json/);
    expect(outside.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(outside.headers.get('content-disposition')).toBeNull();
    expect(await outside.json()).toMatchObject({
      statusMessage: 'failed',
      error: { key: 'RANGE_NOT_SATISFIABLE', code: 'E0416' },
      data: { size },
    });

    const head = await fetch(up.mediaUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(size));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('serves an empty upload as an empty file', async () => {
    const res = await upload(await tokenOf(), new Uint8Array(0), 'text/plain', 'vacio.txt');
    expect(res.status).toBe(200);
    const up = (await res.json()) as { mediaUrl: string; size: number };
    expect(up.size).toBe(0);
    const got = await fetch(up.mediaUrl);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-length')).toBe('0');
    expect((await got.arrayBuffer()).byteLength).toBe(0);
  });

  it('leaves no piece and no row of an image over 8 MB, and keeps what was stored', async () => {
    const token = await tokenOf();
    const kept = await upload(token, patterned(1000), 'image/png', 'antes.png');
    expect(kept.status).toBe(200);
    const keptUrl = ((await kept.json()) as { mediaUrl: string }).mediaUrl;
    const [rowsBefore, piecesBefore] = [await mediaRows(), await allPieces()];
    const big = await upload(token, patterned(8 * 1024 * 1024 + 10), 'image/png', 'grande.png');
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { key: string } }).error.key).toBe('PAYLOAD_TOO_LARGE');
    expect(await mediaRows()).toBe(rowsBefore);
    expect(await allPieces()).toBe(piecesBefore);
    expect((await fetch(keptUrl)).status).toBe(200);
  });

  it('leaves no piece and no row of an upload whose body is cut short', async () => {
    const token = await tokenOf();
    const [rowsBefore, piecesBefore] = [await mediaRows(), await allPieces()];
    const sent = 2 * MEDIA_CHUNK_BYTES + 1000;
    const { req, ended } = openUpload(live.h.baseUrl, token, 'cortado.pdf', 5 * MEDIA_CHUNK_BYTES);
    req.write(Buffer.from(patterned(sent)));
    // The service stores pieces as the body arrives; then the line drops.
    await expect.poll(allPieces, { timeout: 15_000 }).toBeGreaterThan(piecesBefore);
    req.destroy();
    await ended;
    await expect.poll(allPieces, { timeout: 15_000 }).toBe(piecesBefore);
    expect(await mediaRows()).toBe(rowsBefore);
  });

  it('sweeps pieces no row owns, only when old enough', async () => {
    const key = `widget/${randomUUID()}`;
    await db().query(`INSERT INTO media_chunks (media_key, seq, data) VALUES ($1, 0, '\\x00'::bytea)`, [key]);
    expect(await sweepOrphanChunks(db(), 60_000)).toBe(0);
    expect(await pieces(key)).toBe(1);
    expect(await sweepOrphanChunks(db(), 0)).toBeGreaterThanOrEqual(1);
    expect(await pieces(key)).toBe(0);
  });
});

describe.skipIf(ON_POSTGRES)('migration 018 on a store with inline media', () => {
  const dir = mkdtempSync(join(tmpdir(), 'charla-media-018-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('moves files stored whole into pieces and serves them as before', async () => {
    const before = await openDb({ dataDir: dir, storeTemplate: inject('pgliteTemplate') });
    const earlier = [...coreMigrations, ...liveMigrations].filter((m) => m.id < '018');
    await migrate(before, earlier);
    const bytes = patterned(2 * MEDIA_CHUNK_BYTES + 77);
    await before.query(
      'INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)',
      ['widget/old-one', 'company-1', 'application/pdf', bytes.length, 'viejo.pdf', Buffer.from(bytes)],
    );
    await before.query(
      'INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)',
      ['widget/old-empty', 'company-1', 'text/plain', 0, 'vacio.txt', Buffer.alloc(0)],
    );
    await before.close();

    const app = await buildApp({ databaseUrl: undefined, dataDir: dir, logger: false, seedDemo: false });
    try {
      const after = app.charla.db;
      const moved = await after.query<{ seq: number; len: number }>(
        'SELECT seq, length(data) AS len FROM media_chunks WHERE media_key = $1 ORDER BY seq',
        ['widget/old-one'],
      );
      expect(moved.rows.map((r) => [r.seq, Number(r.len)])).toEqual([
        [0, MEDIA_CHUNK_BYTES],
        [1, MEDIA_CHUNK_BYTES],
        [2, 77],
      ]);
      const inline = await after.query<{ key: string; inline: boolean }>(
        "SELECT key, data IS NOT NULL AS inline FROM media WHERE key LIKE 'widget/%' ORDER BY key",
      );
      expect(inline.rows).toEqual([
        { key: 'widget/old-empty', inline: true },
        { key: 'widget/old-one', inline: false },
      ]);
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const got = await fetch(app.charla.signer.sign('widget/old-one', 900, base));
      expect(got.status).toBe(200);
      expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
      const empty = await fetch(app.charla.signer.sign('widget/old-empty', 900, base));
      expect(empty.status).toBe(200);
      expect((await empty.arrayBuffer()).byteLength).toBe(0);
    } finally {
      await app.close();
    }
  });
});
