import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath, type Message } from '../../types/index.ts';
import { BASIC, collect, startLive, waitFor, type ClientSocket, type LiveHarness } from './helpers/live.ts';

let h: LiveHarness;
let apiKey: string;
let botId: string;

beforeAll(async () => {
  h = await startLive({ scheduler: true, schedulerIntervalMs: 100 });
  ({ apiKey, botId } = await h.createWidget());
});
afterAll(async () => {
  await h?.close();
});

async function connectedUser(): Promise<{
  userId: string;
  socket: ClientSocket;
  got: Message[];
  roomId: string;
}> {
  const userId = `user-${randomUUID()}`;
  const s = await h.session(apiKey, userId);
  const socket = await h.connect(s.token);
  return { userId, socket, got: collect(socket), roomId: s.botRoomId };
}

const post = (path: string, body: unknown) =>
  fetch(h.baseUrl + path, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('server-side operations reach a connected widget live', () => {
  it('delivers a bot message with options as buttons', async () => {
    const { userId, got, roomId } = await connectedUser();
    const res = await post(routePath(ROUTES.botMessages, { botId }), {
      type: 'text',
      userId,
      text: '¿Cómo te ayudo?',
      buttons: { title: 'Menú', options: [{ title: 'Ventas', payload: 'sales' }, { title: 'Soporte' }] },
    });
    expect(res.status).toBe(200);
    const { messageId } = (await res.json()) as { success: boolean; messageId: string };
    await waitFor(() => got.some((m) => m.id === messageId), 3000, 'bot message');
    const m = got.find((x) => x.id === messageId) as Message;
    expect(m).toMatchObject({
      roomId,
      by: 'bot',
      senderId: botId,
      type: 'TEXT',
      status: 'DELIVERED_CHANNEL',
    });
    expect(m.options?.map((o) => o.title)).toEqual(['Ventas', 'Soporte']);
    expect(m.interactive?.kind).toBe('options');
  });

  it('delivers a bot message from another bot, in a room made while the user is connected', async () => {
    const { userId, socket, got } = await connectedUser();
    const other = await h.createWidget();
    const rooms: string[] = [];
    socket.on('room:updated', (room) => rooms.push(room.id));
    const res = await post(routePath(ROUTES.botMessages, { botId: other.botId }), {
      type: 'contact_info_request',
      userId,
      text: 'Tus datos',
    });
    expect(res.status).toBe(200);
    await waitFor(
      () => got.some((m) => m.interactive?.kind === 'contact_info_request'),
      3000,
      'contact info request',
    );
    const m = got.find((x) => x.interactive?.kind === 'contact_info_request') as Message;
    expect(m.senderId).toBe(other.botId);
    expect(rooms).toContain(m.roomId);
  });

  it('delivers a room post, idempotently', async () => {
    const { got, roomId } = await connectedUser();
    const id = randomUUID();
    const body = {
      senderId: 'crm-system',
      messages: [{ id, type: 'TEXT', text: 'Tu caso fue actualizado' }],
    };
    const res = await post(routePath(ROUTES.roomMessage, { roomId }), body);
    expect(res.status).toBe(200);
    await waitFor(() => got.some((m) => m.id === id), 3000, 'room post');
    const again = await post(routePath(ROUTES.roomMessage, { roomId }), body);
    expect(again.status).toBe(200);
    await new Promise((r) => setTimeout(r, 150));
    expect(got.filter((m) => m.id === id)).toHaveLength(1);
  });

  it('delivers a campaign to each connected recipient', async () => {
    const a = await connectedUser();
    const b = await connectedUser();
    const res = await post(ROUTES.createCampaign, {
      name: 'Promo',
      elementName: 'promo_1',
      botId,
      recipients: [a.userId, b.userId],
      message: { type: 'text', text: '¡Oferta de hoy!' },
    });
    expect(res.status).toBe(200);
    for (const u of [a, b]) {
      await waitFor(
        () => u.got.some((m) => m.type === 'TEXT' && m.text === '¡Oferta de hoy!'),
        10_000,
        'campaign message',
      );
    }
  });
});
