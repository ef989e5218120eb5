/**
 * The live connection: socket.io-client with the contract's typed event maps.
 * The handshake reads the session token at each (re)connect, so a renewed
 * session is picked up without a new socket.
 */
import { io, type Socket } from 'socket.io-client';
import * as parser from 'socket.io-parser';
import { SOCKET_PATH } from '../../types/routes.ts';
import type { Ack, ClientToServerEvents, ServerToClientEvents } from '../../types/socket.ts';
import { clientError, CharlaError } from './errors.ts';
import { withStandardJSON } from '../util/json.ts';

/** socket.io's encoder, its JSON written as the standard has it (util/json.ts). */
class Encoder extends parser.Encoder {
  override encode(packet: parser.Packet): ReturnType<parser.Encoder['encode']> {
    return withStandardJSON(() => super.encode(packet));
  }
}

export type LiveSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export interface SocketOptions {
  baseUrl: string;
  getToken: () => string | null;
  /** Delay bounds of socket.io's reconnection (ms). */
  reconnectionDelay?: number;
  reconnectionDelayMax?: number;
  /** Force transports (tests and benches use websocket only). */
  transports?: ('websocket' | 'polling')[];
}

export const ACK_TIMEOUT_MS = 10_000;

/** A socket that does not connect until `connect()` is called. */
export function createSocket(options: SocketOptions): LiveSocket {
  const url = new URL(options.baseUrl);
  const basePath = url.pathname.replace(/\/+$/, '');
  // A page without WebSocket (removed, or a browser that has none) starts on long-polling:
  // engine.io's WebSocket transport would fail before anyone listens, and the widget wait for ever.
  const noWebSocket = typeof document !== 'undefined' && typeof globalThis.WebSocket !== 'function';
  const socket = io(url.origin, {
    path: basePath + SOCKET_PATH,
    autoConnect: false,
    reconnection: true,
    reconnectionDelay: options.reconnectionDelay ?? 500,
    reconnectionDelayMax: options.reconnectionDelayMax ?? 5_000,
    randomizationFactor: 0.3,
    transports: options.transports ?? (noWebSocket ? ['polling'] : ['websocket', 'polling']),
    // A network that blocks WebSocket still gets a connection, over long-polling.
    tryAllTransports: true,
    // An attempt that neither opens nor fails (a proxy closing the upgrade) is given up after this.
    timeout: CONNECT_TIMEOUT_MS,
    withCredentials: false,
    auth: (cb) => cb({ token: options.getToken() ?? '' }),
    parser: { ...parser, Encoder },
  });
  // A failed attempt (a proxy that closes or never answers the upgrade is not a transport error
  // engine.io moves on from): the next ones start on long-polling and upgrade to WebSocket when
  // it works, so a network that refuses WebSocket still connects.
  if (!options.transports)
    socket.io.on('error', () => (socket.io.opts.transports = ['polling', 'websocket']));
  return socket;
}

/** How long one connection attempt may take before the next (socket.io's default is 20 s). */
export const CONNECT_TIMEOUT_MS = 10_000;

type AckData<E extends keyof ClientToServerEvents> =
  Parameters<Parameters<ClientToServerEvents[E]>[1]>[0] extends Ack<infer T> ? T : never;

/** Longest wait a RATE_LIMITED answer is taken at its word for (a wrong or hostile value cannot stall the widget). */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * How long the service asked to wait before sending again: a RATE_LIMITED
 * error's `data.retryAfterMs`, within 0..MAX_RETRY_AFTER_MS; `fallbackMs`
 * when it names none.
 */
export function retryAfterMs(error: CharlaError, fallbackMs: number): number {
  return Math.min(advisedWaitMs(error) ?? fallbackMs, MAX_RETRY_AFTER_MS);
}

/** The error's `data.retryAfterMs` as the service gave it, when it is a wait (a finite number, 0 or more). */
export function advisedWaitMs(error: CharlaError): number | undefined {
  const advised = error.body.data?.['retryAfterMs'];
  return typeof advised === 'number' && Number.isFinite(advised) && advised >= 0 ? advised : undefined;
}

/**
 * Emits with an acknowledgement and a timeout. Resolves the ack's data;
 * rejects with the service's error body (RATE_LIMITED among them is
 * transient: wait retryAfterMs() and send again) or a TIMEOUT / NOT_CONNECTED
 * error (transient).
 */
export async function request<E extends keyof ClientToServerEvents>(
  socket: LiveSocket,
  event: E,
  payload: Parameters<ClientToServerEvents[E]>[0],
  timeoutMs = ACK_TIMEOUT_MS,
): Promise<AckData<E>> {
  if (!socket.connected) throw clientError('NOT_CONNECTED', `socket is not connected (${String(event)})`);
  let res: Ack<AckData<E>>;
  try {
    // The typed overloads of emitWithAck do not narrow over a generic event name.
    const emitter = socket.timeout(timeoutMs) as unknown as {
      emitWithAck(ev: string, arg: unknown): Promise<Ack<AckData<E>>>;
    };
    res = await emitter.emitWithAck(event, payload);
  } catch {
    throw clientError('TIMEOUT', `no acknowledgement for ${String(event)} within ${timeoutMs} ms`);
  }
  if (res && res.ok === true) return res.data;
  if (res && res.ok === false) throw new CharlaError(res.error, 0);
  throw clientError('NETWORK_ERROR', `malformed acknowledgement for ${String(event)}`);
}
