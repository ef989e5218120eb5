/**
 * The socket gateway: socket.io on the service's own HTTP server, typed with
 * the event maps of types/socket.ts.
 *
 * Handshake: `auth: { token }` (the widget session) and the Origin are checked
 * in a middleware; a refusal reaches the client as `connect_error` whose
 * `data` is the error body (401 UNAUTHORIZED, 403 ORIGIN_NOT_ALLOWED, 429 RATE_LIMITED). On
 * connect the socket joins `user:<company>:<user>` and `room:<id>` of every
 * room of the user. Each event is answered in its acknowledgement: `{ ok:
 * true, data }` or `{ ok: false, error }` with the error body; a bad event
 * changes nothing and never touches other connections.
 *
 * Connections per user: at most config socketsPerUser sockets of one user at once on a process
 * (a tab or page each); a handshake past it is refused as 429 RATE_LIMITED (`data.retryAfterMs`:
 * when to try again; the widget does, later and later), counted from the handshake's acceptance
 * until the socket or its connection ends, so handshakes arriving together cannot pass it.
 *
 * Rate limit (rate-limit.ts): every client event takes a token from its
 * user's bucket (config socketRate / socketBurst). One over the limit is
 * answered 429 RATE_LIMITED with `data.retryAfterMs`, is not handled (stores
 * and broadcasts nothing), and without an acknowledgement is dropped; a
 * socket refused FLOOD_BURSTS × burst times in a row is closed (once, with
 * one warning; what it had already sent is dropped).
 *
 * An event sent with an acknowledgement is always answered: one the gateway
 * does not have gets 404 NOT_FOUND, one without its payload or with extra
 * arguments 400 VALIDATION_ERROR, one over MAX_EVENT_BYTES 413
 * PAYLOAD_TOO_LARGE (the socket stays open; only a frame past
 * MAX_SOCKET_FRAME_BYTES ends the connection), before any handler runs. Events
 * are JSON: binary data anywhere in a payload is 400 naming the field.
 *
 * `messages:sync` runs one at a time per user (SYNC_PENDING_MAX running or
 * waiting, another 429) and reads rooms in set-based chunks with the event
 * loop let go between them (syncOf), so one user's sync never holds up others.
 */
import { Server, type Socket } from 'socket.io';
import { Compile } from 'typebox/compile';
import type { FastifyInstance } from 'fastify';
import {
  SOCKET_PATH,
  charCount,
  errorBody,
  type Ack,
  type ClientToServerEvents,
  type ErrorBody,
  type InterServerEvents,
  type Message,
  type Room,
  type ServerToClientEvents,
} from '../../types/index.ts';
import { OUTGOING_MESSAGE_SCHEMAS } from '../../types/schemas/index.ts';
import { MAX_EVENT_BYTES, MAX_SOCKET_FRAME_BYTES, MAX_TIMER_MS } from '../../types/limits.ts';
import {
  ApiError,
  serviceUnavailable,
  storageUnavailable,
  validationFailed,
  validationMap,
} from '../http/errors.ts';
import { structureProblem, tooDeep } from '../http/json.ts';
import { unstorableText } from '../http/validation.ts';
import { mediaUrlProblem } from '../bot-message.ts';
import type { NewMessageInput } from '../context.ts';
import { letOthersRun, type Db } from '../store/db.ts';
import { uploadKindProblem } from './media-rooms.ts';
import { roomChannel, userChannel, type Hub, type LiveServer, type LiveSocketData } from './hub.ts';
import { notWrittenBy, type LiveMessaging } from './messaging.ts';
import { FLOOD_BURSTS, HOLD_MS, RateLimits, type Bucket } from './rate-limit.ts';
import type { Sessions } from './session.ts';
import { loadRoom, loadRooms, membership, messagesOfRooms, roomSeqsOf } from './store.ts';

type LiveSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, LiveSocketData>;

/** Most messages one room gives in a gap fill; the client asks again from the last one it got. */
export const SYNC_ROOM_CAP = 1000;
/** Rooms a sync was not asked about that get their latest page (the most recently active); the rest, their summary only. */
export const SYNC_LATEST_ROOMS = 50;
/** The latest page of a room a sync was not asked about. */
export const SYNC_LATEST_PAGE = 20;
/**
 * Most messages of the rooms a sync was asked about, in all: with many rooms behind, each gives
 * a share (at least one, at most SYNC_ROOM_CAP) and the client asks again from where it got to.
 */
