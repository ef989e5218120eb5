/**
 * History paging in Chromium when the user stays at the top: each page that comes while the
 * view still shows the first rows asks for the next (the range is reported only when it
 * changes, so a user at the top while a page was on its way sat there for good: a reviewer's
 * 20,000-message room stopped paging after 3 pages); a page that fails says so at the top with
 * a retry, and is not asked again by itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { errorBody } from '../../types/index.ts';
import { listOf, makeContext, manyMessages, mountWidget, nextFrame, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

function pagedRoom(total: number, held: number, delayMs: number) {
  const f = makeContext();
  const all = manyMessages(total);
  let shown = all.slice(total - held);
  f.stores.$currentMessages.set(shown);
  f.stores.$currentHistory.set({ loading: false, hasMore: true });
  f.context.actions.loadOlder = async () => {
    f.calls.push({ name: 'loadOlder', args: [] });
    if (f.stores.$currentHistory.get().loading) return;
    f.stores.$currentHistory.set({ loading: true, hasMore: true });
    await new Promise((r) => setTimeout(r, delayMs));
    const first = all.indexOf(shown[0]!);
    shown = [...all.slice(Math.max(0, first - 20), first), ...shown];
    f.stores.$currentMessages.set(shown);
    f.stores.$currentHistory.set({ loading: false, hasMore: first - 20 > 0 });
  };
  return { f, held: () => shown.length };
}

describe('<charla-message-list> paging at the top', () => {
  it('goes on loading pages while the view is held at the top', async () => {
    const { f, held } = pagedRoom(2000, 40, 60);
    const widget = await mountWidget(f);
    const { rows, scroller } = listOf(widget);
    await waitFor(() => rows().length > 0, 'rows');
    // The user keeps the view at the very top (a script, or a flick that ends there each time).
    const until = performance.now() + 3000;
    while (performance.now() < until && held() < 200) {
      scroller!.dispatchEvent(new WheelEvent('wheel', { deltaY: -2000 }));
      scroller!.scrollTop = 0;
      await nextFrame();
    }
    expect(held(), `${f.callsOf('loadOlder').length} calls`).toBeGreaterThanOrEqual(200);
  });

  it('says at the top that a page failed, and asks again only when told to', async () => {
    const f = makeContext();
    f.stores.$currentMessages.set(manyMessages(40));
    f.stores.$currentHistory.set({ loading: false, hasMore: true });
    f.context.actions.loadOlder = async () => {
      f.calls.push({ name: 'loadOlder', args: [] });
      f.stores.$currentHistory.set({ loading: true, hasMore: true });
      await new Promise((r) => setTimeout(r, 10));
      f.stores.$currentHistory.set({ loading: false, hasMore: true, error: errorBody('RATE_LIMITED') });
    };
    const widget = await mountWidget(f);
    const { list, rows, scroller } = listOf(widget);
    await waitFor(() => rows().length > 0, 'rows');
    scroller!.dispatchEvent(new WheelEvent('wheel', { deltaY: -5000 }));
    scroller!.scrollTop = 0;
    const alert = await waitFor(() => list!.shadowRoot!.querySelector<HTMLElement>('[role=alert]'), 'alert');
    expect(alert.textContent).toContain('No se pudieron cargar los mensajes anteriores.');
    const calls = f.callsOf('loadOlder').length;
    for (let i = 0; i < 10; i++) await nextFrame();
    expect(f.callsOf('loadOlder').length).toBe(calls);
    alert.querySelector('button')!.click();
    expect(f.callsOf('loadOlder').length).toBe(calls + 1);
  });
});
