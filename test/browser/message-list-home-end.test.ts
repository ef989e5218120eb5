/**
 * Home and End on the message list. The browser's own Home and End scroll smoothly; on the way,
 * rows render for the first time and their measured heights differ from the layout's estimates,
 * and the virtualizer's correction of the scroll position stopped that scroll short (Home at
 * scrollTop ~367 of a 60-message room, rows 4 to 11 in view; worse under `html { zoom: 2 }`).
 * The list takes the two keys itself: Home holds the first message at the top of the view and
 * lets the bottom go, End pins the end of the last message and follows again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import type { Message } from '../../types/index.ts';
import { listOf, makeContext, manyMessages, mountWidget, msg, nextFrame, waitFor } from './helpers.ts';

afterEach(() => {
  document.body.replaceChildren();
  document.documentElement.style.zoom = '';
});

async function frames(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await nextFrame();
}

const LONG = 'Una respuesta bastante larga del asistente que ocupa varias líneas en la burbuja. '.repeat(12);

/** Someone else's message, written now (so the list treats it as live). */
function live(id: string, fields: Record<string, unknown> = {}): Message {
  return msg({ id, text: `Respuesta ${id}`, timestamp: Date.now(), senderId: 'bot1', by: 'bot', ...fields });
}

async function mount(messages: Message[], zoom = 1, f = makeContext()) {
  await page.viewport(1280, 800);
  document.documentElement.style.zoom = zoom === 1 ? '' : String(zoom);
  f.stores.$currentMessages.set(messages);
  const widget = await mountWidget(f);
  const { list, rows, scroller } = listOf(widget);
  const el = scroller!;
  const row = (id: string) => rows().find((r) => r.getAttribute('data-id') === id);
  /** The row's whole box inside the list's view (in the page's pixels, zoom or not). */
  const inside = (id: string) => {
    const box = row(id)?.getBoundingClientRect();
    const view = el.getBoundingClientRect();
    return !!box && box.height > 0 && box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
  };
  /** The row's bottom edge inside the list's view. */
  const bottomInView = (id: string) => {
    const box = row(id)?.getBoundingClientRect();
    const view = el.getBoundingClientRect();
    return !!box && box.height > 0 && box.bottom <= view.bottom + 1 && box.bottom > view.top;
  };
  const gap = () => el.scrollHeight - el.clientHeight - el.scrollTop;
  const button = () => list!.shadowRoot!.querySelector('[part=new-messages-button]');
  const append = (m: Message) => f.stores.$currentMessages.set([...f.stores.$currentMessages.get(), m]);
  const last = String(messages[messages.length - 1]!.id);
  await waitFor(() => bottomInView(last) && gap() <= 12, 'the newest row at the bottom');
  await frames(8);
  return { f, el, rows, row, inside, bottomInView, gap, button, append };
}

/** Presses a key with focus on the list, then waits for the outcome (or gives up and lets the assertion say). */
async function press(l: { el: HTMLElement }, key: string, done: () => boolean): Promise<void> {
  if (!l.el.matches(':focus')) l.el.focus();
  await userEvent.keyboard(`{${key}}`);
  await waitFor(done, `${key} done`).catch(() => undefined);
  await frames(6);
}