export const SYNC_MESSAGES_MAX = 5000;
/** Rooms read per statement in a sync; other requests run between statements. */
export const SYNC_CHUNK_ROOMS = 250;
/** Syncs of one user running or waiting their turn; one more is refused 429. */
export const SYNC_PENDING_MAX = 4;
/** Rooms in a sync's answer per extra rate-limit token it takes. */
export const SYNC_ROOMS_PER_TOKEN = 100;
/** The wait a handshake refused for too many sockets of its user is told (retryAfterMs). */
export const TOO_MANY_SOCKETS_RETRY_MS = 3_000;
const validators = Object.fromEntries(
  Object.entries(OUTGOING_MESSAGE_SCHEMAS).map(([type, schema]) => [type, Compile(schema)]),
) as Record<string, ReturnType<typeof Compile>>;
/**
 * The fields each type may carry; anything else a client adds is dropped. So is `senderNames`
 * (checked like the rest, so an over-long one is still a 400): a visitor's message is signed with
 * their session's name, never one it brings, which would let one member write as another.
 */
const fieldsOf = Object.fromEntries(
  Object.entries(OUTGOING_MESSAGE_SCHEMAS).map(([type, schema]) => [
    type,
    Object.keys(schema.properties).filter((key) => key !== 'senderNames'),
  ]),
) as Record<string, string[]>;

function errorOf(err: unknown, log: FastifyInstance['log']): ErrorBody {
  if (err instanceof ApiError) return err.body;
  // The database out of reach for a moment: the client waits data.retryAfterMs and sends again
  // (the same id: stored once, even when the first try was stored and only its answer lost).
  if (storageUnavailable(err)) {
    log.warn({ err }, 'socket event failed: storage unreachable (answered SERVICE_UNAVAILABLE)');
    return serviceUnavailable().body;
  }
  log.error({ err }, 'socket event failed');
  return errorBody('UNKNOWN_ERROR');
}

/**
 * What the HTTP bodies are held to, for any event payload: no text
 * PostgreSQL cannot store (NUL, unpaired surrogates, in values or keys), no
 * nesting deeper than MAX_JSON_DEPTH, no `__proto__` or `constructor.prototype`
 * keys. Throws 400 naming the field.
 */
export function checkPayload(value: unknown): void {
  const problem = binaryProblem(value) ?? unstorableText(value) ?? structureProblem(value);
  if (problem) throw validationFailed(problem);
}

/** A key as a JSON pointer segment (RFC 6901). */
const pointerSegment = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');
const isBinary = (v: unknown): boolean => v instanceof ArrayBuffer || ArrayBuffer.isView(v);

/**
 * Events are JSON: socket.io would carry binary (a Buffer, an ArrayBuffer, a
 * typed array) as it is to the room while storage keeps its JSON form
 * (`{"type":"Buffer","data":[…]}`), so the live and stored copies would
 * differ and a retry would not match its message. The first one found is
 * named by its JSON pointer; one walk without recursion.
 */
function binaryProblem(value: unknown): Record<string, string> | null {
  const stack: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (stack.length > 0) {
    const node = stack.pop() as { value: unknown; path: string };
    const v = node.value;
    if (isBinary(v)) return { [node.path || '/']: 'must be JSON, not binary data' };
    if (typeof v !== 'object' || v === null) continue;
    const entries = Array.isArray(v) ? v.map((c, i) => [String(i), c] as const) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as readonly [string, unknown];
      if (typeof child === 'object' && child !== null)
        stack.push({ value: child, path: `${node.path}/${pointerSegment(key)}` });
    }
  }
  return null;
}

const LIMITS = { lat: 90, lng: 180 } as const;

/**
 * Validates an outgoing message against the schema of its type; throws 400
 * naming the bad fields. Beyond the schema: coordinates within ±90 / ±180, the
 * media address held to the room posts' rule, and the UUID in lower case (one
 * message whatever the case it is written in, as room posts).
 */
