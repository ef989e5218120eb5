/**
 * Where keyboard focus goes after an action inside the widget replaces or disables the control
 * that held it (WCAG 2.4.3): never left on <body>, and never taken from the host page.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
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
  room,
  waitFor,
} from './helpers.ts';

afterEach(() => document.body.replaceChildren());
beforeEach(() => page.viewport(1280, 800));

/** Waits for focus to settle on `what`; the message says where it is instead. */
async function focusLandsOn(check: (el: Element | null) => boolean, what: string): Promise<void> {
  try {
    await waitFor(() => check(deepActive()), what, 2000);
  } catch {
    const el = deepActive();
    throw new Error(`focus should be on ${what}, is on ${el?.tagName.toLowerCase()}.${el?.className}`);
  }
}
const isComposerField = (el: Element | null) =>
  el?.tagName === 'TEXTAREA' && (el.getRootNode() as ShadowRoot).host?.localName === 'charla-composer';

/** A widget whose sends append the user's POSTBACK to the room, as the core does. */
function answeringContext(fields: Parameters<typeof makeContext>[0] = { ui: { open: true } }) {
  const f = makeContext(fields);
  const answer = (text: string): Promise<Message> => {
    const m = msg({ type: 'POSTBACK', text, payload: {}, senderId: 'me', by: 'user', timestamp: Date.now() });
    f.stores.$currentMessages.set([...f.stores.$currentMessages.get(), m]);
    return Promise.resolve(m);
  };
  f.context.actions.chooseOption = (_m, o) => answer(o.title);
  f.context.actions.chooseQuickReply = (_m, q) => answer(q.title);
  f.context.actions.submitContactInfo = (_m, info) => answer(info.name);
  return f;
}

function groupRooms(f: ReturnType<typeof makeContext>) {
  f.stores.$rooms.set([room({ id: 'r1', name: 'Soporte' }), room({ id: 'r2', name: 'Ventas' })]);
}

