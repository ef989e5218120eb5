/**
 * Who wrote a message is said to screen readers before it (a visually hidden "Tú:" or the sender's
 * name): the eye has the side and the colour of the bubble, assistive technology had nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CharlaMessage } from '../../../src/components/message/message.ts';
import { senderLabels, senderName } from '../../../src/components/shared/format.ts';
import { translator } from '../../../src/i18n/index.ts';
import type { Member, Message } from '../../../types/index.ts';
import { msg, room } from './fixture.ts';
import { mountRow } from './message-row.ts';

const member = (referenceId: string, names: string | null) => ({ referenceId, names }) as unknown as Member;

/** A direct room with Ana, named after her, of the company Panadería La Espiga. */
const withAna = room({
  id: 'r1',
  type: 'direct',
  bot: null,
  name: '',
  company: { id: 'c1', name: 'Panadería La Espiga' },
  membersInfo: [member('me', 'Yo'), member('ana', 'Ana'), member('beto', null)],
});

/** The row's hidden prefix or shown name, as the list hands it who wrote the message (senderName). */
async function prefixOf(
  message: Message,
  props: Partial<CharlaMessage> = {},
  inRoom = withAna,
): Promise<string[]> {
  const labels = senderLabels(inRoom, translator(props.language ?? 'es'));
  const { el } = await mountRow(message, { senderLabel: senderName(message, labels), ...props });
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

  it('names a message without a sender’s name after its sender as the room knows them, never after the room', async () => {
    // Ana's own message without senderNames: hers. The room is named after her too, but that is not why.
    expect(await prefixOf(msg({ text: 'Hola', by: 'user', senderId: 'ana' }))).toEqual(['Ana: ']);
    document.body.replaceChildren();
    // The business's post into the room with Ana is not Ana's: it is the company's.
    expect(
      await prefixOf(msg({ text: 'Su pedido ha sido enviado', by: 'charla', senderId: 'ops-7' })),
    ).toEqual(['Panadería La Espiga: ']);
    document.body.replaceChildren();
    // Nor when the post names Ana (or the user) as its sender: a post speaks for the business.
    expect(await prefixOf(msg({ text: 'Soy Ana', by: 'charla', senderId: 'ana' }))).toEqual([
      'Panadería La Espiga: ',
    ]);
    document.body.replaceChildren();
    expect(await prefixOf(msg({ text: 'Soy yo', by: 'charla', senderId: 'me' }))).toEqual([
      'Panadería La Espiga: ',
    ]);
    document.body.replaceChildren();
    // A member without a name, or someone the room does not know: a person, unnamed.
    expect(await prefixOf(msg({ text: 'Hola', by: 'user', senderId: 'beto' }))).toEqual(['Alguien: ']);
    document.body.replaceChildren();
    expect(await prefixOf(msg({ text: 'Hi', by: 'user', senderId: 'x' }), { language: 'en' })).toEqual([
      'Someone: ',
    ]);
  });

  it('names an unnamed client (a person) as someone, and an unnamed bot the room does not know as the business', async () => {
    expect(await prefixOf(msg({ text: 'Hola', by: 'client', senderId: 'c-9' }))).toEqual(['Alguien: ']);
    document.body.replaceChildren();
    expect(await prefixOf(msg({ text: 'Aviso', by: 'bot', senderId: 'bot-x' }))).toEqual([
      'Panadería La Espiga: ',
    ]);
  });

  it('names the bot of a bot room by its name, and the service without a company by a neutral word', async () => {
    const botRoom = room({ company: { id: 'c1', name: '' } });
    expect(
      await prefixOf(msg({ text: 'Tu pedido está listo', senderId: 'bot1', by: 'bot' }), {}, botRoom),
    ).toEqual(['Asistente: ']);
    document.body.replaceChildren();
    expect(await prefixOf(msg({ text: 'Aviso', by: 'company', senderId: 'sys' }), {}, botRoom)).toEqual([
      'Atención al cliente: ',
    ]);
  });

  it('says the name once where it shows (group rooms): no hidden copy beside the visible one', async () => {
    expect(await prefixOf(msg({ text: 'Hola', senderNames: 'Ana' }), { showSender: true })).toEqual(['Ana']);
  });

  it('shows the name it says where names show (group rooms), for a message without senderNames too: a member named by whoever added them, a room post of the business', async () => {
    expect(await prefixOf(msg({ text: 'Hola', by: 'user', senderId: 'ana' }), { showSender: true })).toEqual([
      'Ana',
    ]);
    document.body.replaceChildren();
    expect(
      await prefixOf(msg({ text: 'Pedido enviado', by: 'charla', senderId: 'crm-system' }), {
        showSender: true,
      }),
    ).toEqual(['Panadería La Espiga']);
    document.body.replaceChildren();
    expect(await prefixOf(msg({ text: 'Hola', by: 'user', senderId: 'x' }), { showSender: true })).toEqual([
      'Alguien',
    ]);
  });
});
