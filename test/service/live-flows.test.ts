import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath, type Message, type MessageOption } from '../../types/index.ts';
import { liveOf } from '../../server/live/index.ts';
import { FLOWS_DIR, interpolate, validateFlowFile, type FlowFile } from '../../server/live/flows.ts';
import {
  BASIC,
  collect,
  emitAck,
  startLive,
  waitFor,
  type ClientSocket,
  type LiveHarness,
} from './helpers/live.ts';

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

async function visitor(): Promise<{
  socket: ClientSocket;
  roomId: string;
  got: Message[];
  token: string;
  userId: string;
}> {
  const userId = `v-${randomUUID()}`;
  const s = await h.session(apiKey, userId, { userNames: 'Vero' });
  await liveOf(h.app).flows.idle();
  const socket = await h.connect(s.token);
  const got = collect(socket);
  const sync = (await emitAck(socket, 'messages:sync', { after: {} })) as {
    ok: true;
    data: { messages: Message[] };
  };
  got.push(...sync.data.messages);
  return { socket, roomId: s.botRoomId, got, token: s.token, userId };
}

/** The visitor chooses an option; with `replyTo`, naming the message answered, as the widget does. */
function choose(
  socket: ClientSocket,
  roomId: string,
  option: Pick<MessageOption, 'title' | 'payload'>,
  replyTo?: unknown,
) {
  return emitAck(socket, 'message:send', {
    id: randomUUID(),
    roomId,
    type: 'POSTBACK',
    text: option.title,
    payload: replyTo === undefined ? option.payload : { ...option.payload, replyTo: String(replyTo) },
  });
}

/** The demo menu's "Texto" option. */
const tourText = (menu: Message) =>
  menu.options!.find((o) => (o.payload as { payload: string }).payload === 'text')!;

const lastWithOptions = (got: Message[]) =>
  [...got].reverse().find((m) => (m.options?.length ?? 0) > 0 || (m.QuickReplies?.length ?? 0) > 0);

