import { afterEach, describe, expect, it } from 'vitest';
import { listOf, makeContext, manyMessages, mountWidget, nextFrame, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

describe('<charla-message-list> when the room changes', () => {
  it('switches from a long room to a short one and back without a page error', async () => {
    const errors: string[] = [];
    // Chromium's "ResizeObserver loop completed" notice is not an exception; anything else is.
    const onError = (e: ErrorEvent) => {
      if (!/ResizeObserver loop/.test(e.message)) errors.push(String(e.error ?? e.message));
    };
    const onRejection = (e: PromiseRejectionEvent) => errors.push(String(e.reason));
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onRejection);
    try {
      const f = makeContext();
      const long = manyMessages(300);
      f.stores.$currentMessages.set(long);
      const widget = await mountWidget(f);
      const { rows } = listOf(widget);
      await waitFor(() => rows().length > 3, 'rows of the long room');

      for (let round = 0; round < 5; round++) {
        // Another room: far fewer messages, other ids; then an empty one; then back.
        f.stores.$currentMessages.set(
          manyMessages(2, Date.UTC(2026, 5, 1)).map((m) => ({ ...m, id: `s${round}-${m.id}` })),
        );
        await nextFrame();
        await nextFrame();
        f.stores.$currentMessages.set([]);
        await nextFrame();
        f.stores.$currentMessages.set(long);
        await nextFrame();
        await nextFrame();
      }
      f.stores.$currentMessages.set(
        manyMessages(2, Date.UTC(2026, 5, 1)).map((m) => ({ ...m, id: `end-${m.id}` })),
      );
      await waitFor(() => rows().some((r) => r.getAttribute('data-id') === 'end-h1'), 'the short room shown');
      await nextFrame();
      expect(rows().every((r) => (r.getAttribute('data-id') ?? '').startsWith('end-'))).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
    }
  });
});
