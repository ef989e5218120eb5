/**
 * A real service on an ephemeral port with its own storage (in-memory PGlite,
 * or a PostgreSQL schema when DATABASE_URL is set), widgets made
 * through POST /v1/widget/create, sessions, and real socket.io clients.
 */
import { randomUUID } from 'node:crypto';
import { io as connectIo, type Socket } from 'socket.io-client';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildApp } from '../../../server/app.ts';
import { storageFor } from './http.ts';
import type { Config } from '../../../server/config.ts';
import {
  ROUTES,
  SOCKET_PATH,
  type Ack,
  type ClientToServerEvents,
  type ErrorBody,
  type Message,
  type ServerToClientEvents,
} from '../../../types/index.ts';
import type { SessionResult } from '../../../types/schemas/widget-api.ts';

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export const BASIC = `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`;

export interface LiveHarness {
  app: FastifyInstance;
  baseUrl: string;
  /** A widget (and its bot, new or given) through the real creation route; returns its API key. */
  createWidget(options?: {
    botId?: string;
    credentials?: { whiteList?: string[]; blackList?: string[]; identityVerification?: boolean };
    /** `normal` (default) or `group`. */
    type?: 'normal' | 'group';
  }): Promise<{
    apiKey: string;
    /** The key's secret for userHash (shown at creation only). */
    identitySecret: string;
    widgetId: string;
    botId: string;
  }>;
  /** Inserts a bot row directly (e.g. `demo-bot`, which the demo flows serve). */
  insertBot(id: string, name?: string): Promise<void>;
  session(
    apiKey: string,
    userId?: string,
    options?: { origin?: string; userNames?: string },
  ): Promise<SessionResult>;
  /** A connected socket (rejects with the error body when refused). */
  connect(token: string, options?: { origin?: string }): Promise<ClientSocket>;
  /** How many messages the room holds in storage. */
  messageCount(roomId: string): Promise<number>;
  /** fetch against the service with a session token. */
  call(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; origin?: string },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** A live service: on PostgreSQL (a schema of its own) when DATABASE_URL is set, else in-memory PGlite. */
export async function startLive(options: Partial<Config> = {}): Promise<LiveHarness> {
  const storage = await storageFor(options);
  const app = await buildApp({
    storeTemplate: inject('pgliteSchemaTemplate'),
    reuseStores: true,
    scheduler: false,
    ...options,
    databaseUrl: storage.databaseUrl,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  if (!addr || typeof addr !== 'object') throw new Error('no address');
  const baseUrl = `http://127.0.0.1:${addr.port}`;
  const sockets = new Set<ClientSocket>();

  const call: LiveHarness['call'] = (method, path, o = {}) => {
    const headers: Record<string, string> = {};
    if (o.token) headers['authorization'] = `Bearer ${o.token}`;
    if (o.origin) headers['origin'] = o.origin;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    return fetch(baseUrl + path, {
      method,
      headers,
      ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    });
  };

  return {
    app,
    baseUrl,
    async createWidget(o = {}) {
      const res = await fetch(baseUrl + ROUTES.createWidget, {
        method: 'POST',
        headers: { authorization: BASIC, 'content-type': 'application/json' },
        body: JSON.stringify({
          bot: o.botId ? { id: o.botId } : {},
          widget: {
            properties: { type: o.type ?? 'normal' },
            theme: { position: 'br' },
            credentials: o.credentials ?? {},
          },
        }),
      });
      const body = (await res.json()) as {
        data: { ApiKey: { key: string; identitySecret: string; widgetId: string }; Bot: { id: string } };
      };
      if (res.status !== 200) throw new Error(`widget create failed: ${res.status} ${JSON.stringify(body)}`);
      const { key, identitySecret, widgetId } = body.data.ApiKey;
      return { apiKey: key, identitySecret, widgetId, botId: body.data.Bot.id };
    },
    async insertBot(id, name = 'Charla Bot') {
      await app.charla.db.query(
        'INSERT INTO bots (id, company_id, name) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
        [id, app.charla.config.companyId, name],
      );
    },
    async session(apiKey, userId, o = {}) {
      const res = await call('POST', ROUTES.widgetSession, {
        body: { apiKey, ...(userId ? { userId } : {}), ...(o.userNames ? { userNames: o.userNames } : {}) },
        ...(o.origin ? { origin: o.origin } : {}),
      });
      const body = (await res.json()) as SessionResult;
      if (res.status !== 200)
        throw Object.assign(new Error(`session failed: ${res.status}`), { status: res.status, body });
      return body;
    },
    connect(token, o = {}) {
      const socket: ClientSocket = connectIo(baseUrl, {
        path: SOCKET_PATH,
        transports: ['websocket'],
        auth: { token },
        reconnection: false,
        forceNew: true,
        ...(o.origin ? { extraHeaders: { origin: o.origin } } : {}),
      });
      sockets.add(socket);
      return new Promise((resolve, reject) => {
        socket.once('connect', () => resolve(socket));
        socket.once('connect_error', (err: Error & { data?: ErrorBody }) => {
          socket.close();
          reject(Object.assign(new Error(err.message), { data: err.data }));
        });
      });
    },
    async messageCount(roomId) {
      const { rows } = await app.charla.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM messages WHERE room_id = $1',
        [roomId],
      );
      return Number(rows[0]?.n);
    },
    call,
    async close() {
      for (const s of sockets) s.close();
      await app.close();
      await storage.drop();
    },
  };
}

/** Emits with an acknowledgement. */
export function emitAck<E extends keyof ClientToServerEvents>(
  socket: ClientSocket,
  event: E,
  payload: Parameters<ClientToServerEvents[E]>[0],
): Promise<Ack<unknown>> {
  const s = socket.timeout(5000) as unknown as {
    emitWithAck(ev: string, arg: unknown): Promise<Ack<unknown>>;
  };
  return s.emitWithAck(event, payload);
}

export function sendText(socket: ClientSocket, roomId: string, text: string, id: string = randomUUID()) {
  return emitAck(socket, 'message:send', { id, roomId, type: 'TEXT', text }) as Promise<Ack<Message>>;
}

/** Collects a socket's `message:new` events. */
export function collect(socket: ClientSocket): Message[] {
  const got: Message[] = [];
  socket.on('message:new', (m) => got.push(m));
  return got;
}

/** Waits until `predicate` holds (polling), or fails after `ms`. */
export async function waitFor(predicate: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves to how `work` ended, or 'still running' after `ms`. */
export function within(work: Promise<unknown>, ms: number): Promise<string> {
  return Promise.race([
    work.then(
      () => 'done',
      (e: unknown) => `failed: ${String(e)}`,
    ),
    new Promise<string>((r) => setTimeout(() => r('still running'), ms).unref()),
  ]);
}