describe('focus after in-widget actions', () => {
  it('Enter on a quick-reply chip: the chips go away and focus lands in the composer', async () => {
    const f = answeringContext();
    f.stores.$currentMessages.set([
      msg({ text: '¿Algo más?', QuickReplies: [{ title: 'Sí', payload: {}, contentType: 'text' }] }),
    ]);
    const widget = await mountWidget(f);
    const chip = await waitFor(
      () => listOf(widget).rows()[0]?.querySelector<HTMLElement>('[part=chip]'),
      'chip',
    );
    chip.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(
      () => !chip.isConnected || !listOf(widget).rows()[0]?.querySelector('[part=chip]'),
      'chips gone',
    );
    await focusLandsOn(isComposerField, 'the composer text field');
  });

  it('Enter on an option button: focus lands in the composer', async () => {
    const f = answeringContext();
    f.stores.$currentMessages.set([
      msg({ text: 'Elige', options: [{ type: 'postback', title: 'Planes', payload: {}, order: 0 }] }),
    ]);
    const widget = await mountWidget(f);
    const option = await waitFor(
      () => listOf(widget).rows()[0]?.querySelector<HTMLElement>('button[part=option]'),
      'option',
    );
    option.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => f.stores.$currentMessages.get().length === 2, 'the answer sent');
    await focusLandsOn(isComposerField, 'the composer text field');
  });

  /** A contact_info_request in the chat: its name field gets `keys` from the keyboard. */
  async function typeInContactForm(f: ReturnType<typeof makeContext>, keys: string) {
    f.stores.$currentMessages.set([
      msg({ text: 'Tus datos', interactive: { kind: 'contact_info_request' } }),
    ]);
    const widget = await mountWidget(f);
    const form = await waitFor(() => listOf(widget).rows()[0]?.querySelector('charla-contact-form'), 'form');
    const name = await waitFor(
      () => form.shadowRoot?.querySelector<HTMLInputElement>('input[name=name]'),
      'field',
    );
    name.focus();
    await userEvent.keyboard(keys);
    return form;
  }

  it('submitting the contact form: focus lands in the composer once it is sent', async () => {
    const f = answeringContext();
    const form = await typeInContactForm(f, 'Ana{Enter}');
    await waitFor(() => form.shadowRoot?.querySelector('.done') ?? !form.isConnected, 'sent');
    await focusLandsOn(isComposerField, 'the composer text field');
  });

  it('a failed contact form keeps focus in the form', async () => {
    const f = makeContext({ ui: { open: true } });
    let fail: (e: Error) => void = () => undefined;
    f.context.actions.submitContactInfo = () => new Promise<Message>((_, reject) => (fail = reject));
    const form = await typeInContactForm(f, 'Ana{Enter}');
    await nextFrame();
    fail(new Error('offline'));
    await waitFor(() => form.shadowRoot?.querySelector('[role=alert]'), 'error shown');
    await focusLandsOn((el) => (el?.getRootNode() as ShadowRoot).host === form, 'a control of the form');
  });

  it('Enter on a conversation in the home menu: the chat opens with focus in the composer', async () => {
    const f = makeContext({ ui: { open: true, view: 'home' }, config: { properties: { type: 'group' } } });
    groupRooms(f);
    const widget = await mountWidget(f);
    const rooms = await waitFor(
      () => deep(widget, 'charla-home-menu')?.shadowRoot?.querySelectorAll<HTMLElement>('[part=room]'),
      'rooms',
    );
    rooms[1]!.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => deep(widget, 'charla-chat'), 'chat');
    expect(f.stores.$currentRoomId.get()).toBe('r2');
    await focusLandsOn(isComposerField, 'the composer text field');
  });

  it('Back in a room: the home menu opens with focus on the room just left', async () => {
    const f = makeContext({ ui: { open: true }, config: { properties: { type: 'group' } } });
    groupRooms(f);
    f.stores.$currentRoomId.set('r2');
    const widget = await mountWidget(f);
    const back = deep(widget, 'charla-chat', '[part=back-button]') as HTMLElement;
    back.focus();
    await userEvent.keyboard('{Enter}');
    const home = await waitFor(() => deep(widget, 'charla-home-menu'), 'home menu');
    await focusLandsOn(
      (el) => el === home.shadowRoot!.querySelectorAll('[part=room]')[1],
      'the entry of the room just left (Ventas)',
    );
    expect(deepActive()!.textContent).toContain('Ventas');
  });

  it('Back in a room without a current room in the list: focus on the first entry', async () => {
    const f = makeContext({ ui: { open: true }, config: { properties: { type: 'group' } } });
    groupRooms(f);
    f.stores.$currentRoomId.set('gone');
    const widget = await mountWidget(f);
    (deep(widget, 'charla-chat', '[part=back-button]') as HTMLElement).focus();
    await userEvent.keyboard('{Enter}');
    const home = await waitFor(() => deep(widget, 'charla-home-menu'), 'home menu');
    await focusLandsOn((el) => el === home.shadowRoot!.querySelector('[part=room]'), 'the first entry');
  });

  it('Add people: the room contacts open with focus on their heading; Back returns to the composer', async () => {
    const f = makeContext({ ui: { open: true }, config: { properties: { type: 'group' } } });
    f.stores.$roomContacts.set([{ id: 'u1', names: 'Ana' }]);
    const widget = await mountWidget(f);
    (deep(widget, 'charla-chat', '[part=add-button]') as HTMLElement).focus();
    await userEvent.keyboard('{Enter}');
    const view = await waitFor(() => deep(widget, 'charla-room-contacts'), 'room contacts');
    await focusLandsOn((el) => el === view.shadowRoot!.querySelector('h2'), 'the room contacts heading');
    await userEvent.tab({ shift: true });
    expect(deepActive()?.getAttribute('part')).toBe('back-button');
    await userEvent.keyboard('{Enter}');
    await focusLandsOn(isComposerField, 'the composer text field');
  });

  it('Retry on the could-not-connect panel: the composer once connected, the retry button when it fails again', async () => {
    const f = makeContext({ ui: { open: true } });
    const config = f.stores.$config.get();
    f.stores.$config.set(null);
    f.stores.$connection.set('error');
    f.stores.$lastError.set({ message: 'x', key: 'NETWORK_ERROR', transient: true });
    f.context.actions.reconnect = () => f.stores.$connection.set('connecting');
    const widget = await mountWidget(f);
    const retry = () => widget.shadowRoot!.querySelector<HTMLElement>('[part=unavailable] .pill-button');
    (await waitFor(retry, 'retry button')).focus();
    await userEvent.keyboard('{Enter}');
    // It fails again: the panel says so and focus is on its retry button.
    await waitFor(() => !retry(), 'the panel replaced while connecting');
    f.stores.$connection.set('error');
    await focusLandsOn((el) => el !== null && el === retry(), 'the retry button');
    // Then it connects.
    await userEvent.keyboard('{Enter}');
    await waitFor(() => !retry(), 'the panel replaced while connecting');
    f.stores.$config.set(config);
    f.stores.$lastError.set(null);
    f.stores.$connection.set('connected');
    await nextFrame();
    await focusLandsOn(isComposerField, 'the composer text field');
  });

  it('a retry that fails without a retry button left: focus on the alert', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$config.set(null);
    f.stores.$connection.set('error');
    f.stores.$lastError.set({ message: 'x', key: 'NETWORK_ERROR', transient: true });
    f.context.actions.reconnect = () => f.stores.$connection.set('connecting');
    const widget = await mountWidget(f);
    (
      await waitFor(
        () => widget.shadowRoot!.querySelector<HTMLElement>('[part=unavailable] .pill-button'),
        'retry',
      )
    ).focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => !widget.shadowRoot!.querySelector('[part=unavailable]'), 'connecting');
    f.stores.$lastError.set({ message: 'x', key: 'ORIGIN_NOT_ALLOWED', transient: false });
    f.stores.$connection.set('error');
    await focusLandsOn((el) => el?.getAttribute('part') === 'unavailable', 'the alert');
  });
});

