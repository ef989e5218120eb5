/**
 * How the service serves the demo: every page under the strict CSP, the
 * SPA's deep routes answered with the app, the built scripts where the pages
 * look for them, the demo's sources not served, and the seed's keys in the
 * pages that embed them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_GROUP_API_KEY as SEED_GROUP_KEY,
  DEMO_NORMAL_API_KEY as SEED_NORMAL_KEY,
} from '../../server/seed.ts';
import { DEMO_GROUP_API_KEY, DEMO_NORMAL_API_KEY } from '../../demo/src/config.ts';
import { ROOT, startService, type Service } from './helpers.ts';

let service: Service;

beforeAll(async () => {
  service = await startService();
});

afterAll(async () => {
  await service?.close();
});

describe('the demo as served', () => {
  it.each([
    '/',
    '/index.html',
    '/spa.html',
    '/spa/',
    '/spa/destinos',
    '/group.html',
    '/group-user.html?user=bob',
    '/console.html',
  ])('%s is HTML under the strict CSP', async (path) => {
    const res = await fetch(`${service.base}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    // No inline script or style in any page.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).not.toMatch(/<style[\s>]|\sstyle=/i);
  });

  it('without the demo data (CHARLA_SEED_DEMO=0, production) serves the widget but no demo page', async () => {
    const bare = await startService({ seedDemo: false });
    try {
      // Every body is read: a response left unread holds its connection open, and the
      // service's close waits for it (the 215 KB bundle kept this test 70 s in close()).
      for (const path of ['/', '/index.html', '/console.html', '/group.html', '/spa/destinos']) {
        const res = await fetch(`${bare.base}${path}`);
        await res.arrayBuffer();
        expect(res.status, path).toBe(404);
      }
      for (const path of ['/charla.js', '/charla.iife.js']) {
        const res = await fetch(`${bare.base}${path}`);
        expect((await res.arrayBuffer()).byteLength, path).toBeGreaterThan(0);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('content-type'), path).toMatch(/javascript/);
      }
    } finally {
      await bare.close();
    }
  });

  it('serves the SPA for its deep routes', async () => {
    const deep = await (await fetch(`${service.base}/spa/reserva`)).text();
    expect(deep).toContain('/dist/demo/spa.js');
  });

  it('serves the built scripts the pages load, and not the demo’s sources', async () => {
    for (const path of [
      '/charla.js',
      '/charla.iife.js',
      '/dist/demo/spa.js',
      '/dist/demo/console.js',
      '/dist/demo/group-user.js',
    ]) {
      const res = await fetch(`${service.base}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/javascript/);
    }
    expect((await fetch(`${service.base}/src/spa.ts`)).status).toBe(404);
  });

  it('answers paths that climb out of the served folders with 404 and the error body', async () => {
    const { request } = await import('node:http');
    // fetch() would tidy `..` and `//` away: the path goes on the wire as written.
    const raw = (path: string) =>
      new Promise<{ status: number; body: { error?: { key?: string } } }>((resolve, reject) => {
        const req = request(`${service.base}/`, { path }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end();
      });
    for (const path of ['//etc/passwd', '/%00', '/demo/../../package.json', '/dist/../package.json']) {
      const res = await raw(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error?.key, path).toBe('NOT_FOUND');
    }
  });

  it('embeds the keys the seed creates', () => {
    expect(DEMO_NORMAL_API_KEY).toBe(SEED_NORMAL_KEY);
    expect(DEMO_GROUP_API_KEY).toBe(SEED_GROUP_KEY);
    expect(readFileSync(join(ROOT, 'demo', 'index.html'), 'utf8')).toContain(
      `data-api-key="${SEED_NORMAL_KEY}"`,
    );
  });
});
