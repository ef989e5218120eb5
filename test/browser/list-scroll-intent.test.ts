/**
 * A single scroll made one or two frames after a message arrives, while the list follows the
 * newest row: the layout's passes for that arrival still hold the bottom, and used to put the
 * view back before any scroll event reported the move. The user's intent (wheel, keys, touch,
 * the scrollbar) comes before the scroll and lets the pin go. A control taking focus does not:
 * keyboard journeys through the messages keep the newest one in reach (keyboard-media-tour).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import type { Message } from '../../types/index.ts';
import { listOf, makeContext, manyMessages, mountWidget, msg, nextFrame, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

const nextTask = () => new Promise<void>((r) => setTimeout(r, 0));

async function frames(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await nextFrame();
}

function live(id: string, fields: Record<string, unknown> = {}): Message {
  const text = `Respuesta ${id}, con texto suficiente para dos líneas en la burbuja del panel`;
  return msg({ id, text, timestamp: Date.now(), senderId: 'bot1', by: 'bot', ...fields });
}

async function mountFollowing(initial = manyMessages(80)) {
  await page.viewport(1280, 800);
  const f = makeContext();
  f.stores.$currentMessages.set(initial);
  const widget = await mountWidget(f);
  const { list, rows, scroller } = listOf(widget);
  const el = scroller!;
  const gap = () => el.scrollHeight - el.clientHeight - el.scrollTop;
  await waitFor(() => rows().length > 3 && gap() <= 12, 'the newest row at the bottom');
  await frames(8);
  const append = (m: Message) => f.stores.$currentMessages.set([...f.stores.$currentMessages.get(), m]);
  const button = () => list!.shadowRoot!.querySelector('[part=new-messages-button]');
  return { el, rows, gap, append, button };
}

/** What the browser sends before it scrolls the list up, for each kind of input. */
const intents: Record<string, (el: HTMLElement) => void> = {
  wheel: (el) => el.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true, composed: true })),
  key: (el) =>
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'PageUp', bubbles: true, composed: true })),
  touch: (el) => {
    const touch = (clientY: number) => [new Touch({ identifier: 1, target: el, clientY })];
    el.dispatchEvent(new TouchEvent('touchstart', { touches: touch(300), bubbles: true, composed: true }));
    el.dispatchEvent(new TouchEvent('touchmove', { touches: touch(340), bubbles: true, composed: true }));
  },
};

describe('<charla-message-list> and a single scroll right after an arrival', () => {
  for (const [kind, intent] of Object.entries(intents)) {
    for (const delay of [1, 2]) {
      it(`keeps a ${kind} scroll up made ${delay} frame(s) after a message arrives`, async () => {
        const l = await mountFollowing();
        l.append(live(`n-${kind}-${delay}`));
        await frames(delay);
        intent(l.el);
        // The browser scrolls once the event has been handled.
        await nextTask();
        l.el.scrollBy(0, -400);
        await frames(8);
        expect(l.gap(), 'the view stays where the user scrolled').toBeGreaterThan(350);
        // And the list no longer follows: the next message waits behind the button, the rows in
        // view stay where they are.
        const view = l.el.getBoundingClientRect().top;
        const reading = l.rows().find((r) => r.getBoundingClientRect().top >= view)!;
        const before = reading.getBoundingClientRect().top;
        l.append(live(`after-${kind}-${delay}`));
        await waitFor(l.button, 'new messages button');
        await frames(4);
        expect(Math.abs(reading.getBoundingClientRect().top - before)).toBeLessThan(2);
      });
    }
  }

  it('counts a message that arrives with the scroll up behind the button', async () => {
    const l = await mountFollowing();
    intents['wheel']!(l.el);
    l.append(live('with-the-scroll'));
    await nextTask();
    l.el.scrollBy(0, -400);
    await frames(8);
    expect(l.gap(), 'the view stays where the user scrolled').toBeGreaterThan(350);
    const jump = await waitFor(l.button, 'new messages button');
    expect(jump.textContent).toContain('(1)');
    // One line: its words do not wrap in the half of the list right of its centre.
    const line = parseFloat(getComputedStyle(jump).lineHeight) || 18;
    expect(jump.getBoundingClientRect().height).toBeLessThan(line * 1.5 + 12 + 2);
  });

  it('keeps following after a wheel or key down at the end', async () => {
    const l = await mountFollowing();
    l.el.dispatchEvent(new WheelEvent('wheel', { deltaY: 400, bubbles: true, composed: true }));
    l.el.dispatchEvent(new KeyboardEvent('keydown', { key: 'PageDown', bubbles: true, composed: true }));
    await nextTask();
    l.append(live('still-followed'));
    await waitFor(() => l.rows().some((r) => r.getAttribute('data-id') === 'still-followed'), 'new row');
    await frames(8);
    expect(l.gap()).toBeLessThanOrEqual(12);
    expect(l.button()).toBeNull();
  });
});

describe('<charla-message-list> while the user types in a row (the contact form)', () => {
  it('a burst of messages waits behind the button: the row stays, and the focus in its field', async () => {
    const l = await mountFollowing();
    l.append(live('form', { text: 'Déjanos tus datos', interactive: { kind: 'contact_info_request' } }));
    const form = await waitFor(
      () =>
        l
          .rows()
          .find((r) => r.querySelector('charla-contact-form'))
          ?.querySelector('charla-contact-form'),
      'the contact form',
    );
    await frames(4);
    const field = await waitFor(
      () => form.shadowRoot?.querySelector<HTMLInputElement>('input[name=name]'),
      'its field',
    );
    field.focus();
    field.value = 'Ana';
    for (let i = 0; i < 40; i++) l.append(live(`burst-${i}`));
    await frames(10);
    expect(form.isConnected).toBe(true);
    expect(form.shadowRoot!.activeElement).toBe(field);
    const jump = await waitFor(l.button, 'new messages button');
    expect(jump.textContent).toContain('(40)');
  });
});