describe('focus after a control goes away under it', () => {
  it('Retry on a failed message: the message is sent again and focus lands in the composer', async () => {
    const f = makeContext({ ui: { open: true } });
    const failed = msg({ text: 'No salió', senderId: 'me', by: 'user', status: 'FAILED' });
    f.stores.$currentMessages.set([failed]);
    f.context.actions.retry = () => {
      const again = { ...failed, status: 'CREATED' } as Message;
      f.stores.$currentMessages.set([again]);
      return Promise.resolve(again);
    };
    const widget = await mountWidget(f);
    (await waitFor(() => listOf(widget).rows()[0]?.querySelector<HTMLElement>('.retry'), 'retry')).focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => !listOf(widget).rows()[0]?.querySelector('.retry'), 'retry gone');
    await focusLandsOn(isComposerField, 'the composer text field');
  });

  it('dismissing the chat error: focus lands in the composer', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$lastError.set({ message: 'No se pudo conectar' });
    const widget = await mountWidget(f);
    (deep(widget, 'charla-chat', '.error button') as HTMLElement).focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => !deep(widget, 'charla-chat', '.error'), 'error gone');
    await focusLandsOn(isComposerField, 'the composer text field');
  });

  for (const how of ['clicked', 'Enter on it'] as const) {
    it(`the send button (${how}): the text goes, focus lands in the text field and typing goes on there`, async () => {
      const f = makeContext({ ui: { open: true } });
      const sent: string[] = [];
      f.context.actions.sendText = (text: string) => {
        sent.push(text);
        return Promise.resolve(msg({ text, senderId: 'me', by: 'user' }));
      };
      const widget = await mountWidget(f);
      const field = deep(widget, 'charla-chat', 'charla-composer', 'textarea') as HTMLTextAreaElement;
      const send = deep(widget, 'charla-chat', 'charla-composer', '[part=send-button]') as HTMLButtonElement;
      await userEvent.click(field);
      await userEvent.keyboard('primero');
      if (how === 'clicked') await userEvent.click(send);
      else {
        send.focus();
        await userEvent.keyboard('{Enter}');
      }
      expect(sent).toEqual(['primero']);
      await focusLandsOn(isComposerField, 'the composer text field');
      await userEvent.keyboard('segundo');
      expect(field.value).toBe('segundo');
    });
  }

  it('dismissing a composer notice: focus lands in the text field', async () => {
    const f = makeContext({ ui: { open: true } });
    const widget = await mountWidget(f);
    const composer = deep(widget, 'charla-chat', 'charla-composer') as HTMLElement & {
      sendPickedFile(file: File): void;
      updateComplete: Promise<unknown>;
    };
    composer.sendPickedFile(new File(['x'], 'a.exe', { type: 'application/x-msdownload' }));
    await composer.updateComplete;
    (composer.shadowRoot!.querySelector('[part=notice] button') as HTMLElement).focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => !composer.shadowRoot!.querySelector('[part=notice]'), 'notice gone');
    await focusLandsOn(isComposerField, 'the composer text field');
  });

  it('the "new messages" button: focus stays in the message list', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$currentMessages.set(manyMessages(200));
    const widget = await mountWidget(f);
    const { list, scroller, rows } = listOf(widget);
    await waitFor(() => rows().length > 0, 'rows');
    for (let i = 0; i < 5; i++) {
      scroller!.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true }));
      scroller!.scrollBy(0, -400);
      await nextFrame();
    }
    await nextFrame();
    f.stores.$currentMessages.set([
      ...f.stores.$currentMessages.get(),
      msg({ id: 'new', text: 'Nuevo', timestamp: Date.now() }),
    ]);
    const jump = await waitFor(
      () => list!.shadowRoot!.querySelector<HTMLElement>('[part=new-messages-button]'),
      'new messages button',
    );
    jump.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => !jump.isConnected, 'button gone');
    await focusLandsOn((el) => el === scroller, 'the message list');
  });

  it('adding a room contact: focus comes back to its button once added', async () => {
    const f = makeContext({
      ui: { open: true, view: 'room-contacts' },
      config: { properties: { type: 'group' } },
    });
    f.stores.$roomContacts.set([
      { id: 'u1', names: 'Ana' },
      { id: 'u2', names: 'Luis' },
    ]);
    let done: () => void = () => undefined;
    f.context.actions.addMember = () => new Promise<void>((resolve) => (done = resolve));
    const widget = await mountWidget(f);
    const view = await waitFor(() => deep(widget, 'charla-room-contacts'), 'room contacts');
    const luis = view.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part=contact]')[1]!;
    luis.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => luis.disabled, 'disabled while adding');
    done();
    await waitFor(() => !luis.disabled, 'enabled again');
    await focusLandsOn((el) => el === luis, 'the contact button');
  });
});

