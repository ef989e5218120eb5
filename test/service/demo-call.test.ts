/**
 * The demo bot's call button (server/flows/demo.json). The widget's call button sends a POSTBACK
 * whose text is the button's label and whose payload is `{ action: 'voice_call', replyTo }`
 * (src/components/messages/interactive.ts renderCall): the bot acknowledges the call, wherever
 * the tour is waiting, instead of taking "Llamar" as the answer to the question pending then.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, MessageOption, QuickReply } from '../../types/index.ts';
import { liveOf } from '../../server/live/index.ts';
import { collect, emitAck, startLive, waitFor, type ClientSocket, type LiveHarness } from './helpers/live.ts';

let h: LiveHarness;
let apiKey: string;

beforeAll(async () => {
  h = await startLive();
  await h.insertBot('demo-bot', 'Charla Demo Bot');
  ({ apiKey } = await h.createWidget({ botId: 'demo-bot' }));
});
afterAll(async () => {
  await h?.close();
});

async function visitor(): Promise<{ socket: ClientSocket; roomId: string; got: Message[] }> {
  const s = await h.session(apiKey, `v-${randomUUID()}`, { userNames: 'Vero' });
  await liveOf(h.app).flows.idle();
  const socket = await h.connect(s.token);
  const got = collect(socket);
  const sync = (await emitAck(socket, 'messages:sync', { after: {} })) as {
    ok: true;
    data: { messages: Message[] };
  };
  got.push(...sync.data.messages);
  return { socket, roomId: s.botRoomId, got };
}

/** A choice as the widget sends it: the title as text, the payload with the message answered. */
async function choose(
  socket: ClientSocket,
  roomId: string,
  message: Message,
  choice: MessageOption | QuickReply,
): Promise<void> {
  const ack = await emitAck(socket, 'message:send', {
    id: randomUUID(),
    roomId,
    type: 'POSTBACK',
    text: choice.title,
    payload: { ...choice.payload, replyTo: String(message.id) },
  });
  expect(ack.ok).toBe(true);
}

/** The widget's call button on `call` (its label is the display text). */
const callButton = (call: Message): MessageOption => ({
  type: 'voice_call',
  title: call.interactive?.kind === 'voice_call' ? call.interactive.displayText : '',
  payload: { action: 'voice_call' },
  order: 0,
});

const isMenu = (m: Message) => m.by === 'bot' && m.options?.length === 10;
const isMore = (m: Message) => m.by === 'bot' && (m.QuickReplies?.length ?? 0) === 2;
const isAck = (m: Message) =>
  m.by === 'bot' && m.type === 'TEXT' && m.text.startsWith('Listo, pediste una llamada');

/** Bot messages after index `from`, once the flow has answered. */
async function botAfter(got: Message[], from: number, what: string, until: (m: Message) => boolean) {
  await waitFor(() => got.slice(from).some(until), 5000, what);
  await liveOf(h.app).flows.idle();
  return got.slice(from).filter((m) => m.by === 'bot');
}

/** From the greeting to the tour's call button, with "¿Quieres ver otro…?" pending under it. */
async function toCallButton() {
  const v = await visitor();
  await waitFor(() => v.got.some(isMenu), 5000, 'menu');
  const menu = v.got.find(isMenu)!;
  const from = v.got.length;
  await choose(
    v.socket,
    v.roomId,
    menu,
    menu.options!.find((o) => o.payload['payload'] === 'voice_call')!,
  );
  const shown = await botAfter(v.got, from, 'the call tour and its question', isMore);
  const call = shown.find((m) => m.interactive?.kind === 'voice_call')!;
  expect(call.interactive).toMatchObject({ kind: 'voice_call', displayText: 'Llamar' });
  return { ...v, call, menu };
}

describe('the demo bot’s call button', () => {
  it('acknowledges the call, then asks again whether to see another type (no menu in between)', async () => {
    const { socket, roomId, got, call } = await toCallButton();
    const from = got.length;
    await choose(socket, roomId, call, callButton(call));
    const answer = await botAfter(got, from, 'the answer to the call', isMore);
    expect(answer.map((m) => (m.type === 'TEXT' ? m.text : m.type))).toEqual([
      'Listo, pediste una llamada. Con un bot real, un agente te llamaría ahora; esto es una demostración, así que no sonará ningún teléfono.',
      '¿Quieres ver otro tipo de mensaje?',
    ]);
    expect(answer.some(isMenu)).toBe(false);
  });

  it('acknowledges it too when the menu is what is pending, instead of "No te entendí"', async () => {
    const { socket, roomId, got, call } = await toCallButton();
    // "Sí, otro": the menu comes back and waits; the call button above is pressed only now.
    const more = [...got].reverse().find(isMore)!;
    let from = got.length;
    await choose(socket, roomId, more, more.QuickReplies![0]!);
    await botAfter(got, from, 'the menu again', isMenu);
    from = got.length;
    await choose(socket, roomId, call, callButton(call));
    const answer = await botAfter(got, from, 'the answer to the call', isMore);
    expect(answer.some(isAck)).toBe(true);
    expect(answer.some((m) => m.type === 'TEXT' && m.text.startsWith('No te entendí'))).toBe(false);
  });
});
