/**
 * Audit fixes (focus and forced colours) in Chromium: focus never drops to <body> when a message
 * takes away the focused chip, when a burst of messages would scroll the focused row out of the
 * virtualizer's window, or when the page calls disableInputs(); the panel and the "new messages"
 * button keep an edge the system paints in forced colours.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cdp, page, userEvent } from 'vitest/browser';
import type { Message } from '../../types/index.ts';
import {
  deep,
  deepActive,
  listOf,
  makeContext,
  manyMessages,
  mountWidget,
  msg,
  nextFrame,
  waitFor,
} from './helpers.ts';

afterEach(async () => {
  document.body.replaceChildren();
  await cdp().send('Emulation.setEmulatedMedia', { features: [] });
});
beforeEach(() => page.viewport(1280, 800));

async function frames(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await nextFrame();
}

const live = (id: string, fields: Record<string, unknown> = {}): Message =>
  msg({
    id,
    text: `Ráfaga ${id} texto texto texto texto texto texto texto texto texto texto`,
    timestamp: Date.now(),
    senderId: 'bot1',
    by: 'bot',
    ...fields,
  });

const inWidget = (widget: Element) => {
  const el = deepActive();
  let node: Node | null = el;
  while (node) {
    if (node === widget) return true;
    const root = node.getRootNode();
    node = node.parentNode ?? (root instanceof ShadowRoot ? root.host : null);
  }
  return false;
};

const isComposerField = (el: Element | null) =>
  el?.tagName === 'TEXTAREA' && (el.getRootNode() as ShadowRoot).host?.localName === 'charla-composer';

async function mountChat(messages: Message[]) {
  const f = makeContext({ ui: { open: true } });
  f.stores.$currentMessages.set(messages);
  const widget = await mountWidget(f);
  const l = listOf(widget);
  const append = (...m: Message[]) =>
    f.stores.$currentMessages.set([...f.stores.$currentMessages.get(), ...m]);
  return { f, widget, ...l, append };
}

/** The option button of that title, once a row of the chat shows it. */
const optionOf = (c: { rows: () => Element[] }, title: string) =>
  waitFor(
    () =>
      c
        .rows()
        .flatMap((r) => [...r.querySelectorAll<HTMLElement>('[part=option]')])
        .find((o) => o.textContent?.includes(title)),
    `the option "${title}"`,
  );

describe('focus in a row when messages arrive', () => {
  it('a new message takes the quick-reply chips away: focus goes to the composer, not <body>', async () => {
    const c = await mountChat([
      msg({ id: 'q', text: '¿Algo más?', QuickReplies: [{ title: 'Sí', payload: {}, contentType: 'text' }] }),
    ]);
    const chip = await waitFor(
      () => c.rows()[0]?.querySelector<HTMLElement>('[part=chip]'),
      'the chip on the latest message',
    );
    chip.focus();
    expect(deepActive()).toBe(chip);
    c.append(live('after-chip'));
    await waitFor(() => !chip.isConnected, 'the chips gone');
    await waitFor(() => isComposerField(deepActive()), 'focus in the composer field', 2000).catch(() => {
      const el = deepActive();
      throw new Error(`focus should be in the composer field, is on ${el?.tagName.toLowerCase()}`);
    });
    // The new message is followed: no "new messages" button is left behind.
    await frames(4);
    expect(c.list!.shadowRoot!.querySelector('[part=new-messages-button]')).toBeNull();
  });

  it('a burst of 30 messages while an option of the latest message has focus: the row stays and keeps focus', async () => {
    const c = await mountChat(manyMessages(40));
    const el = c.scroller!;
    await waitFor(
      () => c.rows().length > 3 && el.scrollHeight - el.clientHeight - el.scrollTop <= 12,
      'at the end',
    );
    c.append(
      live('menu', {
        text: 'Elige',
        options: [
          { type: 'postback', title: 'Uno', payload: {}, order: 0 },
          { type: 'postback', title: 'Dos', payload: {}, order: 1 },
        ],
      }),
    );
    const option = await optionOf(c, 'Dos');
    await frames(4);
    option.focus();
    for (let i = 0; i < 30; i++) c.append(live(`burst-${i}`));
    await frames(12);
    expect(option.isConnected).toBe(true);
    expect(deepActive()).toBe(option);
    const jump = await waitFor(
      () => c.list!.shadowRoot!.querySelector<HTMLElement>('[part=new-messages-button]'),
      'the new messages button',
    );
    expect(jump.textContent).toContain('(30)');
  });
});

