/**
 * The demo bot's media: small real files made at start (a PNG, a PDF, a WAV,
 * an MP4) plus any file in server/flows/assets/ (which may replace them), stored in the
 * media table (server/media-store.ts) under `demo/<name>` and named in flows as `{{assets.<name>}}`
 * (e.g. `{{assets.png}}`), each use signed afresh.
 */
import { deflateSync } from 'node:zlib';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Db } from '../store/db.ts';
import { putMedia } from '../media-store.ts';
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
      const inTail =
        y > c &&
        y < c + size * 0.35 &&
        x > c - size * 0.25 &&
        x < c - size * 0.25 + (c + size * 0.35 - y) * 0.6;
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
    { name: 'mp4', key: 'demo/charla.mp4', type: 'video/mp4', data: makeMp4() },
  ];
  if (existsSync(ASSETS_DIR)) {
    for (const f of readdirSync(ASSETS_DIR)) {
      const ext = extname(f).toLowerCase();
      const type = TYPES[ext];
      if (type)
        files.push({ name: ext.slice(1), key: `demo/${f}`, type, data: readFileSync(join(ASSETS_DIR, f)) });
    }
  }
  const keys: Record<string, string> = {};
  for (const f of files) {
    await putMedia(db, { key: f.key, companyId, contentType: f.type, name: f.key.slice(5) }, f.data);
    keys[f.name] = f.key;
  }
  return keys;
}

/* ---- A tiny H.264 MP4, made by hand: one I_PCM key frame, then skipped P frames. ---- */

class Bits {
  private bytes: number[] = [];
  private cur = 0;
  private n = 0;
  u(bits: number, value: number): this {
    for (let i = bits - 1; i >= 0; i--) {
      this.cur = (this.cur << 1) | ((value >>> i) & 1);
      if (++this.n === 8) {
        this.bytes.push(this.cur);
        this.cur = 0;
        this.n = 0;
      }
    }
    return this;
  }
  ue(value: number): this {
    const v = value + 1;
    const len = Math.floor(Math.log2(v));
    this.u(len, 0);
    return this.u(len + 1, v);
  }
  se(value: number): this {
    return this.ue(value <= 0 ? -2 * value : 2 * value - 1);
  }
  align(): this {
    while (this.n !== 0) this.u(1, 0);
    return this;
  }
  byte(v: number): this {
    return this.u(8, v);
  }
  /** rbsp_trailing_bits: a one, then zeros to the byte boundary. */
  trailing(): Buffer {
    this.u(1, 1).align();
    return Buffer.from(this.bytes);
  }
}

/** A NAL unit: header byte, then the payload with emulation-prevention bytes. */
function nal(refIdc: number, type: number, rbsp: Buffer): Buffer {
  const out: number[] = [(refIdc << 5) | type];
  let zeros = 0;
  for (const b of rbsp) {
    if (zeros >= 2 && b <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length + 8);
  head.write(type, 4, 'ascii');
  return Buffer.concat([head, body]);
}
const fullBox = (type: string, version: number, flags: number, ...parts: Buffer[]) => {
  const vf = Buffer.alloc(4);
  vf.writeUInt32BE(((version & 0xff) << 24) | (flags & 0xffffff));
  return box(type, vf, ...parts);
};
const u32 = (...vs: number[]) => {
  const b = Buffer.alloc(vs.length * 4);
  vs.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  return b;
};
const u16 = (...vs: number[]) => {
  const b = Buffer.alloc(vs.length * 2);
  vs.forEach((v, i) => b.writeUInt16BE(v & 0xffff, i * 2));
  return b;
};
const MATRIX = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);

/**
 * A valid, playable MP4 (H.264 Baseline, 64×64, `frames` frames at `fps`): the
 * first frame is raw (I_PCM) samples of the Charla blue with a light square,
 * the rest repeat it. No encoder needed, a few kilobytes.
 */
