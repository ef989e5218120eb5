/**
 * The assets refresh at its edges: ttl at and past both bounds, and the line
 * between a resourceUrl that is not a valid https address (400, invalid
 * format) and a valid one the service cannot sign (422 E1126).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_BASE, call, startServer, uid, type Server } from './helpers/http.ts';

let server: Server;
const key = `edge/${uid('file')}.png`;

beforeAll(async () => {
  server = await startServer();
  await server.app.charla.db.query(
    'INSERT INTO media (key, company_id, content_type, size, name, data) VALUES ($1, $2, $3, $4, $5, $6)',
    [key, server.app.charla.config.companyId, 'image/png', 1, 'a.png', Buffer.from([1])],
  );
});
afterAll(async () => {
  await server?.close();
});

const refresh = (resourceUrl: unknown, ttl: unknown = 900) =>
  call(server, 'POST', '/v1/external/assets/refresh', { body: { resourceUrl, ttl } });

describe('POST /v1/external/assets/refresh at its edges', () => {
  it('takes ttl 900 and 3600 and refuses 899 and 3601', async () => {
    for (const ttl of [900, 3600])
      expect((await refresh(`${PUBLIC_BASE}/v1/media/${key}`, ttl)).status).toBe(200);
    for (const ttl of [899, 3601]) {
      const res = await refresh(`${PUBLIC_BASE}/v1/media/${key}`, ttl);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.validationError)).toEqual(['/ttl']);
    }
  });

  it('an address that does not parse, or names no valid port, is 400 naming resourceUrl', async () => {
    for (const resourceUrl of [
      'https://exa mple.com/v1/media/x.png',
      'https://[::1/v1/media/x.png',
      'https://charla.test:99999/v1/media/x.png',
      'https://%zz/v1/media/x.png',
    ]) {
      const res = await refresh(resourceUrl);
      expect(res.status, resourceUrl).toBe(400);
      expect(res.body.error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.validationError), resourceUrl).toEqual(['/resourceUrl']);
    }
  });

  it('a valid https address that is not its own media stays 422 E1126', async () => {
    for (const resourceUrl of [
      'https://cdn.example.com/v1/media/x.png',
      `${PUBLIC_BASE}/v1/MEDIA/${key}`,
      `${PUBLIC_BASE}/v1/media/${key}/`,
    ]) {
      const res = await refresh(resourceUrl);
      expect(res.status, resourceUrl).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'E1126', key: 'SIGNED_URL_ERROR' });
    }
  });
});
