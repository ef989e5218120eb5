/**
 * Who wrote a message is said to screen readers before it (a visually hidden "Tú:" or the sender's
 * name): the eye has the side and the colour of the bubble, assistive technology had nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CharlaMessage } from '../../../src/components/message/message.ts';
import { roomName } from '../../../src/components/shared/format.ts';
import { translator } from '../../../src/i18n/index.ts';
import type { Message } from '../../../types/index.ts';
import { msg, room } from './fixture.ts';
import { mountRow } from './message-row.ts';

/** The room's name as the list hands it to its rows (the header's). */
const roomLabel = roomName(room({ id: 'r1', name: 'Panadería La Espiga' }), 'me', translator('es'));

async function prefixOf(message: Message, props: Partial<CharlaMessage> = {}): Promise<string[]> {
  const { el } = await mountRow(message, { roomLabel, ...props });
  const row = el.querySelector('[part~=message]')!;
  // The row's text as read in order: who wrote it (the hidden prefix or the shown name) comes first, before the bubble.
  expect(row.firstElementChild!.matches('.visually-hidden, .sender')).toBe(true);
  return [...row.querySelectorAll('.visually-hidden, .sender')].map((e) => e.textContent!);
}

afterEach(() => document.body.replaceChildren());

describe('<charla-message> sender for assistive technology', () => {
  it('says "Tú:" before the user’s own message ("You:" in English)', async () => {
    const own = msg({ text: 'Hola', senderId: 'me', by: 'user' });
    expect(await prefixOf(own, { own: true })).toEqual(['Tú: ']);
    document.body.replaceChildren();
    expect(await prefixOf(own, { own: true, language: 'en' })).toEqual(['You: ']);
  });

  it('says the sender’s name before someone else’s message, without directional controls', async () => {
    expect(await prefixOf(msg({ text: 'Hola', senderNames: '\u202ECharla' }))).toEqual(['Charla: ']);
  });

  it('names a message without a sender’s name (a bot’s over HTTP) after the room, as its header does', async () => {
    expect(await prefixOf(msg({ text: 'Tu pedido está listo' }))).toEqual(['Panadería La Espiga: ']);
  });

  it('says the name once where it shows (group rooms): no hidden copy beside the visible one', async () => {
    expect(await prefixOf(msg({ text: 'Hola', senderNames: 'Ana' }), { showSender: true })).toEqual(['Ana']);
  });
});