describe('the demo bot', () => {
  it('ships a valid flow file whose greeting offers a tour of every message type', () => {
    const file = JSON.parse(readFileSync(`${FLOWS_DIR}/demo.json`, 'utf8')) as FlowFile;
    expect(() => validateFlowFile(file)).not.toThrow();
    expect(
      interpolate('Hola {{params.name}} {{answers.x}}{{nope.y}}', { params: { name: 'Ana' }, answers: {} }),
    ).toBe('Hola Ana ');
  });

  it('the README’s example of a flow file is one the service takes', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Bot flows'));
    const json = /```json\n([\s\S]*?)```/.exec(section)?.[1];
    expect(json).toBeDefined();
    const file = JSON.parse(json!) as FlowFile;
    expect(() => validateFlowFile(file, 'README')).not.toThrow();
    expect(Object.keys(file.flows)).toEqual(['greeting', 'menu', 'order_status']);
  });

  it('refuses a flow file whose step sends a type it does not know (it went as a plain text)', () => {
    const file = {
      bots: ['demo-bot'],
      flows: { f: { steps: [{ id: 'a', send: { type: 'txt', text: 'Hola' } }] } },
    } as unknown as FlowFile;
    expect(() => validateFlowFile(file, 'mine.json')).toThrow('mine.json: f/a sends an unknown type "txt"');
    const ok = { ...file, flows: { f: { steps: [{ id: 'a', send: { type: 'text', text: 'Hola' } }] } } };
    expect(() => validateFlowFile(ok as FlowFile, 'mine.json')).not.toThrow();
  });

  it('greets a new visitor with the tour as options', async () => {
    const { got } = await visitor();
    await waitFor(() => got.some((m) => m.options?.length === 10), 5000, 'menu');
    const menu = got.find((m) => m.options?.length === 10);
    expect(menu?.by).toBe('bot');
    expect(menu?.interactive).toMatchObject({ kind: 'options', buttonText: 'Ver tipos' });
    expect(got[0]?.type).toBe('TEXT');
  });

  it('answers every option of the tour with its message type', async () => {
    const { socket, roomId, got } = await visitor();
    await waitFor(() => Boolean(lastWithOptions(got)), 5000, 'menu');
    const menu = lastWithOptions(got) as Message;
    const expectations: Record<string, (m: Message) => boolean> = {
      text: (m) => m.type === 'TEXT' && m.text.includes('<b>'),
      options: (m) => m.type === 'TEXT' && m.options?.length === 3,
      contacts: (m) => m.interactive?.kind === 'contacts',
      voice_call: (m) => m.interactive?.kind === 'voice_call',
      video: (m) => m.type === 'VIDEO',
      contact_info_request: (m) => m.interactive?.kind === 'contact_info_request',
      image: (m) => m.type === 'IMAGE',
      document: (m) => m.type === 'DOCUMENT',
      location: (m) => m.type === 'LOCATION' && m.lat === '19.4326',
      audio: (m) => m.type === 'AUDIO',
    };
    for (const option of menu.options ?? []) {
      const key = (option.payload as { payload: string }).payload;
      const from = got.length;
      const ack = await choose(socket, roomId, option);
      expect(ack.ok).toBe(true);
      const check = expectations[key];
      expect(check, key).toBeDefined();
      await waitFor(() => got.slice(from).some((m) => m.by === 'bot' && check!(m)), 5000, `tour ${key}`);
      const shown = got.slice(from).find((m) => m.by === 'bot' && check!(m)) as Message;
      if ('mediaUrl' in shown) {
        const res = await fetch(shown.mediaUrl);
        expect(res.status, `${key} media`).toBe(200);
        expect(
          Number(res.headers.get('content-length') ?? (await res.arrayBuffer()).byteLength),
        ).toBeGreaterThan(0);
      }
      // Steps that wait get an answer so the tour goes on.
      if (key === 'options') {
        const drinks = got.slice(from).find((m) => m.options?.length === 3) as Message;
        await choose(socket, roomId, drinks.options![1]!);
        await waitFor(
          () => got.some((m) => m.type === 'TEXT' && m.text.startsWith('Elegiste té')),
          5000,
          'answer used',
        );
      }
      if (key === 'contact_info_request') {
        await emitAck(socket, 'message:send', {
          id: randomUUID(),
          roomId,
          type: 'TEXT',
          text: 'vero@example.com',
        });
        await waitFor(
          () => got.some((m) => m.type === 'TEXT' && m.text.includes('vero@example.com') && m.by === 'bot'),
          5000,
          'thanks',
        );
      }
      await waitFor(
        () => got.slice(from).some((m) => (m.QuickReplies?.length ?? 0) === 2),
        5000,
        `more after ${key}`,
      );
      const more = got.slice(from).find((m) => (m.QuickReplies?.length ?? 0) === 2) as Message;
      const yes = more.QuickReplies![0]!;
      const before = got.length;
      await emitAck(socket, 'message:send', {
        id: randomUUID(),
        roomId,
        type: 'POSTBACK',
        text: yes.title,
        payload: yes.payload,
      });
      await waitFor(() => got.slice(before).some((m) => m.options?.length === 10), 5000, 'menu again');
    }
  });

  it('starts a flow with storedParams through setFlow', async () => {
    const { got, token } = await visitor();
    await liveOf(h.app).flows.idle();
    const res = await h.call('POST', routePath(ROUTES.widgetFlow, { flowId: 'order_status' }), {
      token,
      body: { storedParams: { name: 'Vero', orderId: 'A-42' } },
    });
    expect(res.status).toBe(200);
    await waitFor(
      () => got.some((m) => m.type === 'TEXT' && m.text === 'Hola Vero: tu pedido A-42 está en camino.'),
      5000,
      'interpolated',
    );
    const unknown = await h.call('POST', routePath(ROUTES.widgetFlow, { flowId: 'nope' }), {
      token,
      body: {},
    });
    expect(unknown.status).toBe(404);
    // Names every object inherits are no flows of the bot's either.
    for (const flowId of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const inherited = await h.call('POST', routePath(ROUTES.widgetFlow, { flowId }), { token, body: {} });
      expect(inherited.status, flowId).toBe(404);
    }
  });

  it('takes an option naming an inherited member as a flow for no flow: the bot answers as to any text', async () => {
    const { socket, roomId, got } = await visitor();
    await liveOf(h.app).flows.idle();
    const before = got.length;
    const ack = await emitAck(socket, 'message:send', {
      id: randomUUID(),
      roomId,
      type: 'POSTBACK',
      text: 'Menú',
      payload: { flow: 'constructor' },
    });
    expect(ack.ok).toBe(true);
    await liveOf(h.app).flows.idle();
    // The turn did not fail halfway: the bot answered it (its fallback), after the visitor's own choice.
    await waitFor(() => got.slice(before).some((m) => m.senderId === 'demo-bot'), 5000, 'bot answer');
  });

  it('leaves a choice on a message the business sent to the business: no fallback, the menu still waits', async () => {
    const { socket, roomId, got, userId } = await visitor();
    await waitFor(() => got.some((m) => m.options?.length === 10), 5000, 'menu');
    const menu = got.find((m) => m.options?.length === 10) as Message;
    // The business asks its own question over the HTTP API.
    const sent = await fetch(h.baseUrl + routePath(ROUTES.botMessages, { botId: 'demo-bot' }), {
      method: 'POST',
      headers: { authorization: BASIC, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'text',
        userId,
        text: '¿Confirmas la cita?',
        buttons: {
          options: [
            { title: 'Sí', payload: 'yes' },
            { title: 'No', payload: 'no' },
          ],
        },
      }),
    });
    const { messageId } = (await sent.json()) as { messageId: string };
    await waitFor(() => got.some((m) => String(m.id) === messageId), 5000, 'business question');
    const question = got.find((m) => String(m.id) === messageId) as Message;
    // The visitor answers it as the widget does (the payload names the message answered).
    const before = got.length;
    expect((await choose(socket, roomId, question.options![0]!, messageId)).ok).toBe(true);
    await liveOf(h.app).flows.idle();
    await new Promise((r) => setTimeout(r, 300));
    expect(got.slice(before).filter((m) => m.by === 'bot')).toEqual([]);
    const state = await h.app.charla.db.query<{ step_id: string; waiting: boolean; sent: string[] }>(
      'SELECT step_id, waiting, sent FROM flow_states WHERE room_id = $1',
      [roomId],
    );
    expect(state.rows[0]).toMatchObject({ step_id: 'pick', waiting: true });
    expect(state.rows[0]?.sent).toContain(String(menu.id));
    expect(state.rows[0]?.sent).not.toContain(messageId);
    // The menu's own answer still takes the tour on.
    await choose(socket, roomId, tourText(menu), menu.id);
    await waitFor(
      () => got.slice(before).some((m) => m.by === 'bot' && m.type === 'TEXT' && m.text.includes('<b>')),
      5000,
      'tour text',
    );
    socket.disconnect();
  });

  it('still answers a choice on an older menu of its own (after "No te entendí" sent a new one)', async () => {
    const { socket, roomId, got } = await visitor();
    await waitFor(() => got.some((m) => m.options?.length === 10), 5000, 'menu');
    const first = got.find((m) => m.options?.length === 10) as Message;
    await emitAck(socket, 'message:send', { id: randomUUID(), roomId, type: 'TEXT', text: 'hola' });
    await waitFor(() => got.filter((m) => m.options?.length === 10).length === 2, 5000, 'menu again');
    const before = got.length;
    await choose(socket, roomId, tourText(first), first.id);
    await waitFor(
      () => got.slice(before).some((m) => m.by === 'bot' && m.type === 'TEXT' && m.text.includes('<b>')),
      5000,
      'tour text from the older menu',
    );
    socket.disconnect();
  });

  it('a flow started anew (setFlow) keeps the ids of what the earlier flow sent, so its menus stay the flow’s', async () => {
    const { roomId, got, userId } = await visitor();
    await waitFor(() => got.some((m) => m.options?.length === 10), 5000, 'menu');
    const menu = got.find((m) => m.options?.length === 10) as Message;
    liveOf(h.app).flows.start({ roomId, botId: 'demo-bot', userId, flowId: 'menu', params: {} });
    await liveOf(h.app).flows.idle();
    const state = await h.app.charla.db.query<{ sent: string[] }>(
      'SELECT sent FROM flow_states WHERE room_id = $1',
      [roomId],
    );
    expect(state.rows[0]?.sent).toContain(String(menu.id));
  });

  it('keeps the flow state per room and user in storage', async () => {
    const { roomId } = await visitor();
    await liveOf(h.app).flows.idle();
    const r = await h.app.charla.db.query<{ flow_id: string; step_id: string; waiting: boolean }>(
      'SELECT flow_id, step_id, waiting FROM flow_states WHERE room_id = $1',
      [roomId],
    );
    expect(r.rows[0]).toMatchObject({ flow_id: 'menu', step_id: 'pick', waiting: true });
  });

  it('greets a visitor whose room a bot message made first, once, even with two sessions at once', async () => {
    const userId = `v-${randomUUID()}`;
    const sent = await fetch(h.baseUrl + routePath(ROUTES.botMessages, { botId: 'demo-bot' }), {
      method: 'POST',
      headers: { authorization: BASIC, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'text', userId, text: 'Tu pedido está listo' }),
    });
    expect(sent.status).toBe(200);
    const [a] = await Promise.all([h.session(apiKey, userId), h.session(apiKey, userId)]);
    await liveOf(h.app).flows.idle();
    const count = async () =>
      Number(
        (
          await h.app.charla.db.query<{ n: string }>(
            "SELECT count(*) AS n FROM messages WHERE room_id = $1 AND body->>'by' = 'bot' AND jsonb_array_length(COALESCE(body->'options', '[]'::jsonb)) = 10",
            [a.botRoomId],
          )
        ).rows[0]?.n,
      );
    expect(await count()).toBe(1);
    // A later visit is not a new visitor: no second greeting.
    await h.session(apiKey, userId);
    await liveOf(h.app).flows.idle();
    expect(await count()).toBe(1);
  });

  it('greets a visitor whose greeting could not be stored at their next session, once', async () => {
    const db = h.app.charla.db;
    const userId = `v-${randomUUID()}`;
    const greetings = async (roomId: string) =>
      Number(
        (
          await db.query<{ n: string }>(
            "SELECT count(*) AS n FROM messages WHERE room_id = $1 AND body->>'by' = 'bot' AND jsonb_array_length(COALESCE(body->'options', '[]'::jsonb)) = 10",
            [roomId],
          )
        ).rows[0]?.n,
      );
    // The database refuses the bot's messages while the first session is made: its greeting fails.
    await db.query(
      "CREATE FUNCTION refuse_bot_message() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused (test)'; END $$",
    );
    await db.query(
      "CREATE TRIGGER refuse_bot_message BEFORE INSERT ON messages FOR EACH ROW WHEN (NEW.sender_id = 'demo-bot') EXECUTE FUNCTION refuse_bot_message()",
    );
    let first: Awaited<ReturnType<LiveHarness['session']>>;
    try {
      first = await h.session(apiKey, userId);
      await liveOf(h.app).flows.idle();
    } finally {
      await db.query('DROP TRIGGER refuse_bot_message ON messages');
      await db.query('DROP FUNCTION refuse_bot_message()');
    }
    expect(await greetings(first.botRoomId)).toBe(0);
    const claims = await db.query('SELECT 1 FROM flow_states WHERE room_id = $1', [first.botRoomId]);
    expect(claims.rows).toHaveLength(0);

    // The next session greets them; the one after does not again.
    await h.session(apiKey, userId);
    await liveOf(h.app).flows.idle();
    expect(await greetings(first.botRoomId)).toBe(1);
    await h.session(apiKey, userId);
    await liveOf(h.app).flows.idle();
    expect(await greetings(first.botRoomId)).toBe(1);
  });
});

