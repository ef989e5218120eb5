/**
 * Widget uploads have an hourly allowance (server/live/upload-limit.ts): per user
 * CHARLA_UPLOADS_PER_HOUR files and CHARLA_UPLOAD_MB_PER_HOUR megabytes, per client address ten
 * times that. One past it is 429 RATE_LIMITED with data.retryAfterMs and Retry-After, and stores
 * nothing. Here the allowance is 2 files and 1 MB a user (20 files and 10 MB an address).
 */
import { describe, expect, it } from 'vitest';
import { ROUTES, type ErrorBody } from '../../types/index.ts';
import { configFromEnv } from '../../server/config.ts';
import { prefixOf } from '../../server/live/upload-limit.ts';
import { liveWidgets } from './helpers/widgets.ts';
import { people, type Person } from './helpers/people.ts';

const live = liveWidgets({ live: { uploadsPerHour: 2, uploadMbPerHour: 1 } });
const MB = 1024 * 1024;

async function upload(p: Person, bytes = 1000) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), 'a.pdf');
  const res = await fetch(live.h.baseUrl + ROUTES.widgetUpload, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.token}` },
    body: form,
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

const stored = async () =>
  Number(
    (
      await live.h.app.charla.db.query<{ n: string | number }>(
        'SELECT count(*) AS n FROM media WHERE uploaded_by IS NOT NULL',
      )
    ).rows[0]!.n,
  );

function expectLimited(r: Awaited<ReturnType<typeof upload>>, atMostMs: number): void {
  expect(r.status).toBe(429);
  const body = r.body as ErrorBody & { data: { retryAfterMs: number } };
  expect(body.error).toMatchObject({ code: 'E0429', key: 'RATE_LIMITED' });
  expect(body.data.retryAfterMs).toBeGreaterThan(0);
  expect(body.data.retryAfterMs).toBeLessThanOrEqual(atMostMs);
  expect(Number(r.retryAfter)).toBe(Math.ceil(body.data.retryAfterMs / 1000));
}

describe('the hourly upload allowance', () => {
  it('takes a user’s files up to it, then answers 429 and stores nothing; another user still uploads', async () => {
    const [ana, beto] = await people(live.h, live.apiKey, 'Ana', 'Beto');
    expect((await upload(ana)).status).toBe(200);
    expect((await upload(ana)).status).toBe(200);
    const before = await stored();
    // A file is back every half hour (2 an hour).
    expectLimited(await upload(ana), 30 * 60_000);
    expect(await stored()).toBe(before);
    expect((await upload(beto)).status).toBe(200);
  });

  it('counts megabytes: a file larger than what is left does not start', async () => {
    const [carla] = await people(live.h, live.apiKey, 'Carla');
    expect((await upload(carla, 0.6 * MB)).status).toBe(200);
    const before = await stored();
    // About 0.4 MB left: 0.6 MB more comes back in about 12 minutes, at most the hour.
    expectLimited(await upload(carla, 0.6 * MB), 60 * 60_000);
    expect(await stored()).toBe(before);
    // A small one still fits (the refused one took nothing: this is her second file of two).
    expect((await upload(carla, 100_000)).status).toBe(200);
  });

  it('holds the bytes of uploads side by side from the start: together they cannot pass it', async () => {
    const [dora] = await people(live.h, live.apiKey, 'Dora');
    const before = await stored();
    const results = await Promise.all([0, 1, 2].map(() => upload(dora, 0.6 * MB)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 429, 429]);
    expect(await stored()).toBe(before + 1);
  });

  it('holds a client address to ten users’ allowance, whatever user ids it makes up', async () => {
    // This file's uploads so far came from the same address (127.0.0.1): 6 files of its 20, 1.3 MB.
    const many = await people(live.h, live.apiKey, ...Array.from({ length: 8 }, (_, i) => `Visita ${i}`));
    let accepted = 0;
    let refused: Awaited<ReturnType<typeof upload>> | undefined;
    for (const p of many) {
      for (let i = 0; i < 2; i++) {
        const r = await upload(p);
        if (r.status === 200) accepted++;
        else refused ??= r;
      }
    }
    expect(accepted).toBe(14);
    expectLimited(refused!, 3 * 60_000);
  });

  it('counts an IPv6 address by its /64, an IPv4-mapped one as IPv4', () => {
    expect(prefixOf('203.0.113.7')).toBe('203.0.113.7');
    expect(prefixOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(prefixOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(prefixOf('2001:0DB8:0001:0002:ffff::9')).toBe('2001:db8:1:2::/64');
    expect(prefixOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(prefixOf('2001:db8:1:2::')).toBe('2001:db8:1:2::/64');
    expect(prefixOf('::1')).toBe('0:0:0:0::/64');
    expect(prefixOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('CHARLA_UPLOADS_PER_HOUR and CHARLA_UPLOAD_MB_PER_HOUR are positive numbers (anything else stops the start)', () => {
    const base = { PORT: '0' };
    expect(configFromEnv(base)).toMatchObject({ uploadsPerHour: 60, uploadMbPerHour: 250 });
    expect(
      configFromEnv({ ...base, CHARLA_UPLOADS_PER_HOUR: '5', CHARLA_UPLOAD_MB_PER_HOUR: '0.5' }),
    ).toMatchObject({ uploadsPerHour: 5, uploadMbPerHour: 0.5 });
    for (const bad of ['0', '-1', 'many', '2.5'])
      expect(() => configFromEnv({ ...base, CHARLA_UPLOADS_PER_HOUR: bad })).toThrow(
        /^CHARLA_UPLOADS_PER_HOUR must be a positive whole number of files/,
      );
    for (const bad of ['0', '-1', 'lots'])
      expect(() => configFromEnv({ ...base, CHARLA_UPLOAD_MB_PER_HOUR: bad })).toThrow(
        /^CHARLA_UPLOAD_MB_PER_HOUR must be a positive number of megabytes/,
      );
  });
});
