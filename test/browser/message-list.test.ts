import { afterEach, describe, expect, it } from 'vitest';
import { listOf, makeContext, manyMessages, mountWidget, msg, nextFrame, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

describe('<charla-message-list> in Chromium', () => {
  it('keeps at most 150 message elements in the DOM for 10,000 messages, showing the newest', async () => {
    const f = makeContext();
    const messages = manyMessages(10_000);
    f.stores.$currentMessages.set(messages);
    const widget = await mountWidget(f);
    const { rows, scroller } = listOf(widget);
    await waitFor(() => rows().length > 0, 'rows');
    await nextFrame();
    expect(rows().length).toBeGreaterThan(3);
    expect(rows().length).toBeLessThanOrEqual(150);
    // Pinned to the bottom: the newest message is rendered and, once laid out, on screen.
    const last = await waitFor(() => rows().find((r) => r.getAttribute('data-id') === 'h9999'), 'newest row');
    const view = scroller!.getBoundingClientRect();
    await waitFor(() => {
      const box = last.getBoundingClientRect();
      return box.bottom <= view.bottom + 1 && box.top >= view.top - 1;
    }, 'newest row inside the view');
  });

  it('stays under 150 elements while scrolling through the whole room', async () => {
    const f = makeContext();
    f.stores.$currentMessages.set(manyMessages(10_000));
    const widget = await mountWidget(f);
    const { rows, scroller } = listOf(widget);
    await waitFor(() => rows().length > 0, 'rows');
    let most = 0;
    for (const fraction of [0.75, 0.5, 0.25, 0.1, 0.5]) {
      scroller!.scrollTop = scroller!.scrollHeight * fraction;
      await nextFrame();
      await nextFrame();
      most = Math.max(most, rows().length);
    }
    expect(most).toBeGreaterThan(3);
    expect(most).toBeLessThanOrEqual(150);
  });

  it('loads older history at the top and keeps the reading position', async () => {
    const f = makeContext();
    const all = manyMessages(200);
    let held = all.slice(150);
    f.stores.$currentMessages.set(held);
    f.stores.$currentHistory.set({ loading: false, hasMore: true });
    f.context.actions.loadOlder = async () => {
      f.calls.push({ name: 'loadOlder', args: [] });
      f.stores.$currentHistory.set({ loading: true, hasMore: true });
      await new Promise((r) => setTimeout(r, 20));
      const first = all.indexOf(held[0]!);
      held = [...all.slice(Math.max(0, first - 50), first), ...held];
      f.stores.$currentMessages.set(held);
      f.stores.$currentHistory.set({ loading: false, hasMore: first - 50 > 0 });
    };
    const widget = await mountWidget(f);
    const { rows, scroller } = listOf(widget);
    await waitFor(() => rows().length > 0, 'rows');
    // Scroll up a little at a time, as a user does, until the top is near.
    for (let i = 0; i < 200 && f.callsOf('loadOlder').length === 0; i++) {
      scroller!.scrollBy(0, -300);
      scroller!.dispatchEvent(new WheelEvent('wheel', { deltaY: -300 }));
      await nextFrame();
    }
    expect(f.callsOf('loadOlder').length).toBeGreaterThan(0);
    // The row the user was reading is still on screen where it was (within a small tolerance).
    const reading = rows().find(
      (r) => r.getBoundingClientRect().top >= scroller!.getBoundingClientRect().top + 40,
    )!;
    const id = reading.getAttribute('data-id');
    const before = reading.getBoundingClientRect().top;
    await waitFor(() => held.length > 50 && !f.stores.$currentHistory.get().loading, 'older page');
    await nextFrame();
    await nextFrame();
    const after = rows().find((r) => r.getAttribute('data-id') === id);
    expect(after, `row ${id} still rendered`).toBeTruthy();
    const shift = Math.abs(after!.getBoundingClientRect().top - before);
    expect(shift).toBeLessThan(8);
    expect(held[0]!.id).not.toBe('h150');
  });

  it('shows a "new messages" button when scrolled up, and jumps down with it', async () => {
    const f = makeContext();
    f.stores.$currentMessages.set(manyMessages(300));
    const widget = await mountWidget(f);
    const { list, rows, scroller } = listOf(widget);
    await waitFor(() => rows().length > 0, 'rows');
    for (let i = 0; i < 5; i++) {
      scroller!.dispatchEvent(new WheelEvent('wheel', { deltaY: -400 }));
      scroller!.scrollBy(0, -400);
      await nextFrame();
    }
    f.stores.$currentMessages.set([
      ...f.stores.$currentMessages.get(),
      msg({ id: 'fresh', text: 'Nuevo', timestamp: Date.now() }),
    ]);
    const jump = await waitFor(
      () => list!.shadowRoot!.querySelector<HTMLButtonElement>('[part=new-messages-button]'),
      'new messages button',
    );
    jump.click();
    await waitFor(() => rows().find((r) => r.getAttribute('data-id') === 'fresh'), 'fresh row');
    await waitFor(() => !list!.shadowRoot!.querySelector('[part=new-messages-button]'), 'button gone');
  });

  it('reports as seen only the incoming messages actually on screen', async () => {
    const f = makeContext();
    f.stores.$currentMessages.set(manyMessages(2000));
    const widget = await mountWidget(f);
    const { rows } = listOf(widget);
    await waitFor(() => f.callsOf('markSeen').length > 0, 'markSeen');
    const seen = f.callsOf('markSeen').flatMap((c) => c.args[1] as string[]);
    expect(f.callsOf('markSeen')[0]!.args[0]).toBe('r1');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThanOrEqual(rows().length);
    expect(seen).toContain('h1999');
    expect(seen).not.toContain('h0');
    // Own messages (every third here) are never reported.
    expect(seen.every((id) => Number(id.slice(1)) % 3 !== 0)).toBe(true);
  });
});
