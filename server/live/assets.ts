/**
 * The demo bot's media: small real files made at start (a PNG, a PDF, a WAV)
 * plus any file in server/flows/assets/ (the MP4 of the tour), stored in the
 * media table under `demo/<name>` and named in flows as `{{assets.<name>}}`
 * (e.g. `{{assets.png}}`), each use signed afresh.
 */
import { deflateSync } from 'node:zlib';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Db } from '../store/db.ts';
import { FLOWS_DIR } from './flows.ts';

export const ASSETS_DIR = join(FLOWS_DIR, 'assets');

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A 96×96 PNG: a speech bubble in the brand colour on a light background. */
export function makePng(size = 96): Buffer {
  const rows: Buffer[] = [];
  const c = size / 2;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const inBubble = ((x - c) / (size * 0.4)) ** 2 + ((y - c * 0.9) / (size * 0.3)) ** 2 <= 1;
      const inTail = y > c && y < c + size * 0.35 && x > c - size * 0.25 && x < c - size * 0.25 + (c + size * 0.35 - y) * 0.6;
      const [r, g, b] = inBubble || inTail ? [37, 99, 235] : [238, 242, 255];
      row.set([r, g, b], 1 + x * 3);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A one-page PDF with a line of text (offsets computed, so readers accept it). */
export function makePdf(text = 'Charla: documento de ejemplo'): Buffer {
  const safe = text.replace(/[()\\]/g, '');
  const stream = `BT /F1 18 Tf 72 720 Td (${safe}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Half a second of a soft two-tone chime, 8 kHz mono 16-bit WAV. */
export function makeWav(seconds = 0.5, rate = 8000): Buffer {
  const n = Math.floor(seconds * rate);
  const data = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) {
    const f = i < n / 2 ? 660 : 880;
    const env = Math.sin((Math.PI * (i % (n / 2))) / (n / 2));
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * f * i) / rate) * env * 8000), i * 2);
  }
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

const TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.pdf': 'application/pdf',
  '.wav': 'audio/wav',
};

/** Stores the demo media once; returns their keys by short name (`png`, `pdf`, `wav`, `mp4`, ...). */
export async function ensureDemoAssets(db: Db, companyId: string): Promise<Record<string, string>> {
  const files: { name: string; key: string; type: string; data: Buffer }[] = [
    { name: 'png', key: 'demo/charla.png', type: 'image/png', data: makePng() },
    { name: 'pdf', key: 'demo/charla.pdf', type: 'application/pdf', data: makePdf() },
    { name: 'wav', key: 'demo/charla.wav', type: 'audio/wav', data: makeWav() },
  ];
  if (existsSync(ASSETS_DIR)) {
    for (const f of readdirSync(ASSETS_DIR)) {
      const ext = extname(f).toLowerCase();
      const type = TYPES[ext];
      if (type) files.push({ name: ext.slice(1), key: `demo/${f}`, type, data: readFileSync(join(ASSETS_DIR, f)) });
    }
  }
  const keys: Record<string, string> = {};
  for (const f of files) {
    await db.query(
      `INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (key) DO NOTHING`,
      [f.key, companyId, f.type, f.data.length, f.key.slice(5), f.data],
    );
    keys[f.name] = f.key;
  }
  return keys;
}