export function checkOutgoing(value: unknown, allowLoopbackMedia: boolean): NewMessageInput & { id: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw validationFailed({ '/': 'must be a message object' });
  }
  const type = (value as { type?: unknown }).type;
  // Own keys only: `constructor` or `toString` must not find Object.prototype's.
  const validator =
    typeof type === 'string' && Object.hasOwn(validators, type) ? validators[type] : undefined;
  if (!validator) throw validationFailed({ '/type': `must be one of ${Object.keys(validators).join(', ')}` });
  if (!validator.Check(value)) throw validationFailed(validationMap(validator.Errors(value)));
  const v = value as Record<string, unknown>;
  const bad: Record<string, string> = {};
  for (const [field, max] of Object.entries(LIMITS)) {
    if (typeof v[field] === 'string' && Math.abs(Number(v[field])) > max)
      bad[`/${field}`] = `must be between -${max} and ${max}`;
  }
  if (typeof v['mediaUrl'] === 'string') {
    const problem = mediaUrlProblem(v['mediaUrl'], allowLoopbackMedia);
    if (problem) bad['/mediaUrl'] = problem;
  }
  if (Object.keys(bad).length) throw validationFailed(bad);
  const out: Record<string, unknown> = {};
  for (const key of fieldsOf[type as string] ?? []) if (v[key] !== undefined) out[key] = v[key];
  out['id'] = (out['id'] as string).toLowerCase();
  return out as unknown as NewMessageInput & { id: string };
}

/** The events a client may send (each has a handler below); the record keeps it in step with the type. */
const CLIENT_EVENTS: Record<keyof ClientToServerEvents, true> = {
  'message:send': true,
  'messages:sync': true,
  'messages:seen': true,
  'room:read': true,
};

/**
 * What is wrong with an event sent with an acknowledgement, before any
 * handler: an event the gateway does not have is 404 NOT_FOUND; one without
 * its payload, or with more than one, is 400.
 */
function eventProblem(packet: unknown[]): ApiError | null {
  const [event, ...args] = packet;
  if (typeof event !== 'string' || !Object.hasOwn(CLIENT_EVENTS, event)) {
    return new ApiError('NOT_FOUND', {
      message: `No such event: the events are ${Object.keys(CLIENT_EVENTS).join(', ')}.`,
    });
  }
  if (args.length !== 2)
    return validationFailed(
      { '/': 'must be one payload, then the acknowledgement' },
      `${event} takes one payload, then its acknowledgement (${args.length - 1} payloads were sent).`,
    );
  return null;
}

/**
 * An event's size: the UTF-8 bytes of its name and arguments as JSON (the
 * acknowledgement left out), binary attachments counted by their own bytes
 * (not as the JSON of a Buffer, several times larger). Null when the event
 * nests too deep for JSON.stringify's recursion (a 10 KB frame of 5,000
 * nested arrays overflows the stack): such an event is refused, never measured.
 */
export function eventBytes(packet: unknown[]): number | null {
  let binary = 0;
  let json: string | undefined;
  try {
    json = JSON.stringify(packet, function (this: Record<string, unknown>, key, value: unknown) {
      const raw = this[key];
      if (raw instanceof ArrayBuffer || ArrayBuffer.isView(raw)) {
        binary += raw.byteLength;
        return null;
      }
      return typeof value === 'function' ? undefined : value;
    });
  } catch {
    // A decoded frame holds only JSON values and binary: the one way to fail here is the stack's depth.
    return null;
  }
  return Buffer.byteLength(json ?? '') + binary;
}

export interface GatewayDeps {
  hub: Hub;
  sessions: Sessions;
  messaging: LiveMessaging;
}