/*
 * The demo bot's call button. The widget's call button sends a POSTBACK whose text is the
 * button's label and whose payload is `{ action: 'voice_call', replyTo }` (src/components/
 * messages/interactive.ts renderCall): the bot acknowledges the call, wherever the tour is
 * waiting, instead of taking "Llamar" as the answer to the question pending then.
 */

/** What the widget's call button on `call` sends (its label is the display text). */
const callButton = (call: Message): Pick<MessageOption, 'title' | 'payload'> => ({
  title: call.interactive?.kind === 'voice_call' ? call.interactive.displayText : '',
  payload: { action: 'voice_call' },
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
    menu.options!.find((o) => o.payload['payload'] === 'voice_call')!,
    menu.id,
  );
  const shown = await botAfter(v.got, from, 'the call tour and its question', isMore);
  const call = shown.find((m) => m.interactive?.kind === 'voice_call')!;
  expect(call.interactive).toMatchObject({ kind: 'voice_call', displayText: 'Llamar' });
  return { ...v, call };
}

describe('the demo bot’s call button', () => {
  it('acknowledges the call, then asks again whether to see another type (no menu in between)', async () => {
    const { socket, roomId, got, call } = await toCallButton();
    const from = got.length;
    await choose(socket, roomId, callButton(call), call.id);
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
    await choose(socket, roomId, more.QuickReplies![0]!, more.id);
    await botAfter(got, from, 'the menu again', isMenu);
    from = got.length;
    await choose(socket, roomId, callButton(call), call.id);
    const answer = await botAfter(got, from, 'the answer to the call', isMore);
    expect(answer.some(isAck)).toBe(true);
    expect(answer.some((m) => m.type === 'TEXT' && m.text.startsWith('No te entendí'))).toBe(false);
  });
});
