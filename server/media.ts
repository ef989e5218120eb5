/**
 * Signed media: GET /v1/media/<key>?kid=..&exp=..&sig=.. serves a stored file
 * (server/media-store.ts) with its content type, a piece at a time, after the signature and expiry are
 * verified in constant time (403 SIGNATURE_INVALID otherwise); `download=1`
 * asks for it as an attachment (saved under its name, not shown). No Basic
 * credentials: the signature is the permission. Host-independent, so the
 * address works behind any public name.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { ROUTES } from '../types/index.ts';
import { withoutDirectionControls } from './names.ts';
import { ErrorBodySchema } from '../types/schemas/index.ts';
import { ApiError } from './http/errors.ts';
import { inlineMedia, readMediaRange } from './media-store.ts';

const MediaQuery = Type.Object({
  kid: Type.Optional(Type.String({ maxLength: 100 })),
  exp: Type.Optional(Type.String({ maxLength: 20 })),
  sig: Type.Optional(Type.String({ maxLength: 200 })),
  // The document card's download link: the same signed address plus this flag. The signature
  // covers the key and the expiry, not the query, so the flag may be added to any signed address:
  // it changes how the file is handed over (saved, not shown), never which file nor for how long.
  // Only `1` is the flag; any other value is a 400 like any malformed query.
  download: Type.Optional(Type.Literal('1')),
});

/**
 * RFC 6266 with the RFC 8187 (5987) `filename*`: the exact name as UTF-8, percent-encoded down to
 * the attr-chars (encodeURIComponent leaves ' ( ) * and !, the first four of which are not), so no
 * quote, semicolon, CR or LF reaches the header; and a plain ASCII `filename` for clients that read
 * only that one, with anything else in it made `_` (a `%` too: some clients decode it). A lone
 * surrogate, which encodeURIComponent throws on, becomes U+FFFD. Explicit direction controls go:
 * a client saving the file under `factura\u202Efdp.exe` would show it as a PDF.
 */
export function contentDisposition(kind: 'inline' | 'attachment', given: string): string {
  // Without explicit direction controls (files stored before the upload took them out too).
  const name = withoutDirectionControls(given) || 'file';
  const exact = encodeURIComponent(name.replace(/\p{Cs}/gu, '\uFFFD')).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

export async function mediaRoutes(app: FastifyInstance): Promise<void> {
  const charla = app.charla;
  app.get(
    ROUTES.media,
    {
      schema: {
        tags: ['Resources'],
        summary: 'Signed media',
        operationId: 'getSignedMedia',
        description: 'Serves a stored file to whoever holds a valid, unexpired signed address.',
        querystring: MediaQuery,
        response: {
          200: { description: 'The file, with its content type', type: 'string', format: 'binary' },
          206: {
            description: 'One byte range of the file (Range requests)',
            type: 'string',
            format: 'binary',
          },
          304: {
            description: 'Not modified: If-None-Match names the file (its ETag), or is *',
            type: 'null',
          },
          403: ErrorBodySchema,
          404: ErrorBodySchema,
          416: ErrorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const key = (request.params as Record<string, string | undefined>)['*'] ?? '';
      const query = request.query as { kid?: string; exp?: string; sig?: string; download?: '1' };
      if (!key || !charla.signer.verify(key, query)) throw new ApiError('SIGNATURE_INVALID');
      const { rows } = await charla.db.query<{
        content_type: string;
        size: string | number;
        name: string;
        inline: boolean;
      }>('SELECT content_type, size, name, data IS NOT NULL AS inline FROM media WHERE key = $1', [key]);
      const media = rows[0];
      if (!media) throw new ApiError('NOT_FOUND', { message: 'No such media.' });
      // A row stored before its bytes were kept in pieces (migration 018) still has them inline.
      const inline = media.inline ? await inlineMedia(charla.db, key) : null;
      const size = inline ? inline.length : Number(media.size);
      // A media key names one file for good: the key is its validator (RFC 9110 §8.8.3).
      const etag = `"${key}"`;
      const matches = (header: unknown) =>
        typeof header === 'string' && header.split(',').some((tag) => [etag, '*'].includes(tag.trim()));
      // Video and audio players seek with Range requests: one range, bytes only. One whose last byte
      // comes before its first is not a range (ignored, §14.1.1), nor is one under an If-Range that
      // names another version (§13.1.5).
      const range = /^bytes=(\d*)-(\d*)$/.exec(String(request.headers.range ?? '').trim());
      const ifRange = request.headers['if-range'];
      const ranged =
        range &&
        (range[1] || range[2]) &&
        !(range[1] && range[2] && Number(range[2]) < Number(range[1])) &&
        (ifRange === undefined || ifRange === etag);
      let part: [number, number] | undefined;
      if (range && ranged) {
        const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
        const end = range[1] ? (range[2] ? Math.min(Number(range[2]), size - 1) : size - 1) : size - 1;
        if (!Number.isSafeInteger(start) || start >= size || end < start) {
          // The interface's error body, not the file's headers over an empty answer.
          reply.header('Content-Range', `bytes */${size}`);
          throw new ApiError('RANGE_NOT_SATISFIABLE', { data: { size } });
        }
        part = [Math.max(0, start), Math.max(start, end)];
      }
      // Whole seconds still valid, rounded down: a cached copy never outlives the signature.
      const secondsLeft = Math.max(0, Math.floor(Number(query.exp) - Date.now() / 1000));
      reply
        .header('Cache-Control', `private, max-age=${secondsLeft}`)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Security-Policy', "default-src 'none'; sandbox")
        .header('Access-Control-Allow-Origin', '*')
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header(
          'Content-Disposition',
          contentDisposition(query.download ? 'attachment' : 'inline', media.name),
        )
        .header('Accept-Ranges', 'bytes')
        .header('ETag', etag)
        .type(media.content_type);
      if (matches(request.headers['if-none-match'])) return reply.code(304).send();
      const bytes = (start: number, end: number) => {
        reply.header('Content-Length', String(end - start + 1));
        if (inline) return inline.subarray(start, end + 1);
        if (end < start) return Buffer.alloc(0);
        // HEAD answers the headers only: no piece is read (a stream keeps the length set above).
        if (request.method === 'HEAD') return Readable.from([]);
        return readMediaRange(charla.db, key, start, end);
      };
      if (part) {
        const [start, end] = part;
        return reply
          .code(206)
          .header('Content-Range', `bytes ${start}-${end}/${size}`)
          .send(bytes(start, end));
      }
      return reply.send(bytes(0, size - 1));
    },
  );
}