export function startGateway(app: FastifyInstance, deps: GatewayDeps): LiveServer {
  const { hub, sessions, messaging } = deps;
  const { db } = app.charla;
  const io: LiveServer = new Server(app.server, {
    path: SOCKET_PATH,
    serveClient: false,
    // Engine-level CORS (long-polling only) answers any origin: the widget's
    // lists are enforced per session in the middleware below.
    cors: { origin: true, credentials: false },
    // Past this the engine closes the connection without a word; an event under it but over
    // MAX_EVENT_BYTES is refused in its acknowledgement (eventBytes below), the socket kept.
    maxHttpBufferSize: MAX_SOCKET_FRAME_BYTES,
    pingInterval: 20_000,
    pingTimeout: 20_000,
    // How long a move from long-polling to WebSocket may take (engine.io's default is 10 s): the
    // probe and the upgrade are two round trips, and on a slow link (a train, a satellite: 3 s
    // each way) 10 s cut every upgrade, so the widget dropped and reconnected about every 30 s.
    upgradeTimeout: 30_000,
    // Once shutdown has begun (closeLive), no connection starts: an upgrade the
    // server accepted just before is answered 403 instead of held open.
    allowRequest: (_req, callback) => callback(null, !closing.has(io)),
  });
  hub.io = io;
  const presence = new SocketIds(db);
  const initialRooms = new WeakMap<LiveSocket, string[]>();
  const limits = new RateLimits(app.charla.config.socketRate, app.charla.config.socketBurst);
  const syncTurns = new Turns(SYNC_PENDING_MAX);

  // A socket's rate-limit bucket, taken at its handshake (the bucket's users are the user's sockets,
  // which socketsPerUser caps), until its connection handler picks it up.
  const buckets = new WeakMap<LiveSocket, Bucket>();
  const socketsPerUser = app.charla.config.socketsPerUser;

  io.use(async (socket, next) => {
    let release: (() => void) | undefined;
    try {
      const auth = socket.handshake.auth as { token?: unknown } | undefined;
      const origin = socket.handshake.headers.origin;
      const { claims } = await sessions.authorize(
        auth?.token,
        typeof origin === 'string' ? origin : undefined,
      );
      // Checked and taken in one step (no await between), so handshakes arriving together count.
      if (limits.usersOf(claims.cid, claims.uid) >= socketsPerUser) {
        throw new ApiError('RATE_LIMITED', {
          message: `Too many live connections for this user (${socketsPerUser} at most): close one, or wait ${TOO_MANY_SOCKETS_RETRY_MS / 1000} s.`,
          data: { retryAfterMs: TOO_MANY_SOCKETS_RETRY_MS },
        });
      }
      const bucket = limits.acquire(claims.cid, claims.uid);
      buckets.set(socket, bucket);
      let holding = true;
      release = () => {
        if (!holding) return;
        holding = false;
        limits.release(claims.cid, claims.uid, bucket);
      };
      // Whichever ends first: the socket, or its connection (closed before the socket connected).
      socket.once('disconnect', release);
      socket.conn.once('close', release);
      if (socket.conn.readyState !== 'open') release();
      // The user's names and rooms in one round trip.
      const found = await db.query<{ names: string | null; rooms: string[] | null }>(
        `SELECT (SELECT names FROM live_users WHERE company_id = $2 AND id = $1) AS names,
           ARRAY(SELECT r.id FROM room_members m JOIN rooms r ON r.id = m.room_id
                 WHERE m.user_id = $1 AND r.company_id = $2 AND NOT r.deleted) AS rooms`,
        [claims.uid, claims.cid],
      );
      const row = found.rows[0];
      socket.data = {
        userId: claims.uid,
        widgetId: claims.wid,
        companyId: claims.cid,
        botId: claims.bid,
        names: row?.names ?? null,
        keyId: claims.key,
        exp: claims.exp,
        proven: claims.idv === 1,
      };
      initialRooms.set(socket, Array.isArray(row?.rooms) ? row.rooms : []);
      next();
    } catch (err) {
      release?.();
      const body =
        err instanceof ApiError
          ? err.body
          : storageUnavailable(err)
            ? serviceUnavailable().body
            : errorBody('UNKNOWN_ERROR');
      const e = new Error(typeof body.message === 'string' ? body.message : 'refused') as Error & {
        data?: unknown;
      };
      e.data = body;
      next(e);
    }
  });

  io.on('connection', (socket) => {
    // A session checked while shutdown began: its connection is already closed.
    // The rate-limit bucket taken at the handshake (the middleware gives it back when the socket
    // or its connection ends).
    const bucket = buckets.get(socket);
    buckets.delete(socket);
    if (closing.has(io) || !bucket) {
      socket.disconnect(true);
      return;
    }
    const { userId, companyId } = socket.data;
    // Synchronously, before the client can act on its connect event.
    socket.join([userChannel(companyId, userId), ...(initialRooms.get(socket) ?? []).map(roomChannel)]);
    initialRooms.delete(socket);
    presence.connected(socket.id, userId, companyId);
    const expiresIn = socket.data.exp * 1000 - Date.now();
    const expiry = setTimeout(
      () => {
        socket.emit('session:expired');
        socket.disconnect(true);
      },
      Math.max(0, Math.min(expiresIn, MAX_TIMER_MS)),
    );
    let refusedInRow = 0;
    let flooded = false;
    socket.on('disconnect', () => {
      clearTimeout(expiry);
      presence.disconnected(socket.id);
    });
    // Before every handler, whatever the event's name: over the limit, nothing runs; an event
    // with an acknowledgement but no handler, or not one payload, is refused in it.
    socket.use((packet, next) => {
      // Closed for flooding: the events it had already sent are dropped, not counted again.
      if (flooded) return;
      const ack = packet[packet.length - 1];
      const refuse = (error: ErrorBody) => {
        if (typeof ack === 'function') (ack as (res: Ack<never>) => void)({ ok: false, error });
      };
      // Shutting down, the connection about to close: nothing new runs; the widget holds the
      // message and sends it again once connected to another process.
      if (closing.has(io)) {
        refuse(serviceUnavailable('SERVICE_STOPPING').body);
        return;
      }
      const retryAfterMs = bucket.take(Date.now());
      if (retryAfterMs === 0) {
        refusedInRow = 0;
        // Over the event limit: refused (413) in its acknowledgement, dropped without one.
        const bytes = eventBytes(packet);
        if (bytes === null) {
          refuse(validationFailed(tooDeep()).body);
          return;
        }
        if (bytes > MAX_EVENT_BYTES) {
          refuse(
            errorBody('PAYLOAD_TOO_LARGE', {
              message: `This event is ${bytes} bytes; the most the service takes is ${MAX_EVENT_BYTES}.`,
              data: { maxBytes: MAX_EVENT_BYTES },
            }),
          );
          return;
        }
        // Checked alike without an acknowledgement (as if one were there): such a bad event is dropped.
        const problem = eventProblem(typeof ack === 'function' ? packet : [...packet, () => {}]);
        if (problem) refuse(problem.body);
        else next();
        return;
      }
      refuse(
        errorBody('RATE_LIMITED', {
          message: `Too many events: wait ${retryAfterMs} ms before sending again.`,
          data: { retryAfterMs },
        }),
      );
      if (++refusedInRow >= FLOOD_BURSTS * bucket.burst) {
        flooded = true;
        app.log.warn(
          { userId, companyId, refused: refusedInRow },
          'socket closed: it kept flooding past its rate limit',
        );
        socket.disconnect(true);
      }
    });

    /** Membership: the socket's own rooms first (kept live by joins and leaves), storage to be sure. */
    const requireRoom = async (roomId: unknown): Promise<string> => {
      if (typeof roomId !== 'string' || roomId.length === 0)
        throw validationFailed({ '/roomId': 'is required' });
      // Characters, as every limit counts them (and as the HTTP routes take an id).
      if (charCount(roomId) > 200)
        throw validationFailed({ '/roomId': 'must not have more than 200 characters' });
      if (socket.rooms.has(roomChannel(roomId))) return roomId;
      const m = await membership(db, roomId, userId);
      if (!m || m.companyId !== companyId) throw new ApiError('NOT_A_MEMBER');
      socket.join(roomChannel(roomId));
      return roomId;
    };

    /**
     * Runs a handler once the payload passed checkPayload, and answers in its acknowledgement. An
     * event sent without one is carried out all the same (a message sent so is stored and
     * delivered); nothing answers it.
     */
    function handle<T>(ack: unknown, payload: unknown, fn: () => Promise<T>): void {
      const reply = typeof ack === 'function' ? (ack as (res: Ack<T>) => void) : () => {};
      let run: Promise<T>;
      try {
        checkPayload(payload);
        run = fn();
      } catch (err) {
        run = Promise.reject(err);
      }
      const answered = run.then(
        (data) => reply({ ok: true, data }),
        (err: unknown) => reply({ ok: false, error: errorOf(err, app.log) }),
      );
      // Shutdown waits for it to be answered before it closes the connection (closeLive).
      const running = inFlight(io);
      running.add(answered);
      void answered.finally(() => running.delete(answered));
    }

    socket.on('message:send', (raw, ack) =>
      handle<Message>(ack, raw, async () => {
        // Signed with the visitor's own name (their session's); checkOutgoing dropped any other.
        const input = checkOutgoing(raw, app.charla.config.allowLoopbackMedia);
        await requireRoom(input.roomId);
        // An upload goes out as the kind it is: a 12 MB file uploaded as a video is no IMAGE (8 MB).
        const key = input.mediaUrl ? app.charla.signer.mediaKeyOf(input.mediaUrl, [input.mediaUrl]) : null;
        const kind = key ? await uploadKindProblem(db, key, input.type) : null;
        if (kind) throw validationFailed({ '/mediaUrl': kind });
        const { message, differs } = await messaging.deliver({
          ...input,
          senderId: userId,
          by: 'user',
          ...(socket.data.names ? { senderNames: socket.data.names } : {}),
        });
        // A retry gets the stored copy; the same id for something else is refused, as in room posts.
        if (differs) {
          throw new ApiError('VALIDATION_ERROR', {
            message:
              'This message id is already used by another message (a retry must repeat what it retries).',
            validationError: { '/id': 'is already used' },
          });
        }
        return message;
      }),
    );

    socket.on('messages:sync', (req, ack) =>
      // A sync is a question: without an acknowledgement nobody would read its answer.
      typeof ack !== 'function'
        ? undefined
        : handle(ack, req, async () => {
            if (typeof req !== 'object' || req === null || Array.isArray(req)) {
              throw validationFailed({ '/': 'must be an object: {after: {roomId: sequence}}' });
            }
            const after = (req as { after?: unknown }).after;
            if (typeof after !== 'object' || after === null || Array.isArray(after)) {
              throw validationFailed({ '/after': 'must map room ids to sequence numbers ({} for none)' });
            }
            const given = after as Record<string, unknown>;
            for (const [roomId, seq] of Object.entries(given)) {
              if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
                throw validationFailed({ [`/after/${roomId}`]: 'must be a sequence number' });
              }
            }
            // One sync of a user at a time (its sockets share the turn); a pile of them waits or is refused.
            return syncTurns.run(`${companyId}\n${userId}`, async () => {
              const result = await syncOf(db, socket, given as Record<string, number>);
              // Charged by the work done: a sync over many rooms costs its user more than one event.
              for (let i = Math.floor(result.rooms.length / SYNC_ROOMS_PER_TOKEN); i > 0; i--) {
                if (bucket.take(Date.now()) > 0) break;
              }
              return result;
            });
          }),
    );

    socket.on('messages:seen', (req, ack) =>
      handle(ack, req, async () => {
        const r = req as { roomId?: unknown; ids?: unknown } | null;
        const roomId = await requireRoom(r?.roomId);
        const ids = r?.ids;
        if (
          !Array.isArray(ids) ||
          ids.length > 500 ||
          !ids.every((i) => typeof i === 'string' && i.length <= 200)
        ) {
          throw validationFailed({ '/ids': 'must be a list of at most 500 message ids' });
        }
        return { updated: await messaging.markSeen(roomId, userId, ids as string[]) };
      }),
    );

    socket.on('room:read', (req, ack) =>
      handle(ack, req, async () => {
        const roomId = await requireRoom((req as { roomId?: unknown } | null)?.roomId);
        // The last message the widget held when its user read the room: what the service stored
        // after it stays unread (a report handled late must not clear it). Without one, the whole room.
        const seq = (req as { seq?: unknown }).seq;
        if (seq !== undefined && !(Number.isSafeInteger(seq) && (seq as number) >= 0))
          throw validationFailed({ '/seq': 'must be a whole number of at least 0' });
        // The member's row is locked first: a message being stored (which counts itself in that row)
        // commits before the count below is taken. In one statement, PostgreSQL counted with the
        // snapshot from before its wait and cleared such a message (1 unread where 2 were).
        const read = await db.transaction(async (tx) => {
          await tx.query('SELECT 1 FROM room_members WHERE room_id = $1 AND user_id = $2 FOR UPDATE', [
            roomId,
            userId,
          ]);
          return tx.query<{ unread: number }>(
            `UPDATE room_members SET unread = CASE WHEN $3::bigint IS NULL THEN 0 ELSE LEAST(unread,
               (SELECT count(*)::int FROM messages WHERE room_id = $1 AND seq > $3 AND ${notWrittenBy('$2')})) END
             WHERE room_id = $1 AND user_id = $2 AND unread <> 0 RETURNING unread`,
            [roomId, userId, seq ?? null],
          );
        });
        // The user's other tabs and devices count the room read too.
        if (read.rowCount > 0) {
          const room = await loadRoom(db, roomId, userId);
          if (room) socket.to(userChannel(companyId, userId)).emit('room:updated', room);
        }
        // No row changed: nothing was unread.
        return { unread: read.rows[0]?.unread ?? 0 };
      }),
    );
  });

  return io;
}

