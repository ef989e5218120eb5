/**
 * A page's script calling a server-side operation with wrong credentials (the
 * demo console does) gets its 401 without a Basic challenge, which would make
 * Chromium put a login box over the page; a backend still gets the challenge.
 */
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openPage, withServiceAndBrowser, type Service } from './helpers.ts';

let service: Service;
let browser: Browser;
withServiceAndBrowser((started) => ({ service, browser } = started));

describe('401 from a page’s script', () => {
  it('has no Basic challenge in Chromium, and the body is the interface’s error', async () => {
    const { page, context } = await openPage(browser, `${service.base}/console.html`);
    const seen = await page.evaluate(async () => {
      const res = await fetch('/v1/campaigns', {
        method: 'POST',
        headers: { authorization: `Basic ${btoa('wrong:secret')}`, 'content-type': 'application/json' },
        body: '{}',
      });
      return {
        status: res.status,
        challenge: res.headers.get('www-authenticate'),
        key: ((await res.json()) as { error: { key: string } }).error.key,
      };
    });
    expect(seen).toEqual({ status: 401, challenge: null, key: 'UNAUTHORIZED' });
    const backend = await fetch(`${service.base}/v1/campaigns`, { method: 'POST' });
    expect(backend.headers.get('www-authenticate')).toMatch(/^Basic realm="Charla"/);
    await context.close();
  });
});
