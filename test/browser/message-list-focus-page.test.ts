/**
 * A page of older history coming in while focus is on a control in one of the first rows (a
 * keyboard user gone back to the top with Shift+Tab): the focus stays on that control. The
 * keyboard re-check saw it drop to <body> there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import {
  deepActive,
  listOf,
  makeContext,
  manyMessages,
  mountWidget,
  msg,
  nextFrame,
  waitFor,
} from './helpers.ts';

afterEach(() => document.body.replaceChildren());

const LINK = 'https://example.com/arriba';

describe('<charla-message-list> a page of history under a focused control', () => {
  it('keeps focus on the control while older rows come in above it', async () => {
    await page.viewport(1280, 800);
    const f = makeContext();
    const messages = manyMessages(60, Date.UTC(2026, 0, 5, 9)).map((m) => msg({ ...m, id: `n${m.id}` }));
    messages[0] = msg({ ...messages[0]!, text: `Primero ${LINK}` });
    f.stores.$currentMessages.set(messages);
    const widget = await mountWidget(f);
    const { scroller, rows } = listOf(widget);
    scroller!.scrollTop = 0;
    const link = await waitFor(
      () =>
        rows()
          .flatMap((r) => [...r.querySelectorAll<HTMLAnchorElement>('a[href]')])
          .find((a) => a.href === LINK),
      'the first row drawn',
    );
    link.focus();
    for (let i = 0; i < 4; i++) await nextFrame();
    expect((deepActive() as HTMLAnchorElement | null)?.href).toBe(LINK);
    // A page of 50 older messages, as loadOlder puts it in front.
    const older = manyMessages(50, Date.UTC(2026, 0, 1, 9)).map((m) => msg({ ...m, id: `o${m.id}` }));
    f.stores.$currentMessages.set([...older, ...messages]);
    for (let i = 0; i < 12; i++) await nextFrame();
    expect((deepActive() as HTMLAnchorElement | null)?.href ?? deepActive()?.tagName, 'focus kept').toBe(
      LINK,
    );
  });
});