describe('focus moved to a control above the end, on a screen 225 px tall (1280 × 900 at 400 %)', () => {
  it('the view stays on the focused option when the browser scrolls it into view, through later renders', async () => {
    await page.viewport(320, 225);
    const options = ['Texto', 'Imagen', 'Vídeo', 'Documento', 'Contactos', 'Llamada'].map((title, order) => ({
      type: 'postback',
      title,
      description: `Ver un mensaje de tipo ${title.toLowerCase()}`,
      payload: {},
      order,
    }));
    const c = await mountChat([...manyMessages(6), live('menu', { text: '¿Qué quieres ver?', options })]);
    const first = await optionOf(c, 'Texto');
    await frames(6);
    const inView = () => {
      const o = first.getBoundingClientRect();
      const v = c.scroller!.getBoundingClientRect();
      return o.bottom > v.top && o.top < v.bottom;
    };
    // The option is well above the end of its tall row: the view is on the end, not on it.
    expect(inView()).toBe(false);
    first.focus();
    expect(deepActive()).toBe(first);
    // A later render (a status change of every message) must not take the view back to the end.
    await frames(4);
    c.f.stores.$currentMessages.set(
      c.f.stores.$currentMessages.get().map((m) => ({ ...m, status: 'DELIVERED_USER' }) as Message),
    );
    await frames(12);
    expect(deepActive()).toBe(first);
    expect(inView()).toBe(true);
  });
});

describe('disableInputs() while focus is in the composer', () => {
  for (const which of ['textarea', '[part=attach-button]'] as const) {
    it(`focus on ${which} stays in the widget; enableInputs restores; nothing is sent while disabled`, async () => {
      const c = await mountChat([msg({ id: 'hello', text: 'Hola' })]);
      const composer = deep(c.widget, 'charla-chat', 'charla-composer') as HTMLElement & {
        updateComplete: Promise<unknown>;
      };
      const control = await waitFor(() => composer.shadowRoot!.querySelector<HTMLElement>(which), which);
      const area = composer.shadowRoot!.querySelector('textarea')!;
      area.focus();
      await userEvent.keyboard('Hola');
      control.focus();
      expect(deepActive()).toBe(control);
      c.f.stores.$ui.set({ ...c.f.stores.$ui.get(), inputsDisabled: true });
      await composer.updateComplete;
      await frames(2);
      expect(inWidget(c.widget), `focus on ${deepActive()?.tagName.toLowerCase()}`).toBe(true);
      // The messages stay readable (and scrollable) while nothing can be sent.
      expect(deepActive()).toBe(c.scroller);
      // Nothing typed or sent while disabled.
      await userEvent.keyboard('x{Enter}');
      expect(c.f.calls.filter((call) => call.name === 'sendText')).toEqual([]);
      const send = composer.shadowRoot!.querySelector<HTMLButtonElement>('[part=send-button]')!;
      send.click();
      expect(c.f.calls.filter((call) => call.name === 'sendText')).toEqual([]);
      c.f.stores.$ui.set({ ...c.f.stores.$ui.get(), inputsDisabled: false });
      await composer.updateComplete;
      expect(area.value).toBe('Hola');
      expect(area.disabled || area.readOnly || area.getAttribute('aria-disabled') === 'true').toBe(false);
      area.focus();
      await userEvent.keyboard('{Enter}');
      expect(c.f.calls.filter((call) => call.name === 'sendText').map((call) => call.args[0])).toEqual([
        'Hola',
      ]);
    });
  }
});

describe('forced colours', () => {
  /** The edge the system paints in forced colours: a border or an outline with a width and a style. */
  const edge = (el: Element) => {
    const cs = getComputedStyle(el);
    if (cs.borderTopStyle !== 'none' && parseFloat(cs.borderTopWidth) > 0)
      return `border ${cs.borderTopColor}`;
    if (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) return `outline ${cs.outlineColor}`;
    return null;
  };

  it('the panel and the "new messages" button keep a painted edge, and nothing moves outside forced colours', async () => {
    const c = await mountChat(manyMessages(200));
    const panel = c.widget.shadowRoot!.querySelector<HTMLElement>('.panel')!;
    await waitFor(() => c.rows().length > 0, 'rows');
    for (let i = 0; i < 5; i++) {
      c.scroller!.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true }));
      c.scroller!.scrollBy(0, -400);
      await nextFrame();
    }
    await nextFrame();
    c.append(live('below'));
    const jump = await waitFor(
      () => c.list!.shadowRoot!.querySelector<HTMLElement>('[part=new-messages-button]'),
      'new messages button',
    );
    // Outside forced colours the edge changes no size: the button's padding and border make its 6px.
    const jcs = getComputedStyle(jump);
    expect(parseFloat(jcs.paddingTop) + parseFloat(jcs.borderTopWidth)).toBe(6);
    expect(parseFloat(jcs.paddingLeft) + parseFloat(jcs.borderLeftWidth)).toBe(14);
    const panelBox = panel.getBoundingClientRect();
    const pcs = getComputedStyle(panel);
    expect(parseFloat(pcs.borderTopWidth) + parseFloat(pcs.paddingTop)).toBe(0);

    await cdp().send('Emulation.setEmulatedMedia', {
      features: [{ name: 'forced-colors', value: 'active' }],
    });
    expect(matchMedia('(forced-colors: active)').matches).toBe(true);
    await nextFrame();
    expect(edge(panel)).not.toBeNull();
    expect(edge(jump)).not.toBeNull();
    expect(panel.getBoundingClientRect().width).toBe(panelBox.width);
  });
});