/**
 * A `messages:sync`: the user's rooms now (the socket joins them all), every
 * message after the sequence given for a room (SYNC_ROOM_CAP per room, fewer
 * when many are behind: SYNC_MESSAGES_MAX in all), and the latest page of the
 * SYNC_LATEST_ROOMS most recently active rooms not named (the others come as
 * their summary: `lastMessage`, `lastSeq`; the widget loads a room's page
 * when it is opened). Rooms are read SYNC_CHUNK_ROOMS at a time, a statement
 * or two each, letting other requests run between them: PGlite answers on
 * this thread, so a long run of statements would hold up every connection.
 */
async function syncOf(
  db: Db,
  socket: LiveSocket,
  given: Record<string, number>,
): Promise<{ messages: Message[]; rooms: Room[] }> {
  const { userId, companyId } = socket.data;
  const rooms = await roomSeqsOf(db, userId, companyId);
  const roomIds = rooms.map((r) => r.id);
  socket.join(roomIds.map(roomChannel));
  const named = (id: string): number | undefined => (Object.hasOwn(given, id) ? given[id] : undefined);
  // Only what there is to read: a room named at its last sequence (or past it) gives nothing.
  const behind = rooms.filter((r) => {
    const seq = named(r.id);
    return seq !== undefined && seq < r.lastSeq;
  });
  const latest = rooms.filter((r) => named(r.id) === undefined && r.lastSeq > 0).slice(0, SYNC_LATEST_ROOMS);
  const caps = {
    gap: Math.max(1, Math.min(SYNC_ROOM_CAP, Math.floor(SYNC_MESSAGES_MAX / Math.max(1, behind.length)))),
    page: SYNC_LATEST_PAGE,
  };
  const work = [
    ...behind.map((r) => ({ roomId: r.id, after: named(r.id) as number })),
    ...latest.map((r) => ({ roomId: r.id })),
  ];
  const byRoom = new Map<string, Message[]>();
  for (let i = 0; i < work.length; i += SYNC_CHUNK_ROOMS) {
    if (i > 0) await letOthersRun();
    const got = await messagesOfRooms(db, userId, work.slice(i, i + SYNC_CHUNK_ROOMS), caps);
    for (const [roomId, list] of got) byRoom.set(roomId, list);
  }
  const loaded: Room[] = [];
  for (let i = 0; i < roomIds.length; i += SYNC_CHUNK_ROOMS) {
    await letOthersRun();
    loaded.push(...(await loadRooms(db, roomIds.slice(i, i + SYNC_CHUNK_ROOMS), userId)));
  }
  const messages: Message[] = [];
  for (const id of roomIds) messages.push(...(byRoom.get(id) ?? []));
  return { messages, rooms: loaded };
}

