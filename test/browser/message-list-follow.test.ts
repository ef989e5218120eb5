import { afterEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import type { Message } from '../../types/index.ts';
import {
  animationsDone,
  listOf,
  makeContext,
  manyMessages,
  mountWidget,
  msg,
  nextFrame,
  waitFor,
} from './helpers.ts';

afterEach(() => document.body.replaceChildren());

const BUTTON = '[part=new-messages-button]';

/** The list mounted at the bottom of a room, with a watch on the "new messages" button. */
async function mountAtBottom(initial: Message[], f = makeContext()) {
  f.stores.$currentMessages.set(initial);
  const widget = await mountWidget(f);
  const { list, rows, scroller } = listOf(widget);
  const root = list!.shadowRoot!;
  const row = (id: string) => rows().find((r) => r.getAttribute('data-id') === id);
  /** The row is rendered and its bottom edge is inside the scrolling region. */
  const inView = (id: string) => {
    const r = row(id);
    if (!r || r.getBoundingClientRect().height === 0) return false;
    const box = r.getBoundingClientRect();
    const view = scroller!.getBoundingClientRect();
    return box.bottom <= view.bottom + 1 && box.bottom > view.top;
  };
  /** Scrolled to the end, give or take the region's bottom padding and rounding. */
  const atBottom = () => scroller!.scrollHeight - scroller!.clientHeight - scroller!.scrollTop <= 12;
  const button = () => root.querySelector<HTMLButtonElement>(BUTTON);
  let sawButton = false;
  // Every shadow-root change is checked, so a button that shows for a moment is not missed.
  const observer = new MutationObserver(() => {
    if (button()) sawButton = true;
  });
  observer.observe(root, { childList: true, subtree: true });
  const last = initial[initial.length - 1]!;
  await waitFor(() => inView(String(last.id)) && atBottom(), 'newest row at the bottom');
  const append = (...more: Message[]) =>
    f.stores.$currentMessages.set([...f.stores.$currentMessages.get(), ...more]);
  return { f, list, rows, scroller: scroller!, row, inView, atBottom, button, append, saw: () => sawButton };
}

/** Leaves the current task, as separate socket events do. */
const nextTask = () => new Promise<void>((r) => setTimeout(r, 0));

/** A few frames with nothing changing, so a late layout pass has had its chance to move the view. */
async function settle(frames = 6): Promise<void> {
  for (let i = 0; i < frames; i++) await nextFrame();
}

/** Someone else's message, written now (so the list treats it as live). */
function live(id: string, fields: Record<string, unknown> = {}): Message {
  return msg({ id, text: `Respuesta ${id}`, timestamp: Date.now(), senderId: 'bot1', by: 'bot', ...fields });
}

const LONG = 'Una respuesta bastante larga del asistente que ocupa varias líneas en la burbuja. '.repeat(6);

describe('<charla-message-list> on first open', () => {
  for (const [width, height] of [
    [1280, 800],
    [320, 640],
  ] as const) {
    it(`opened from the launcher at ${width} px, the list ends at its newest row, its time in view`, async () => {
      await page.viewport(width, height);
      const f = makeContext({ ui: { open: false } });
      // A tall newest row: rows measured while the panel still animated in came out short by a share of their height.
      f.stores.$currentMessages.set([...manyMessages(40), msg({ id: 'tall', text: LONG.repeat(3) })]);
      const widget = await mountWidget(f);
      widget.shadowRoot!.querySelector<HTMLButtonElement>('[part=launcher]')!.click();
      const row = await waitFor(
        () =>
          listOf(widget)
            .rows()
            .find((r) => r.getAttribute('data-id') === 'tall'),
        'newest row',
      );
      await animationsDone(widget);
      await settle();
      const view = listOf(widget).scroller!;
      expect(view).not.toBeNull();
      const gap = view.scrollHeight - view.clientHeight - view.scrollTop;
      expect(gap, 'the view short of the end of the content').toBeLessThanOrEqual(1);
      const time = row.querySelector('time')!.getBoundingClientRect();
      expect(time.bottom, 'the newest time inside the view').toBeLessThanOrEqual(
        view.getBoundingClientRect().bottom,
      );
      expect(row.getBoundingClientRect().bottom).toBeLessThanOrEqual(view.getBoundingClientRect().bottom + 1);
    });
  }
});

describe('<charla-message-list> following new messages', () => {
  it('keeps the newest of 50 quick arrivals in view, without a "new messages" button', async () => {
    const l = await mountAtBottom(manyMessages(60));
    await settle(10);
    for (let i = 0; i < 50; i++) {
      // Someone else's, one short line each (shorter than the room's rows so far), a couple of
      // frames apart as socket events come. The user's own would bring the view down anyway.
      l.append(live(`burst${i}`, { text: `R ${i}` }));
      await new Promise((r) => setTimeout(r, 30));
    }
    await waitFor(() => l.row('burst49'), 'newest burst row');
    await settle(10);
    expect(l.saw(), 'new messages button shown').toBe(false);
    expect(l.atBottom(), 'at the bottom').toBe(true);
    expect(l.inView('burst49'), 'newest row in view').toBe(true);
  });

  it('stays at the bottom when a recent row grows after it was laid out', async () => {
    const l = await mountAtBottom(manyMessages(60));
    l.append(live('short', { text: 'Corto' }));
    await waitFor(() => l.inView('short') && l.atBottom(), 'short row at the bottom');
    await settle();
    // The same message, now much taller (an options block arriving, an edit): the row grows in place.
    const messages = l.f.stores.$currentMessages.get();
    const grown = { ...messages[messages.length - 1]!, text: `${LONG}\n\n${LONG}` } as Message;
    l.f.stores.$currentMessages.set([...messages.slice(0, -1), grown]);
    await waitFor(() => (l.row('short')?.getBoundingClientRect().height ?? 0) > 150, 'the row to grow');
    await settle();
    expect(l.atBottom(), 'still at the bottom after the row grew').toBe(true);
    expect(l.inView('short')).toBe(true);
    // And it keeps following afterwards.
    l.append(live('after'));
    await waitFor(() => l.inView('after') && l.atBottom(), 'next row at the bottom');
    await settle();
    expect(l.atBottom()).toBe(true);
    expect(l.saw(), 'new messages button shown').toBe(false);
  });

  it('stays at the bottom while an image in the newest rows loads', async () => {
    const l = await mountAtBottom(manyMessages(60));
    // Served by the test server (http on localhost passes the URL checks); a fresh query each run, no cache.
    const src = `${location.origin}/demo/media/pan.png?follow=${Math.random()}`;
    l.append(live('picture', { type: 'IMAGE', mediaUrl: src, text: undefined }), live('below-picture'));
    const img = await waitFor(
      () => l.row('picture')?.querySelector('img') as HTMLImageElement | undefined,
      'image element',
    );
    await waitFor(() => img.complete && img.naturalHeight > 0, 'image loaded');
    await waitFor(() => (l.row('picture')?.getBoundingClientRect().height ?? 0) > 100, 'image row grown');
    await settle();
    expect(l.inView('below-picture'), 'the row below the image in view').toBe(true);
    expect(l.atBottom(), 'still at the bottom').toBe(true);
    l.append(live('after-picture'));
    await waitFor(() => l.inView('after-picture') && l.atBottom(), 'next row at the bottom');
    expect(l.saw(), 'new messages button shown').toBe(false);
  });

  it('after the user scrolls up, new messages show the button and leave the view alone; the button goes down and follows again', async () => {
    const l = await mountAtBottom(manyMessages(300));
    // A user's scroll: wheel, then the scroll it causes.
    for (let i = 0; i < 5; i++) {
      l.scroller.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true }));
      l.scroller.scrollBy(0, -400);
      await nextFrame();
    }
    await settle();
    const reading = l
      .rows()
      .find((r) => r.getBoundingClientRect().top >= l.scroller.getBoundingClientRect().top + 20)!;
    const readingId = reading.getAttribute('data-id')!;
    const before = reading.getBoundingClientRect().top;
    const scrollTop = l.scroller.scrollTop;
    l.append(live('unseen1'));
    await nextTask();
    l.append(live('unseen2', { text: LONG }));
    const jump = await waitFor(l.button, 'new messages button');
    expect(jump.textContent).toContain('(2)');
    await settle();
    expect(Math.abs(l.scroller.scrollTop - scrollTop), 'view did not move').toBeLessThan(2);
    expect(Math.abs(l.row(readingId)!.getBoundingClientRect().top - before)).toBeLessThan(2);
    expect(l.inView('unseen2')).toBe(false);

    jump.click();
    await waitFor(() => l.inView('unseen2') && l.atBottom(), 'bottom after the button');
    await waitFor(() => !l.button(), 'button gone');
    // Pinned again: the next message is followed without the button.
    l.append(live('followed'));
    await waitFor(() => l.inView('followed') && l.atBottom(), 'followed row at the bottom');
    await settle();
    expect(l.button()).toBeNull();
  });

  it('keeps following a new conversation as it outgrows the view while older history is still unknown', async () => {
    const f = makeContext();
    // A fresh room: the store does not know yet whether older messages exist.
    f.stores.$currentHistory.set({ loading: false, hasMore: true });
    f.context.actions.loadOlder = async () => {
      f.calls.push({ name: 'loadOlder', args: [] });
      f.stores.$currentHistory.set({ loading: true, hasMore: true });
      await new Promise((r) => setTimeout(r, 20));
      f.stores.$currentHistory.set({ loading: false, hasMore: false });
    };
    const l = await mountAtBottom([live('hello', { text: 'Hola' })], f);
    for (let i = 0; i < 30; i++) {
      l.append(live(`turn${i}`, { text: i % 3 === 0 ? LONG : `Respuesta ${i}` }));
      await waitFor(() => l.inView(`turn${i}`) && l.atBottom(), `turn${i} at the bottom`);
    }
    await settle();
    expect(l.inView('turn29')).toBe(true);
    expect(l.saw(), 'new messages button shown').toBe(false);
  });

  it('follows new messages after switching from a long room to another', async () => {
    const f = makeContext();
    const other = manyMessages(40).map((m) => ({ ...m, id: `b-${m.id}`, roomId: 'r2' }) as Message);
    const l = await mountAtBottom(manyMessages(500), f);
    f.stores.$currentRoomId.set('r2');
    f.stores.$currentMessages.set(other);
    await waitFor(() => l.inView('b-h39') && l.atBottom(), 'the other room at the bottom');
    for (let i = 0; i < 10; i++) {
      l.append(live(`r2-${i}`, { roomId: 'r2', text: i % 2 ? LONG : 'Hola' }));
      await nextTask();
    }
    await waitFor(() => l.inView('r2-9') && l.atBottom(), 'newest row at the bottom');
    await settle();
    expect(l.atBottom()).toBe(true);
    expect(l.saw(), 'new messages button shown').toBe(false);
  });

  it('stays at the bottom when the room becomes a group and rows grow sender names', async () => {
    const f = makeContext();
    const l = await mountAtBottom(
      manyMessages(80).map((m, i) => ({ ...m, senderNames: `Persona ${i % 4}` }) as Message),
      f,
    );
    const [r] = f.stores.$rooms.get();
    f.stores.$rooms.set([{ ...r!, type: 'group' } as typeof r & object]);
    l.append(live('welcome', { type: 'EVENT', text: 'Ana se unió' }));
    await waitFor(() => l.inView('welcome') && l.atBottom(), 'event row at the bottom');
    l.append(live('from-ana', { senderId: 'ana', senderNames: 'Ana', text: 'Hola a todos' }));
    await waitFor(() => l.inView('from-ana') && l.atBottom(), 'newest row at the bottom');
    await settle();
    expect(l.atBottom()).toBe(true);
    expect(l.saw(), 'new messages button shown').toBe(false);
  });
});