export function makeMp4(frames = 10, fps = 5): Buffer {
  const mbs = 4; // 64 px = 4 macroblocks a side
  const sps = nal(
    3,
    7,
    new Bits()
      .byte(66) // Baseline
      .byte(0xc0) // constraint_set0/1
      .byte(10) // level 1.0
      .ue(0) // sps id
      .ue(0) // log2_max_frame_num - 4
      .ue(2) // pic_order_cnt_type 2: output in decoding order
      .ue(1) // max_num_ref_frames
      .u(1, 0) // gaps allowed
      .ue(mbs - 1)
      .ue(mbs - 1)
      .u(1, 1) // frame_mbs_only
      .u(1, 1) // direct_8x8_inference
      .u(1, 0) // cropping
      .u(1, 0) // vui
      .trailing(),
  );
  const pps = nal(
    3,
    8,
    new Bits()
      .ue(0)
      .ue(0)
      .u(1, 0) // CAVLC
      .u(1, 0)
      .ue(0) // slice groups
      .ue(0)
      .ue(0)
      .u(1, 0)
      .u(2, 0)
      .se(0)
      .se(0)
      .se(0)
      .u(1, 1) // deblocking control present
      .u(1, 0)
      .u(1, 0)
      .trailing(),
  );
  // The key frame: every macroblock I_PCM.
  const idr = new Bits().ue(0).ue(7).ue(0).u(4, 0).ue(0).u(1, 0).u(1, 0).se(0).ue(1);
  for (let my = 0; my < mbs; my++) {
    for (let mx = 0; mx < mbs; mx++) {
      idr.ue(25).align();
      const inner = mx >= 1 && mx <= 2 && my >= 1 && my <= 2;
      for (let i = 0; i < 256; i++) idr.byte(inner ? 235 : 84); // Y
      for (let i = 0; i < 64; i++) idr.byte(inner ? 128 : 200); // Cb
      for (let i = 0; i < 64; i++) idr.byte(inner ? 128 : 76); // Cr
    }
  }
  const samples: Buffer[] = [nal(3, 5, idr.trailing())];
  for (let f = 1; f < frames; f++) {
    // P frame: every macroblock skipped (a copy of the reference).
    const p = new Bits()
      .ue(0)
      .ue(5)
      .ue(0)
      .u(4, f % 16)
      .u(1, 0)
      .u(1, 0)
      .u(1, 0)
      .se(0)
      .ue(1)
      .ue(mbs * mbs);
    samples.push(nal(2, 1, p.trailing()));
  }
  const avcc = samples.map((s) => Buffer.concat([u32(s.length), s]));
  const timescale = fps * 100;
  const delta = 100;
  const duration = frames * delta;
  const durationMs = Math.round((frames / fps) * 1000);

  const moov = (chunkOffset: number) => {
    const avcC = box(
      'avcC',
      Buffer.from([1, 66, 0xc0, 10, 0xff, 0xe1]),
      u16(sps.length),
      sps,
      Buffer.from([1]),
      u16(pps.length),
      pps,
    );
    const avc1 = box(
      'avc1',
      Buffer.alloc(6),
      u16(1), // data_reference_index
      Buffer.alloc(16),
      u16(64, 64),
      u32(0x00480000, 0x00480000, 0),
      u16(1),
      Buffer.alloc(32),
      u16(0x0018, 0xffff),
      avcC,
    );
    const stbl = box(
      'stbl',
      fullBox('stsd', 0, 0, u32(1), avc1),
      fullBox('stts', 0, 0, u32(1, frames, delta)),
      fullBox('stss', 0, 0, u32(1, 1)),
      fullBox('stsc', 0, 0, u32(1, 1, frames, 1)),
      fullBox('stsz', 0, 0, u32(0, frames, ...avcc.map((s) => s.length))),
      fullBox('stco', 0, 0, u32(1, chunkOffset)),
    );
    const minf = box(
      'minf',
      fullBox('vmhd', 0, 1, u16(0, 0, 0, 0)),
      box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))),
      stbl,
    );
    const mdia = box(
      'mdia',
      fullBox('mdhd', 0, 0, u32(0, 0, timescale, duration), u16(0x55c4, 0)),
      fullBox(
        'hdlr',
        0,
        0,
        u32(0),
        Buffer.from('vide', 'ascii'),
        Buffer.alloc(12),
        Buffer.from('VideoHandler\0', 'ascii'),
      ),
      minf,
    );
    const tkhd = fullBox(
      'tkhd',
      0,
      3,
      u32(0, 0, 1, 0, durationMs, 0, 0),
      u16(0, 0, 0, 0),
      MATRIX,
      u32(64 << 16, 64 << 16),
    );
    const mvhd = fullBox(
      'mvhd',
      0,
      0,
      u32(0, 0, 1000, durationMs, 0x00010000),
      u16(0x0100, 0),
      Buffer.alloc(8),
      MATRIX,
      Buffer.alloc(24),
      u32(2),
    );
    return box('moov', mvhd, box('trak', tkhd, mdia));
  };
  const ftyp = box(
    'ftyp',
    Buffer.from('isom', 'ascii'),
    u32(0x200),
    Buffer.from('isomiso2avc1mp41', 'ascii'),
  );
  const size = moov(0).length;
  const mdatStart = ftyp.length + size + 8;
  return Buffer.concat([ftyp, moov(mdatStart), box('mdat', ...avcc)]);
}
