/**
 * What a pointer resting on a control shows, in Chromium: the failed message's retry looked the
 * same under the pointer (a visual probe).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { listOf, makeContext, mountWidget, msg, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

describe('under the pointer', () => {
  it('the retry of a failed message is filled', async () => {
    await page.viewport(1280, 800);
    const f = makeContext({ ui: { open: true } });
    f.stores.$currentMessages.set([msg({ text: 'No salió', senderId: 'me', by: 'user', status: 'FAILED' })]);
    const widget = await mountWidget(f);
    const retry = await waitFor(
      () => listOf(widget).rows()[0]?.querySelector<HTMLElement>('.retry'),
      'retry',
    );
    const before = getComputedStyle(retry).backgroundColor;
    await userEvent.hover(retry);
    await waitFor(() => getComputedStyle(retry).backgroundColor !== before || null, 'a hover background');
    expect(getComputedStyle(retry).backgroundColor).not.toMatch(/rgba\(0, 0, 0, 0\)|transparent/);
  });
});
