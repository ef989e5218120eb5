/**
 * A bot's options, quick replies and call button are answered once: the answer (a POSTBACK whose
 * payload.replyTo is the message's id) is found in the room's messages by the list (answerOf) and
 * handed to the row, so a reload or another tab shows it as well, and a message answered sends
 * nothing more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { within } from '@testing-library/dom';
import { answerOf } from '../../../src/components/message-list/items.ts';
import type { Message } from '../../../types/index.ts';
import { msg, settle } from './fixture.ts';
import { mountRow } from './message-row.ts';

const options = [
  { type: 'postback', title: 'Sí, pagar', payload: { p: 'pay' }, order: 0 },
  { type: 'postback', title: 'No', description: 'Cancelar el pedido', payload: { p: 'cancel' }, order: 1 },
];

/** The visitor's POSTBACK answering `m` with the option titled `title`. */
const answerTo = (m: Message, title: string) =>
  msg({ by: 'user', senderId: 'me', type: 'POSTBACK', text: title, payload: { replyTo: String(m.id) } });

/** The row of `message` as the list renders it in `room`: handed the answer found there. */
async function show(message: Message, room: Message[] = [message]) {
  const row = await mountRow(message, { latest: true, answer: answerOf(room, room.indexOf(message)) });
  const q = within(row.el);
  const button = (name: string | RegExp) => q.getByRole('button', { name }) as HTMLButtonElement;
  /** The room holds `messages` now: the list renders the row again. */
  const roomHolds = async (messages: Message[]) => {
    row.el.answer = answerOf(messages, messages.indexOf(message));
    await settle(row.el);
  };
  return { q, button, roomHolds, ...row };
}

afterEach(() => document.body.replaceChildren());

describe('<charla-message> options, once answered', () => {
  it('show the chosen option pressed with a check mark, the others not pressed, and send no more', async () => {
    const m = msg({ text: '¿Confirmas el pedido de 40 €?', options });
    const { el, button, roomHolds, callsOf } = await show(m);
    expect(button('Sí, pagar').hasAttribute('aria-pressed')).toBe(false);
    button('Sí, pagar').click();
    expect(callsOf('chooseOption')).toHaveLength(1);
    // The answer reaches the room (the core puts the POSTBACK in the store as it sends it).
    await roomHolds([m, answerTo(m, 'Sí, pagar')]);
    const pay = button('Sí, pagar');
    const no = button(/^No/);
    expect(pay.getAttribute('aria-pressed')).toBe('true');
    expect(pay.querySelector('svg')).not.toBeNull();
    expect(no.getAttribute('aria-pressed')).toBe('false');
    expect(no.querySelector('svg')).toBeNull();
    for (const b of [pay, no]) expect(b.getAttribute('aria-disabled')).toBe('true');
    // The one not chosen leaves the Tab order; the chosen one stays in it.
    expect([pay.tabIndex, no.tabIndex]).toEqual([0, -1]);
    // Still focusable (an answer arriving drops no focus), and inert.
    no.focus();
    no.click();
    pay.click();
    expect(callsOf('chooseOption')).toHaveLength(1);
    expect((el.getRootNode() as ShadowRoot).activeElement).toBe(no);
  });

  it('show the answer of a room already answered (a reload, another tab, a row made anew)', async () => {
    const m = msg({ text: '¿Confirmas?', options });
    const { button, callsOf } = await show(m, [m, msg({ text: 'entre medias' }), answerTo(m, 'No')]);
    expect(button(/^No/).getAttribute('aria-pressed')).toBe('true');
    expect(button('Sí, pagar').getAttribute('aria-pressed')).toBe('false');
    button('Sí, pagar').click();
    expect(callsOf('chooseOption')).toHaveLength(0);
  });

  it('that share a title: only the one whose payload the answer carries shows chosen, whatever its keys’ order', async () => {
    const twins = [
      { type: 'postback', title: 'Sí', payload: { step: 'transfer', p: 'confirm' }, order: 0 },
      {
        type: 'postback',
        title: 'Sí',
        description: 'Cancelar',
        payload: { step: 'transfer', p: 'cancel' },
        order: 1,
      },
    ];
    const m = msg({ text: '¿Confirmas la transferencia?', options: twins });
    // The stored answer's keys come back in another order (the service's JSON storage).
    const answer = msg({
      by: 'user',
      senderId: 'me',
      type: 'POSTBACK',
      text: 'Sí',
      payload: { replyTo: String(m.id), p: 'cancel', step: 'transfer' },
    });
    const { q } = await show(m, [m, answer]);
    const [first, second] = q.getAllByRole('button') as HTMLButtonElement[];
    expect(first?.getAttribute('aria-pressed')).toBe('false');
    expect(second?.getAttribute('aria-pressed')).toBe('true');
    expect(first?.querySelector('svg')).toBeNull();
    expect(second?.querySelector('svg')).not.toBeNull();
  });

  it('send once when clicked twice before the row renders again', async () => {
    const m = msg({ text: '¿Confirmas?', options });
    const { button, callsOf } = await show(m);
    button('Sí, pagar').click();
    button(/^No/).click();
    expect(callsOf('chooseOption')).toHaveLength(1);
  });

  it('may be chosen again when the choice could not be sent', async () => {
    const m = msg({ text: '¿Confirmas?', options });
    const { button, context, callsOf } = await show(m);
    const choose = context.actions.chooseOption;
    context.actions.chooseOption = (message, option) => {
      void choose(message, option);
      return Promise.reject(new Error('offline'));
    };
    button('Sí, pagar').click();
    await new Promise((resolve) => setTimeout(resolve));
    button('Sí, pagar').click();
    expect(callsOf('chooseOption')).toHaveLength(2);
  });

  it('ignore answers to other messages and leave link options alone', async () => {
    const m = msg({
      text: '¿Confirmas?',
      options: [
        ...options,
        { type: 'url', title: 'Condiciones', url: 'https://example.com/t', payload: {}, order: 2 },
      ],
    });
    const other = msg({ text: 'Otra pregunta', options });
    const { q, button } = await show(m, [m, other, answerTo(other, 'Sí, pagar')]);
    expect(button('Sí, pagar').hasAttribute('aria-pressed')).toBe(false);
    expect(button('Sí, pagar').hasAttribute('aria-disabled')).toBe(false);
    expect(q.getByRole('link', { name: 'Condiciones' }).getAttribute('href')).toBe('https://example.com/t');
  });

  it('the call button: pressed once the call was asked for', async () => {
    const m = msg({ text: 'Llámanos', interactive: { kind: 'voice_call', displayText: 'Llamar ahora' } });
    const { button, callsOf } = await show(m, [m, answerTo(m, 'Llamar ahora')]);
    expect(button('Llamar ahora').getAttribute('aria-pressed')).toBe('true');
    button('Llamar ahora').click();
    expect(callsOf('chooseOption')).toHaveLength(0);
  });

  it('quick replies: a second chip clicked before the row renders again sends nothing', async () => {
    const replies = [
      { title: 'Sí', payload: {}, contentType: 'text' },
      { title: 'No', payload: {}, contentType: 'text' },
    ];
    const m = msg({ text: '¿Algo más?', QuickReplies: replies });
    const { button, callsOf } = await show(m);
    button('Sí').click();
    button('No').click();
    expect(callsOf('chooseQuickReply')).toHaveLength(1);
  });
});