/**
 * Work keyed by an owner (a user), one at a time per owner, in the order
 * asked; at most `pending` running or waiting per owner, one more is refused
 * 429 RATE_LIMITED with a wait.
 */
class Turns {
  readonly #queues = new Map<string, { tail: Promise<unknown>; pending: number }>();

  constructor(private readonly pending: number) {}

  run<T>(owner: string, fn: () => Promise<T>): Promise<T> {
    let queue = this.#queues.get(owner);
    if (!queue) this.#queues.set(owner, (queue = { tail: Promise.resolve(), pending: 0 }));
    if (queue.pending >= this.pending) {
      return Promise.reject(
        new ApiError('RATE_LIMITED', {
          message: `Too many syncs at once: wait ${HOLD_MS} ms before asking again.`,
          data: { retryAfterMs: HOLD_MS },
        }),
      );
    }
    queue.pending++;
    const q = queue;
    const run = q.tail.then(fn);
    q.tail = run
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        if (--q.pending === 0 && this.#queues.get(owner) === q) this.#queues.delete(owner);
      });
    return run;
  }
}

/**
 * Keeps `Member.socketId` (the user's latest socket) in storage. Connects and
 * disconnects are written in batches, so a reconnect storm after a restart
 * costs a few statements, not two per socket; connects of a batch are written
 * before its disconnects, so a quick reconnect leaves the new socket's id.
 */
