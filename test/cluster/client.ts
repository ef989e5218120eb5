/**
 * A widget user as the cluster tests drive one: HTTP against a chosen service
 * process, a socket.io connection to a chosen process, sends acknowledged and
 * retried with the same id (as the widget's outbox does), and every
 * `message:new` kept in arrival order.
 */
import { randomUUID } from 'node:crypto';
import { io as connect, type Socket } from 'socket.io-client';
import {
  ROUTES,
  routePath,
  SOCKET_PATH,
  type Ack,
  type ClientToServerEvents,
  type Message,
  type ServerToClientEvents,
  type SessionResult,
  type SyncResult,
  type WidgetCreateResult,
} from '../../types/index.ts';
import { sleep } from './harness.ts';

export const BASIC = `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what} answered ${status}: ${JSON.stringify(body).slice(0, 600)}`);
  }
}

/** One JSON request; throws HttpError on a non-2xx answer. */
export async function api<T>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  authorization = BASIC,
): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // keep the text
  }
  if (!res.ok) throw new HttpError(res.status, parsed, `${method} ${path}`);
  return parsed as T;
}

/** A widget with a new bot; the API key opens sessions on any process. */
export async function createWidget(baseUrl: string, name: string) {
  const r = await api<WidgetCreateResult>(baseUrl, 'POST', ROUTES.createWidget, {
    bot: { name: `${name} bot` },
    widget: { properties: { type: 'normal', name } },
  });
  return { apiKey: r.data.ApiKey.key, botId: r.data.Bot.id, widgetId: r.data.Widget.id };
}

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export class WidgetUser {
  readonly received: Message[] = [];
  socket: ClientSocket | null = null;
  session!: SessionResult;

  private constructor(
    readonly userId: string,
    readonly baseUrl: string,
  ) {}

  /** Opens a session on `baseUrl` (the process this user's page talks to). */
  static async open(baseUrl: string, apiKey: string, userId: string): Promise<WidgetUser> {
    const u = new WidgetUser(userId, baseUrl);
    u.session = await api<SessionResult>(baseUrl, 'POST', ROUTES.widgetSession, {
      apiKey,
      userId,
      userNames: userId,
    });
    return u;
  }

  get bearer(): string {
    return `Bearer ${this.session.token}`;
  }

  /** The direct room of this user and another (created once). */
  async directRoomWith(otherId: string): Promise<string> {
    const room = await api<{ id: string }>(
      this.baseUrl,
      'POST',
      ROUTES.widgetDirectRoom,
      { id: otherId },
      this.bearer,
    );
    return room.id;
  }

  /** Connects the socket (websocket only, as behind a load balancer without sticky sessions). */
  async connect(baseUrl = this.baseUrl): Promise<void> {
    const socket: ClientSocket = connect(baseUrl, {
      path: SOCKET_PATH,
      transports: ['websocket'],
      auth: { token: this.session.token },
      reconnection: true,
      reconnectionDelay: 100,
      reconnectionDelayMax: 1000,
    });
    socket.on('message:new', (m) => this.received.push(m));
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`${this.userId}: socket did not connect to ${baseUrl}`)),
        15_000,
      );
      socket.once('connect', () => {
        clearTimeout(t);
        resolve();
      });
      socket.once('connect_error', (err) => {
        clearTimeout(t);
        reject(err);
      });
    });
  }

  /**
   * Sends a text and waits for its acknowledgement; on a timeout or a refusal
   * sends the same id again (at most `tries` times).
   */
  async send(roomId: string, text: string, id: string = randomUUID(), tries = 10): Promise<Message> {
    const socket = this.socket;
    if (!socket) throw new Error(`${this.userId} is not connected`);
    let last: unknown;
    for (let i = 0; i < tries; i++) {
      try {
        const res = (await socket
          .timeout(5000)
          .emitWithAck('message:send', { id, roomId, type: 'TEXT', text })) as Ack<Message>;
        if (res.ok) return res.data;
        last = res.error;
      } catch (err) {
        last = err;
      }
      await sleep(200 * (i + 1));
    }
    throw new Error(`${this.userId}: send ${id} failed ${tries} times: ${JSON.stringify(last)}`);
  }

  /** Gap fill: every message after the given sequence, per room. */
  async sync(after: Record<string, number>): Promise<SyncResult> {
    const socket = this.socket;
    if (!socket) throw new Error(`${this.userId} is not connected`);
    const res = (await socket.timeout(10_000).emitWithAck('messages:sync', { after })) as Ack<SyncResult>;
    if (!res.ok) throw new Error(`${this.userId}: sync refused: ${JSON.stringify(res.error)}`);
    return res.data;
  }

  /** Messages received live in one room. */
  inRoom(roomId: string): Message[] {
    return this.received.filter((m) => m.roomId === roomId);
  }

  close(): void {
    this.socket?.disconnect();
    this.socket = null;
  }
}

/** Ids that occur more than once. */
export function doubled(messages: Message[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const m of messages) {
    const id = String(m.id);
    if (seen.has(id)) twice.add(id);
    seen.add(id);
  }
  return [...twice];
}

export const botMessagePath = (botId: string) => routePath(ROUTES.botMessages, { botId });
