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
 * listener. Errors are logged once per outage, not once per retry. A Redis that
 * is not there when the process starts is another matter: server/main.ts checks
 * it first (checkRedis) and does not start, as a process serving its sockets
 * alone would look up while no message reached it from the others.
 */
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { createClient } from 'redis';
import type { Server } from 'socket.io';
import { connectFailure } from '../connect-failure.ts';

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
  /**
   * How long a command (a broadcast among them) may wait for Redis, queued
   * while it is away, before it is dropped. Above the reader's 5 s block.
   */
  commandTimeoutMs?: number;
  /** How long a server-side query (fetchSockets) waits for the other processes before answering with this one's sockets. */
  queryTimeoutMs?: number;
}

export interface RedisFanout {
  /**
   * Resolves when the first connection to Redis is up (never rejects; the start checks Redis
   * beforehand with checkRedis, and this connection retries for ever).
   */
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

/**
 * Connects to Redis once, within `timeoutMs`, and lets go: rejects with one line naming REDIS_URL,
 * where it points and why (refused, unknown host, no answer, a wrong password). The service's start
 * awaits it before anything else opens; the adapter's own connection then retries for ever.
 */
export async function checkRedis(redisUrl: string, timeoutMs = 10_000): Promise<void> {
  const client = createClient({
    url: redisUrl,
    // The client's own timeout a little later than ours, so that ours names what happened.
    socket: { reconnectStrategy: false, connectTimeout: timeoutMs + 5000 },
  });
  // The first error says most ("Unknown RESP type": not a Redis there); connect() then rejects
  // with the socket's closing. Without a listener an 'error' event would throw.
  let first: unknown;
  client.on('error', (err: unknown) => {
    first ??= err;
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect().then(() => client.ping()), timeout]);
  } catch (err) {
    throw new Error(
      `REDIS_URL: cannot connect to ${redisAddress(redisUrl)} (${connectFailure(first ?? err, timeoutMs)})`,
      {
        cause: err,
      },
    );
  } finally {
    clearTimeout(timer);
    if (client.isOpen) client.destroy();
  }
}

/** host:port of a redis:// address. */
function redisAddress(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '6379'}`;
  } catch {
    return '(an unparsable address)';
  }
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
  const commandTimeoutMs = options.commandTimeoutMs ?? 60_000;
  // duplicate() copies these options, so the adapter's reader and subscriber
  // connections get the same never-give-up strategy.
  const client = createClient({
    url: redisUrl,
    socket: { reconnectStrategy: (retries) => reconnectDelay(retries, maxDelay), connectTimeout: 5000 },
    // The client's default (5 s) would drop a broadcast queued during an outage
    // longer than that, and races the reader's 5 s blocking XREAD.
    commandOptions: { timeout: commandTimeoutMs },
  });

  let down = false;
  let downSince = 0;
  let closed = false;
  client.on('error', (err: Error) => {
    if (closed || down) return;
    down = true;
    downSince = Date.now();
    log.warn({ err: { message: err.message }, redis: where }, 'redis fan-out: connection lost; retrying');
  });
  client.on('ready', () => {
    if (down) {
      const outageMs = Date.now() - downSince;
      log.info({ redis: where, outageMs }, 'redis fan-out: reconnected');
      // Broadcasts that waited longer than the command timeout were dropped, here and on the other
      // processes: this process's live sockets may have missed messages. Closed by the server, each
      // widget reconnects and asks for everything after its last sequence number (messages:sync).
      if (outageMs > commandTimeoutMs) {
        log.warn(
          { redis: where, outageMs },
          'redis fan-out: the outage outlasted the broadcast queue; closing this process’s live connections so they catch up',
        );
        io.local.disconnectSockets(true);
      }
    }
    down = false;
  });

  const ready = client.connect().then(
    () => log.info({ redis: where }, 'redis fan-out: connected'),
    (err: unknown) => {
      // Only reached when the client is closed before it ever connected.
      if (!closed)
        log.error({ err: { message: String(err) }, redis: where }, 'redis fan-out: could not connect');
    },
  );

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    // A graceful close waits for pending commands, which never come while Redis is away.
    if (client.isReady) await client.close().catch(() => client.destroy());
    else if (client.isOpen) client.destroy();
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
    degradeWhileRedisIsDown(
      adapter as unknown as ClusterQueries,
      () => client.isReady,
      options.queryTimeoutMs ?? 1000,
    );
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

/** The server-side queries of socket.io's ClusterAdapter that wait on Redis. */
interface ClusterQueries {
  serverCount(): Promise<number>;
  fetchSockets(opts: {
    rooms: Set<string>;
    except?: Set<string>;
    flags?: Record<string, unknown>;
  }): Promise<unknown[]>;
}

/**
 * Server-side queries (`io.in(room).fetchSockets()`, which the live side asks
 * on every message to tell DELIVERED_CHANNEL) must not hang while Redis is
 * away: the adapter would first count the servers through Redis and then wait
 * for their answers, so a message send would stall for the whole outage and
 * fail. While Redis is down this process counts as alone, and a query the
 * other processes do not answer in time falls back to this process's own
 * sockets. Broadcasts are untouched: they wait in the client's queue and go
 * out when Redis is back.
 */
function degradeWhileRedisIsDown(adapter: ClusterQueries, redisUp: () => boolean, timeoutMs: number): void {
  const countThroughRedis = adapter.serverCount.bind(adapter);
  adapter.serverCount = () =>
    redisUp() ? withTimeout(countThroughRedis(), timeoutMs).catch(() => 1) : Promise.resolve(1);
  const fetchEverywhere = adapter.fetchSockets.bind(adapter);
  adapter.fetchSockets = (opts) => {
    const local = () => fetchEverywhere({ ...opts, flags: { ...opts.flags, local: true } });
    if (opts.flags?.['local']) return fetchEverywhere(opts);
    if (!redisUp()) return local();
    const bounded = { ...opts, flags: { ...opts.flags, timeout: opts.flags?.['timeout'] ?? timeoutMs } };
    return fetchEverywhere(bounded).catch(local);
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
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