class SocketIds {
  private connects: { sid: string; uid: string; cid: string }[] = [];
  private disconnects: string[] = [];
  private scheduled = false;

  constructor(private readonly db: Db) {}

  connected(sid: string, uid: string, cid: string): void {
    this.connects.push({ sid, uid, cid });
    this.schedule();
  }

  disconnected(sid: string): void {
    this.disconnects.push(sid);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    // A user's latest socket wins.
    const connects = [...new Map(this.connects.splice(0).map((c) => [`${c.cid}\n${c.uid}`, c])).values()];
    const disconnects = this.disconnects.splice(0);
    try {
      if (connects.length > 0) {
        await this.db.query(
          `UPDATE room_members m SET socket_id = x.sid
           FROM jsonb_to_recordset($1::jsonb) AS x(sid text, uid text, cid text)
           WHERE m.user_id = x.uid AND m.company_id = x.cid`,
          [JSON.stringify(connects)],
        );
      }
      if (disconnects.length > 0) {
        await this.db.query('UPDATE room_members SET socket_id = NULL WHERE socket_id = ANY($1)', [
          disconnects,
        ]);
      }
    } catch {
      // Presence is advisory; the next connect writes it again.
    } finally {
      this.scheduled = false;
      if (this.connects.length > 0 || this.disconnects.length > 0) this.schedule();
    }
  }
}