describe('<charla-message-list> Home and End', () => {
  for (const zoom of [1, 2]) {
    it(`zoom ${zoom}: Home shows the first of 60 messages, End the end of the last`, async () => {
      const l = await mount(manyMessages(60), zoom);
      await press(l, 'Home', () => l.inside('h0'));
      expect(l.inside('h0'), 'Home shows the first message').toBe(true);
      expect(l.el.scrollTop, 'at the top').toBeLessThanOrEqual(1);

      await press(l, 'End', () => l.bottomInView('h59') && l.gap() <= 12);
      expect(l.bottomInView('h59'), 'End shows the end of the last message').toBe(true);
      expect(l.gap(), 'at the end').toBeLessThanOrEqual(12);
    });
  }

  for (const zoom of [1, 2]) {
    it(`zoom ${zoom}: End shows the end of a long last message, and follows new ones again`, async () => {
      const messages = [...manyMessages(60), msg({ id: 'long', text: LONG, senderId: 'bot1', by: 'bot' })];
      const l = await mount(messages, zoom);
      await press(l, 'Home', () => l.inside('h0'));
      expect(l.inside('h0'), 'Home shows the first message').toBe(true);

      await press(l, 'End', () => l.bottomInView('long') && l.gap() <= 12);
      expect(l.bottomInView('long'), 'End shows the end of the last message').toBe(true);
      expect(l.gap(), 'at the end').toBeLessThanOrEqual(12);

      // Pinned to the end again: the next message is followed, without the button.
      l.append(live('followed'));
      await waitFor(() => l.bottomInView('followed') && l.gap() <= 12, 'the new message followed').catch(
        () => undefined,
      );
      await frames(6);
      expect(l.bottomInView('followed'), 'the new message is followed').toBe(true);
      expect(l.button()).toBeNull();
    });
  }

  it('Home lets the bottom go: a message arriving next waits behind the button, the first row stays', async () => {
    const l = await mount(manyMessages(60));
    await press(l, 'Home', () => l.inside('h0'));
    expect(l.inside('h0')).toBe(true);
    l.append(live('later'));
    await waitFor(l.button, 'new messages button').catch(() => undefined);
    await frames(6);
    expect(l.button()?.textContent).toContain('(1)');
    expect(l.inside('h0'), 'the first message is still in view').toBe(true);
  });

  it('Home reaches the top and loads older history there, holding the first loaded message', async () => {
    const f = makeContext();
    const all = manyMessages(120);
    let held = all.slice(60);
    // More history is known to exist once the room has opened at its end (the first layout pass,
    // which starts at the top, would otherwise ask for it on opening).
    f.stores.$currentHistory.set({ loading: false, hasMore: false });
    f.context.actions.loadOlder = async () => {
      f.calls.push({ name: 'loadOlder', args: [] });
      f.stores.$currentHistory.set({ loading: true, hasMore: true });
      await new Promise((r) => setTimeout(r, 20));
      held = [...all.slice(0, 60), ...held];
      f.stores.$currentMessages.set(held);
      f.stores.$currentHistory.set({ loading: false, hasMore: false });
    };
    const l = await mount(held, 1, f);
    f.stores.$currentHistory.set({ loading: false, hasMore: true });
    await frames(2);
    expect(f.callsOf('loadOlder').length).toBe(0);
    await press(l, 'Home', () => f.callsOf('loadOlder').length > 0);
    expect(f.callsOf('loadOlder').length, 'older history asked for at the top').toBeGreaterThan(0);
    await waitFor(() => held.length === 120 && !f.stores.$currentHistory.get().loading, 'older page');
    await frames(8);
    // The message that was first stays where the reader saw it, at the top of the view.
    expect(l.inside('h60'), 'the first message loaded before stays in view').toBe(true);
    const top = l.row('h60')!.getBoundingClientRect().top - l.el.getBoundingClientRect().top;
    expect(Math.abs(top)).toBeLessThan(8);
    // And Home again reaches the new first message.
    await press(l, 'Home', () => l.inside('h0'));
    expect(l.inside('h0'), 'Home shows the new first message').toBe(true);
  });

  it('leaves Home and End to a text field in a row', async () => {
    const l = await mount([
      ...manyMessages(60),
      live('form', { text: 'Déjanos tus datos', interactive: { kind: 'contact_info_request' } }),
    ]);
    const form = await waitFor(() => l.row('form')?.querySelector('charla-contact-form'), 'the form');
    const field = await waitFor(
      () => form.shadowRoot?.querySelector<HTMLInputElement>('input[name=name]'),
      'its field',
    );
    field.focus();
    await userEvent.keyboard('Ana');
    await userEvent.keyboard('{Home}');
    await frames(4);
    expect(field.selectionStart, 'Home moved the caret to the start of the field').toBe(0);
    expect(form.shadowRoot!.activeElement).toBe(field);
    expect(l.gap(), 'the list stayed at the end').toBeLessThanOrEqual(12);
  });
});
