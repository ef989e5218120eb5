/**
 * A stand-in socket.io service on loopback, for tests of the real widget library against answers
 * the service itself never gives: each test scripts `io`; its widgets start their session with
 * `standInSession` (user u1, bot room 'bot-room').
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { SOCKET_PATH } from '../../../types/routes.ts';
import type { WidgetInstance } from '../../../src/widget/instance.ts';
import { serviceWidget } from './widgets.ts';

export interface StandIn {
  io: Server;
  /** Its address, the widgets' baseUrl. */
  base: string;
  /** A widget of user u1 on it (the real library), destroyed by close(). */
  widget(): WidgetInstance;
  close(): Promise<void>;
}

export async function startStandIn(): Promise<StandIn> {
  const http = createServer();
  const io = new Server(http, { path: SOCKET_PATH });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const made: WidgetInstance[] = [];
  return {
    io,
    base,
    widget: () =>
      serviceWidget(made, {
        apiKey: 'key-0123456789abcdef',
        baseUrl: base,
        userId: 'u1',
        fetch: standInSession,
      }),
    async close() {
      for (const w of made) w.destroy();
      await io.close();
    },
  };
}

/** The session the stand-in's widgets are given (the network, not our code). */
const standInSession = (async (input: RequestInfo | URL) => {
  if (new URL(String(input)).pathname !== '/v1/widget/session') return new Response(null, { status: 404 });
  return Response.json({
    token: 'tok-1',
    expiresAt: '2099-01-01T00:00:00Z',
    user: { id: 'u1', names: null },
    widget: { id: 'w1', properties: {}, theme: {}, credentials: {}, config: {} },
    bot: { id: 'b1' },
    botRoomId: 'bot-room',
    company: { id: 'c', name: 'C' },
  });
}) as typeof fetch;
