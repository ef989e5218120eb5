/**
 * GET /v1/media/<key>?kid&exp&sig&download=1: the document card's download link. The same signed
 * address with the flag is answered as an attachment under the file's own name (the `download`
 * attribute is ignored across origins, and an inline PDF opened in a tab); without it, inline as
 * before. The flag changes nothing the signature guards, and a name cannot break the header.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../types/index.ts';
import { storedName } from '../../server/live/widget-routes.ts';
import { contentDisposition } from '../../server/media.ts';
import { liveWidgets } from './helpers/widgets.ts';
import { people } from './helpers/people.ts';

const live = liveWidgets();

/** Uploads `name` through the widget's real upload route; returns its signed address. */
async function upload(name: string, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const [ana] = await people(live.h, live.apiKey, 'Ana');
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
  const res = await fetch(live.h.baseUrl + ROUTES.widgetUpload, {
    method: 'POST',
    headers: { authorization: `Bearer ${ana.token}` },
    body: form,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { mediaUrl: string }).mediaUrl;
}

/** A media row stored as-is (a name no upload could give: quotes, CR LF), signed by the service. */
async function stored(name: string): Promise<string> {
  const key = `widget/${randomUUID()}`;
  await live.h.app.charla.db.query(
    'INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)',
    [key, live.h.app.charla.config.companyId, 'application/pdf', 4, name, Buffer.from('%PDF')],
  );
  return live.h.app.charla.signer.sign(key, 900, live.h.baseUrl);
}

const withFlag = (url: string, value = '1') => `${url}&download=${value}`;

/** The name `filename*` gives back (RFC 8187: UTF-8, percent-encoded attr-chars only). */
function extendedName(disposition: string): string {
  const m = /; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~%-]+)$/.exec(disposition);
  expect(m, disposition).not.toBeNull();
  return decodeURIComponent(m![1]!);
}