const closing = new WeakSet<LiveServer>();
/** Per gateway, the events being handled: their acknowledgements are still to be sent. */
const running = new WeakMap<LiveServer, Set<Promise<void>>>();
const inFlight = (io: LiveServer): Set<Promise<void>> => {
  let set = running.get(io);
  if (!set) running.set(io, (set = new Set()));
  return set;
};

/** How long shutdown waits for the events being handled to be answered. */
const DRAIN_MS = 5_000;

/**
 * The first step of shutdown: refuses new connections and new events (SERVICE_STOPPING in their
 * acknowledgement), lets the events being handled finish and be answered (at most `drainMs`),
 * then closes every open connection, those still joining (engine open, session being checked)
 * included, so the HTTP server's close never waits on a live connection. Before, the connections
 * closed at once: a message being stored was stored but never acknowledged, and the widget
 * counted a dropped connection against it (three make it FAILED).
 */
export async function closeLive(io: LiveServer, drainMs = DRAIN_MS): Promise<void> {
  closing.add(io);
  const pending = [...inFlight(io)];
  if (pending.length > 0) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, drainMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled(pending), late]);
    clearTimeout(timer);
  }
  // This process's sockets only: with the Redis adapter, io.disconnectSockets reaches every process.
  io.local.disconnectSockets(true);
  // Each connection closes once what it was given to write has gone (the acknowledgements just
  // sent); the engine's own close would throw that away. A connection that does not drain soon
  // (a client that stopped reading) is closed with the engine.
  const drained = Date.now() + FLUSH_MS;
  while (io.engine.clientsCount > 0 && Date.now() < drained) await new Promise((r) => setTimeout(r, 10));
  io.engine.close();
}

/** How long the connections closing at shutdown get to send what they were given. */
const FLUSH_MS = 1_000;

/** Every gateway started in this process (tests and benchmarks close them). */
export const gateways = new Set<LiveServer>();