/** The demo bot's menu: ten options, far taller than a small panel's list. */
function menu(id: string, fields: Record<string, unknown> = {}): Message {
  const options = Array.from({ length: 10 }, (_, i) => ({
    type: 'postback',
    title: `Opción ${i + 1}`,
    description: 'Una descripción de la opción',
    payload: { i },
    order: i + 1,
  }));
  return live(id, { text: '¿En qué te ayudo?', options, ...fields });
}

describe('<charla-message-list> receiving a message taller than the view', () => {
  for (const [width, height] of [
    [320, 256],
    [1280, 800],
  ] as const) {
    it(`at ${width}x${height}, shows someone else's tall message from its start and stops following`, async () => {
      await page.viewport(width, height);
      const l = await mountAtBottom(manyMessages(60));
      /** The row's top edge, relative to the top of the view. */
      const top = (id: string) =>
        l.row(id)!.getBoundingClientRect().top - l.scroller.getBoundingClientRect().top;
      // A short one from someone else still lands at the bottom.
      l.append(live('short', { text: 'Corto' }));
      await waitFor(() => l.inView('short') && l.atBottom(), 'short row at the bottom');

      l.append(menu('menu'));
      await waitFor(() => l.row('menu'), 'menu row');
      await settle();
      expect(l.row('menu')!.getBoundingClientRect().height, 'taller than the view').toBeGreaterThan(
        l.scroller.clientHeight + 40,
      );
      expect(Math.abs(top('menu')), 'the menu starts at the top of the view').toBeLessThanOrEqual(1);
      expect(l.atBottom()).toBe(false);
      expect(l.button()).toBeNull();

      // No longer following: the next message waits behind the button, the menu stays where it is
      // (the scroll offset itself may change as the layout re-estimates the rows above).
      l.append(live('next', { text: 'Otra cosa' }));
      const jump = await waitFor(l.button, 'new messages button');
      expect(jump.textContent).toContain('(1)');
      await settle();
      expect(Math.abs(top('menu')), 'the menu still starts at the top of the view').toBeLessThanOrEqual(1);
      expect(l.inView('next')).toBe(false);

      // Scrolling down to the end follows again, as usual.
      l.scroller.scrollBy(0, 4000);
      await waitFor(() => !l.button() && l.atBottom(), 'following again at the end');
      l.append(live('followed'));
      await waitFor(() => l.inView('followed') && l.atBottom(), 'followed row at the bottom');
      await settle();
      expect(l.atBottom()).toBe(true);
      expect(l.button()).toBeNull();
    });
  }

  it("keeps the user's own tall message at the bottom, and the end of a short reply after it", async () => {
    await page.viewport(320, 256);
    const l = await mountAtBottom(manyMessages(60));
    l.append(msg({ id: 'mine', text: LONG.repeat(2), timestamp: Date.now(), senderId: 'me', by: 'user' }));
    await waitFor(() => l.inView('mine') && l.atBottom(), 'own tall row at the bottom');
    await settle();
    expect(l.atBottom()).toBe(true);
    l.append(live('reply', { text: 'Vale' }));
    await waitFor(() => l.inView('reply') && l.atBottom(), 'short reply at the bottom');
    await settle();
    expect(l.atBottom()).toBe(true);
    expect(l.saw(), 'new messages button shown').toBe(false);
  });
});