describe('GET /v1/media/<key> with download=1', () => {
  it('answers the same signed address with download=1 as an attachment named after the file', async () => {
    const bytes = new Uint8Array([37, 80, 68, 70, 45, 49, 46, 55]);
    const url = await upload('Contrato año 2024.pdf', bytes);

    const shown = await fetch(url);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-disposition')).toMatch(/^inline;/);

    const saved = await fetch(withFlag(url));
    expect(saved.status).toBe(200);
    const disposition = saved.headers.get('content-disposition') ?? '';
    expect(disposition).toMatch(/^attachment; filename="Contrato a_o 2024\.pdf"; filename\*=/);
    expect(extendedName(disposition)).toBe('Contrato año 2024.pdf');
    expect(saved.headers.get('content-type')).toBe('application/pdf');
    expect(new Uint8Array(await saved.arrayBuffer())).toEqual(bytes);

    // Byte ranges still work on the download address.
    const part = await fetch(withFlag(url), { headers: { range: 'bytes=0-3' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-disposition')).toMatch(/^attachment;/);
  });

  it('keeps the signature check: the flag opens nothing an address without it would not', async () => {
    const url = await upload('informe.pdf', new Uint8Array(16));
    const tampered = url.replace(/sig=([^&])/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
    expect((await fetch(withFlag(tampered))).status).toBe(403);
    // An expired address stays expired with the flag.
    const key = live.h.app.charla.signer.mediaKeyOf(url, [live.h.baseUrl])!;
    const expired = live.h.app.charla.signer.sign(key, 900, live.h.baseUrl, Date.now() - 3600_000);
    expect((await fetch(expired)).status).toBe(403);
    expect((await fetch(withFlag(expired))).status).toBe(403);
    // Without a signature at all, the flag is no key either.
    const bare = url.split('?')[0]!;
    expect((await fetch(`${bare}?download=1`)).status).toBe(403);
  });

  it('takes only 1 as the flag: any other value is a 400 and serves nothing', async () => {
    const url = await upload('informe.pdf', new Uint8Array(16));
    for (const value of ['0', 'true', 'yes', '', '1%0D%0ASet-Cookie:%20a=b']) {
      const res = await fetch(withFlag(url, value));
      expect(res.status, value).toBe(400);
      expect(res.headers.get('content-disposition'), value).toBeNull();
    }
    expect((await fetch(`${withFlag(url)}&download=1`)).status).toBe(400);
  });

  it('keeps any name inside its header: quotes, semicolons, CR LF, percent signs, emoji', async () => {
    const names = [
      'a"; filename="evil.exe',
      'línea\r\nSet-Cookie: a=b.pdf',
      "it's (final) *copy* 100%.pdf",
      'informe 📄 \u202Efdp.exe',
      '\\..\\..\\boot.ini',
    ];
    for (const name of names) {
      const res = await fetch(withFlag(await stored(name)));
      expect(res.status, name).toBe(200);
      expect(res.headers.get('set-cookie'), name).toBeNull();
      const disposition = res.headers.get('content-disposition') ?? '';
      // One quoted plain-ASCII name with no quote, backslash or percent in it, then the exact one.
      expect(disposition, name).toMatch(/^attachment; filename="[\x20-\x21\x23-\x24\x26-\x5b\x5d-\x7e]*"; /);
      // The exact name, less its explicit direction controls (below).
      expect(extendedName(disposition), name).toBe(name.replace(/\u202E/g, ''));
    }
  });
});

describe('GET /v1/media/<key>: validators and ranges (RFC 9110)', () => {
  it('names the file by an ETag: If-None-Match with it (or *) is 304, If-Range with another serves it whole', async () => {
    const url = await stored('carta.pdf');
    const plain = await fetch(url);
    expect(plain.status).toBe(200);
    const etag = plain.headers.get('etag');
    expect(etag).toMatch(/^"widget\/[0-9a-f-]+"$/);
    for (const header of [etag!, '*', `"otro", ${etag}`]) {
      const res = await fetch(url, { headers: { 'if-none-match': header } });
      expect(res.status, header).toBe(304);
      expect(await res.text()).toBe('');
    }
    expect((await fetch(url, { headers: { 'if-none-match': '"otro"' } })).status).toBe(200);
    const same = await fetch(url, { headers: { range: 'bytes=0-1', 'if-range': etag! } });
    expect(same.status).toBe(206);
    expect(await same.text()).toBe('%P');
    const other = await fetch(url, { headers: { range: 'bytes=0-1', 'if-range': '"otro"' } });
    expect(other.status).toBe(200);
    expect(await other.text()).toBe('%PDF');
  });

  it('ignores a range whose last byte comes before its first (200, the whole file); one past the end is still 416', async () => {
    const url = await stored('carta.pdf');
    const backwards = await fetch(url, { headers: { range: 'bytes=2-1' } });
    expect(backwards.status).toBe(200);
    expect(await backwards.text()).toBe('%PDF');
    const past = await fetch(url, { headers: { range: 'bytes=10-' } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe('bytes */4');
  });
});

describe('an uploaded file’s name, stored', () => {
  it('keeps at most 200 characters counted whole, cutting before the extension, never half an emoji', async () => {
    expect(storedName('informe.pdf')).toBe('informe.pdf');
    expect(storedName('../../etc/passwd')).toBe('.._.._etc_passwd');
    const long = storedName(`${'x'.repeat(240)}.pdf`);
    expect([...long]).toHaveLength(200);
    expect(long.endsWith('x….pdf')).toBe(true);
    const emoji = storedName(`a${'😀'.repeat(240)}.pdf`);
    expect([...emoji]).toHaveLength(200);
    expect(emoji.endsWith('😀….pdf')).toBe(true);
    expect(emoji).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    // Through the upload: the download saves under that name, its extension kept.
    const url = await upload(`a${'😀'.repeat(120)}.pdf`, new Uint8Array([37, 80, 68, 70]));
    const res = await fetch(`${url}&download=1`);
    const saved = extendedName(res.headers.get('content-disposition') ?? '');
    expect(saved.endsWith('.pdf')).toBe(true);
    expect(saved).not.toContain('\uFFFD');
    expect([...saved].length).toBeLessThanOrEqual(200);
  });

  it('loses explicit direction controls: a download saved under it cannot pass an .exe for a .pdf', async () => {
    expect(storedName('factura\u202Efdp.exe')).toBe('facturafdp.exe');
    expect(storedName('\u202E\u2066')).toBe('file');
    // A name stored before, all direction controls: still a name to save under.
    expect(contentDisposition('attachment', '\u202E')).toBe(
      `attachment; filename="file"; filename*=UTF-8''file`,
    );
    const url = await upload('factura\u202Efdp.exe', new Uint8Array([37, 80, 68, 70]));
    const res = await fetch(`${url}&download=1`);
    const header = res.headers.get('content-disposition') ?? '';
    expect(extendedName(header)).toBe('facturafdp.exe');
    expect(header).not.toMatch(/%E2%80%AE/i);
  });
});
