/**
 * Socket fan-out across service processes through Redis (REDIS_URL).
 *
 * Why the Streams adapter rather than the pub/sub one: broadcasts go through a
 * Redis stream that every process reads from its last offset, so a process
 * whose connection to Redis drops picks up where it left off instead of
 * missing what was published meanwhile, and connection-state recovery (if the
 * gateway turns it on) keeps its sessions in Redis where every process sees
 * them. Messages themselves are stored in PostgreSQL first; Redis only carries
 * the live copy, and a widget fills any gap from storage by sequence.
 *
 * Redis going away never takes the process down: the client retries forever
 * with a capped back-off, commands issued meanwhile wait in the client's
 * offline queue and go out on reconnect, and every client has an error
 * listener. Errors are logged once per outage, not once per retry.
 */
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { createClient } from 'redis';
import type { Server } from 'socket.io';

/** The part of fastify's (pino) logger this module uses. */
export interface ScaleLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface RedisAdapterOptions {
  /** Prefix of every Redis key and channel the adapter uses (several deployments can share one Redis). */
  keyPrefix?: string;
  /** Upper bound of the stream's length (approximate trimming). */
  maxLen?: number;
  /** Longest wait between two reconnect attempts, ms. */
  maxReconnectDelayMs?: number;
}

export interface RedisFanout {
  /** Resolves when the first connection to Redis is up (never rejects; startup does not wait for it). */
  readonly ready: Promise<void>;
  /** Whether the publishing connection is up right now. */
  isReady(): boolean;
  /** Closes the Redis connection (also done when socket.io closes its adapters). Idempotent. */
  close(): Promise<void>;
}

/** Retry delay for the nth attempt: 100 ms, 200 ms, … capped, with jitter so processes do not retry in step. */
export function reconnectDelay(retries: number, maxDelayMs = 2000): number {
  return Math.min((retries + 1) * 100, maxDelayMs) + Math.floor(Math.random() * 100);
}

/** Points the server's adapter at Redis Streams. Call before sockets connect. */
export function attachRedisAdapter(
  // Generic over the gateway's event maps; any maps will do here.
  io: Server<any, any, any, any>,
  redisUrl: string,
  log: ScaleLogger,
  options: RedisAdapterOptions = {},
): RedisFanout {
  const prefix = options.keyPrefix ?? 'charla';
  const maxDelay = options.maxReconnectDelayMs ?? 2000;
  const where = safeUrl(redisUrl);
  // duplicate() copies these options, so the adapter's reader and subscriber
  // connections get the same never-give-up strategy.
  const client = createClient({
    url: redisUrl,
    socket: { reconnectStrategy: (retries) => reconnectDelay(retries, maxDelay), connectTimeout: 5000 },
  });

  let down = false;
  let closed = false;
  client.on('error', (err: Error) => {
    if (closed || down) return;
    down = true;
    log.warn({ err: { message: err.message }, redis: where }, 'redis fan-out: connection lost; retrying');
  });
  client.on('ready', () => {
    if (down) log.info({ redis: where }, 'redis fan-out: reconnected');
    down = false;
  });

  const ready = client.connect().then(
    () => log.info({ redis: where }, 'redis fan-out: connected'),
    (err: unknown) => {
      // Only reached when the client is closed before it ever connected.
      if (!closed) log.error({ err: { message: String(err) }, redis: where }, 'redis fan-out: could not connect');
    },
  );

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    if (client.isOpen) await client.close().catch(() => client.destroy());
    else client.destroy();
  };

  const factory = createAdapter(client, {
    streamName: `${prefix}:socket.io`,
    channelPrefix: `${prefix}:socket.io`,
    sessionKeyPrefix: `${prefix}:sio:session:`,
    maxLen: options.maxLen ?? 10_000,
  });
  // socket.io closes every namespace's adapter in io.close(); the adapter then
  // stops its own reader and subscriber, and we close the publishing client.
  // socket.io calls the adapter with `new`, so this is a function (not an
  // arrow); returning an object from it makes that object the instance.
  const open = new Set<object>();
  io.adapter(function charlaRedisAdapter(nsp: unknown) {
    const adapter = factory(nsp);
    open.add(adapter);
    const closeAdapter = adapter.close.bind(adapter);
    adapter.close = () => {
      const result = closeAdapter();
      open.delete(adapter);
      if (open.size === 0) void close();
      return result;
    };
    return adapter;
  } as unknown as Parameters<typeof io.adapter>[0]);

  return { ready, isReady: () => client.isReady, close };
}

/** The URL without its password, for logs. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'redis://(unparsable url)';
  }
}