describe('focus stays on the host page', () => {
  it('when the page changes the view through the facade', async () => {
    const f = makeContext({ ui: { open: true }, config: { properties: { type: 'group' } } });
    groupRooms(f);
    const widget = await mountWidget(f);
    const outside = document.createElement('button');
    outside.textContent = 'Comprar';
    document.body.append(outside);
    outside.focus();
    f.context.actions.showHomeMenu();
    await waitFor(() => deep(widget, 'charla-home-menu'), 'home menu');
    f.context.actions.selectRoom('r2');
    await waitFor(() => deep(widget, 'charla-chat'), 'chat');
    f.context.actions.showRoomContacts();
    await waitFor(() => deep(widget, 'charla-room-contacts'), 'room contacts');
    for (let i = 0; i < 5; i++) await nextFrame();
    expect(document.activeElement).toBe(outside);
  });

  it('when the page opens the widget before its first render (a queued open() of the script tag)', async () => {
    const outside = document.createElement('input');
    document.body.append(outside);
    outside.focus();
    // Open already when the element first renders: there is no launcher yet that could have had focus.
    const widget = await mountWidget(makeContext({ ui: { open: true } }));
    await waitFor(() => deep(widget, 'charla-chat', 'charla-composer', 'textarea'), 'composer');
    for (let i = 0; i < 5; i++) await nextFrame();
    expect(document.activeElement).toBe(outside);
  });

  it('when the connection comes back after a failure', async () => {
    const f = makeContext({ ui: { open: true } });
    const config = f.stores.$config.get();
    f.stores.$config.set(null);
    f.stores.$connection.set('error');
    f.stores.$lastError.set({ message: 'x', key: 'NETWORK_ERROR', transient: true });
    const widget = await mountWidget(f);
    const outside = document.createElement('input');
    document.body.append(outside);
    outside.focus();
    f.stores.$connection.set('connecting');
    f.stores.$config.set(config);
    f.stores.$connection.set('connected');
    await waitFor(() => deep(widget, 'charla-chat'), 'chat');
    for (let i = 0; i < 5; i++) await nextFrame();
    expect(document.activeElement).toBe(outside);
  });
});
