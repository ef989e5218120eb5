/**
 * The widget's own API (ROUTES.widget*): the session, rooms, members,
 * history, flows, uploads and media refresh. Every route but the session takes
 * `Authorization: Bearer <token>`; every route checks the Origin against the
 * widget's lists; every room route checks membership (403 NOT_A_MEMBER).
 *
 * CORS, scoped to these routes (widget creation is server to server and not
 * here): a preflight cannot name its widget (browsers send neither the body
 * nor the Authorization header with it), so it is answered for any origin; the
 * real request is where the lists are enforced, and a refused origin gets its
 * 403 without Access-Control-Allow-Origin. Other answers (including a 401,
 * so a widget can see that it must open a new session) carry
 * Access-Control-Allow-Origin for the caller's origin.
 */
import { shortenFileName } from '../../types/file-names.ts';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import Type from 'typebox';
import {
  charCount,
  GET_MESSAGES_LIMIT_DEFAULT,
  MEDIA_URL_TTL_DEFAULT,
  ROOM_MEMBERS_MAX,
  ROUTES,
  UPLOAD_IMAGE_MAX_BYTES,
  UPLOAD_MEDIA_MAX_BYTES,
  UPLOAD_MEDIA_TYPES,
  type ApiResponse,
  type MemberType,
} from '../../types/index.ts';
import {
  AddMemberBody,
  FlowIdParams,
  GetMessagesQuery,
  OpenRoomWithUserBody,
  SessionBody,
  SetFlowBody,
  UserIdBody,
  WidgetAddMembersBody,
  WidgetRefreshBody,
} from '../../types/schemas/index.ts';
import { parseAddress } from '../../types/urls.ts';
import { withoutDirectionControls } from '../names.ts';
import { ApiError, validationFailed } from '../http/errors.ts';
import { storedId, unstorableText } from '../http/validation.ts';
import {
  bearerToken,
  checkIdentity,
  checkOrigin,
  unprovenSession,
  type SessionClaims,
  type Sessions,
  type WidgetAccess,
} from './session.ts';
import type { LiveMessaging } from './messaging.ts';
import { history, loadMembers, loadRoom, loadRooms, membership, roomIdsOf } from './store.ts';
import { claimSessionUser, keepsBotRoom, refuseBotIds } from './rooms.ts';
import { UploadLimits } from './upload-limit.ts';
import { NewUserLimits } from './new-user-limit.ts';
import { mediaSentIn, mediaVisible } from './media-rooms.ts';
import { discardMediaChunks, MediaTooLarge, writeMediaChunks } from '../media-store.ts';
import type { Reclaimer } from '../store/reclaim.ts';
import type { FlowRunner } from './flows.ts';
import type { Hub } from './hub.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The widget session of a widget API call (set by the live plugin's auth hook). */
    liveSession: { claims: SessionClaims; access: WidgetAccess } | null;
  }
}

const RoomParams = Type.Object({ roomId: Type.String({ minLength: 1, maxLength: 200 }) });

const ok = (message: string[] = []): ApiResponse => ({ message, status: true, statusMessage: 'success' });

function originOf(request: FastifyRequest): string | undefined {
  const o = request.headers.origin;
  return typeof o === 'string' ? o : undefined;
}

function session(request: FastifyRequest): { claims: SessionClaims; access: WidgetAccess } {
  if (!request.liveSession) throw new ApiError('UNAUTHORIZED');
  return request.liveSession;
}

/** Most characters of a stored file name (code points), its extension kept. */
const FILE_NAME_MAX = 200;

/**
 * An uploaded file's name as stored and given back: no control characters or
 * slashes, no explicit direction controls (a client that saves the download
 * under it would show `factura\u202Efdp.exe` as a PDF), at most FILE_NAME_MAX
 * characters counted whole (never half an emoji), a longer one cut before its
 * extension, so a download still saves as the kind of file it is.
 */
export const storedName = (raw: string): string =>
  shortenFileName(
    withoutDirectionControls(raw).replace(/[\u0000-\u001f\u007f/\\]/g, '_') || 'file',
    FILE_NAME_MAX,
    charCount,
  );

export interface WidgetRouteDeps {
  hub: Hub;
  sessions: Sessions;
  messaging: LiveMessaging;
  flows: FlowRunner;
  /** Gives the store the room of an upload's pieces thrown away (the embedded store). */
  reclaim?: Reclaimer;
}

export async function widgetRoutes(app: FastifyInstance, deps: WidgetRouteDeps): Promise<void> {
  const { hub, sessions, messaging, flows, reclaim } = deps;
  const { db, signer } = app.charla;
  const rooms = messaging.rooms;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { uploadsPerHour, uploadMbPerHour } = app.charla.config;
  const uploadLimits = new UploadLimits(uploadsPerHour, uploadMbPerHour * 1024 * 1024);
  /**
   * Uploads whose pieces are being written. A stop cuts them after its grace period, and their
   * request may never learn (the stream just stops): their pieces are removed as the service
   * closes, before its store does (onClose hooks run last registered first), not left for the
   * next start's sweep (an hour away on PostgreSQL). A file whose row was written is kept.
   */
  const uploading = new Set<string>();
  app.addHook('onClose', async () => {
    for (const key of uploading) {
      await db
        .query(
          'DELETE FROM media_chunks WHERE media_key = $1 AND NOT EXISTS (SELECT 1 FROM media WHERE key = $1)',
          [key],
        )
        .catch((err: unknown) => app.log.warn({ err, key }, 'could not remove the pieces of a cut upload'));
    }
    uploading.clear();
  });
  const newUsers = new NewUserLimits(app.charla.config.newUsersPerHour);

  await app.register(multipart, {
    limits: { fileSize: UPLOAD_MEDIA_MAX_BYTES, files: 1, fields: 10, fieldSize: 10_000 },
  });

  app.decorateRequest('liveSession', null);

  // Preflight for every widget route (widget creation excepted). Widget creation, and an OPTIONS
  // that is no preflight (no Origin), get what any other path answers: 405 with Allow, or 404.
  app.options('/v1/widget/*', async (request, reply) => {
    const origin = originOf(request);
    if (request.url.startsWith(ROUTES.createWidget) || !origin) return reply.callNotFound();
    return reply
      .code(204)
      .header('Access-Control-Allow-Origin', origin)
      .header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
      .header('Access-Control-Allow-Headers', 'authorization, content-type')
      .header('Access-Control-Max-Age', '600')
      .header('Vary', 'Origin')
      .send();
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const origin = originOf(request);
    if (origin) reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
    if (request.routeOptions.url === ROUTES.widgetSession) return;
    try {
      request.liveSession = await sessions.authorize(bearerToken(request.headers.authorization), origin);
    } catch (err) {
      refuseCors(err, reply);
      throw err;
    }
  });

  /** A room route's guard: the caller must be a member of a room of its company. */
  async function requireMember(request: FastifyRequest, roomId: string) {
    const { claims } = session(request);
    const m = await membership(db, roomId, claims.uid);
    if (!m || m.companyId !== claims.cid) throw new ApiError('NOT_A_MEMBER');
    return m;
  }

  /** Takes `count` of the address's new users of the hour, or answers 429 with when to try again. */
  function takeNewUsers(request: FastifyRequest, reply: FastifyReply, count: number): void {
    const waitMs = count > 0 ? newUsers.take(request.ip, Date.now(), count) : 0;
    if (waitMs <= 0) return;
    reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
    throw new ApiError('RATE_LIMITED', {
      message: `Too many new users from this address: wait ${Math.ceil(waitMs / 1000)} s.`,
      data: { retryAfterMs: waitMs },
    });
  }

  /**
   * The ids of `userIds` the company does not know yet take the address's new users (all or none).
   * Known: a user of the company, or a member of one of its rooms (the business wrote to them: a
   * bot message or a campaign made them a member of its bot's room before any session of theirs).
   */
  async function admitUsers(
    request: FastifyRequest,
    reply: FastifyReply,
    companyId: string,
    userIds: string[],
  ): Promise<void> {
    const ids = [...new Set(userIds)];
    const known = await db.query<{ id: string }>(
      `SELECT id FROM live_users WHERE company_id = $1 AND id = ANY($2)
       UNION SELECT user_id FROM room_members WHERE company_id = $1 AND user_id = ANY($2)`,
      [companyId, ids],
    );
    takeNewUsers(request, reply, ids.length - known.rows.length);
  }

  /**
   * A room may take `userIds` (those not in it yet) within ROOM_MEMBERS_MAX; else 400 naming `at`.
   * Asked first, so a full room takes none of the address's new users; the add checks it again in
   * its transaction (rooms.addMembers), where adds running at once take turns.
   */
  async function roomHasSpace(roomId: string, userIds: string[], at: string): Promise<void> {
    const r = await db.query<{ present: string | number; already: string | number }>(
      `SELECT count(*) AS present, count(*) FILTER (WHERE user_id = ANY($2)) AS already
       FROM room_members WHERE room_id = $1`,
      [roomId, [...new Set(userIds)]],
    );
    const present = Number(r.rows[0]?.present ?? 0);
    const coming = new Set(userIds).size - Number(r.rows[0]?.already ?? 0);
    if (present + coming > ROOM_MEMBERS_MAX)
      throw validationFailed({
        [at]: `would take the room past ${ROOM_MEMBERS_MAX} members (it has ${present})`,
      });
  }

  r.post(ROUTES.widgetSession, { schema: { body: SessionBody } }, async (request, reply) => {
    const body = request.body;
    // Unlike the other routes, a refusal here stays readable by the page (it
    // carries no data), so the widget can say why it cannot start.
    const access = await sessions.accessByKey(body.apiKey);
    checkOrigin(access, originOf(request));
    const identity = checkIdentity(access, body.userId, body.userHash);
    // The bot's id is public (every session answer names it): as a user id it would open every
    // conversation of the bot.
    if (body.userId !== undefined) await refuseBotIds(db, access.companyId, [body.userId], () => '/userId');
    // A visitor the company does not know yet takes one of its address's new users of the hour.
    if (body.userId === undefined) takeNewUsers(request, reply, 1);
    else await admitUsers(request, reply, access.companyId, [body.userId]);
    const userId = body.userId ?? randomUUID();
    const names = body.userNames ?? null;
    // Users are per company: a user id verified on one widget must be proven on every one of them.
    const claimed = await claimSessionUser(db, access.companyId, userId, names, identity);
    if (!claimed) throw unprovenSession(body.userHash);
    if (claimed.newlyVerified) {
      sessions.markVerified(access.companyId, userId);
      await hub.closeUnproven(access.companyId, userId);
    }
    const { roomId } = await rooms.ensureBotRoom({
      botId: access.botId,
      userId,
      storedNames: claimed.names,
      ...(body.userNames !== undefined ? { userNames: body.userNames } : {}),
    });
    const [bot, company] = await Promise.all([
      db.query<{
        id: string;
        name: string;
        type: string;
        company_id: string;
        calling_enabled: boolean;
        created_at: Date | string;
        updated_at: Date | string;
      }>('SELECT * FROM bots WHERE id = $1', [access.botId]),
      db.query<{ name: string }>('SELECT name FROM companies WHERE id = $1', [access.companyId]),
    ]);
    const b = bot.rows[0];
    if (!b) throw new ApiError('NOT_FOUND', { message: 'The widget has no bot.' });
    const { token, expiresAt } = sessions.issue(access, userId, Date.now(), identity.proven);
    flows.greet({ roomId, botId: access.botId, userId, language: body.language });
    const cfg = access.config;
    const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
    return {
      token,
      expiresAt,
      user: { id: userId, names: claimed.names },
      widget: {
        id: access.widgetId,
        properties: obj(cfg['properties']),
        theme: obj(cfg['theme']),
        credentials: obj(cfg['credentials']),
        config: cfg,
      },
      bot: {
        id: b.id,
        name: b.name,
        type: b.type,
        companyId: b.company_id,
        callingEnabled: b.calling_enabled,
        createdAt: new Date(b.created_at).toISOString(),
        updatedAt: new Date(b.updated_at).toISOString(),
      },
      botRoomId: roomId,
      company: { id: access.companyId, name: company.rows[0]?.name ?? '' },
    };
  });

  r.get(ROUTES.widgetRooms, async (request) => {
    const { claims } = session(request);
    const ids = await roomIdsOf(db, claims.uid, claims.cid);
    return { rooms: await loadRooms(db, ids, claims.uid) };
  });

  r.post(ROUTES.widgetDirectRoom, { schema: { body: OpenRoomWithUserBody } }, async (request, reply) => {
    const { claims } = session(request);
    const other = { id: String(request.body.id), names: request.body.names ?? null };
    await refuseBotIds(db, claims.cid, [other.id], () => '/id');
    await admitUsers(request, reply, claims.cid, [other.id]);
    const { roomId } = await rooms.openDirect(claims.cid, { id: claims.uid }, other);
    const room = await loadRoom(db, roomId, claims.uid);
    if (!room) throw new ApiError('NOT_FOUND');
    return room;
  });

  r.get(ROUTES.widgetRoom, { schema: { params: RoomParams } }, async (request) => {
    await requireMember(request, request.params.roomId);
    const room = await loadRoom(db, request.params.roomId, session(request).claims.uid);
    if (!room) throw new ApiError('NOT_A_MEMBER');
    return room;
  });

  r.get(ROUTES.widgetRoomMembers, { schema: { params: RoomParams } }, async (request) => {
    await requireMember(request, request.params.roomId);
    return { members: await loadMembers(db, request.params.roomId) };
  });

  r.post(
    ROUTES.widgetRoomMembers,
    { schema: { params: RoomParams, body: AddMemberBody } },
    async (request, reply) => {
      const { roomId } = request.params;
      await requireMember(request, roomId);
      const m = request.body.member;
      const input =
        typeof m === 'string'
          ? { userId: m }
          : { userId: String(m.id), ...(m.names !== undefined ? { names: m.names } : {}) };
      const at = typeof m === 'string' ? '/member' : '/member/id';
      await refuseBotIds(db, session(request).claims.cid, [input.userId], () => at);
      await roomHasSpace(roomId, [input.userId], at);
      await admitUsers(request, reply, session(request).claims.cid, [input.userId]);
      const { added } = await rooms.addMember(roomId, input, { max: ROOM_MEMBERS_MAX, at });
      return ok([added ? `${input.userId} added` : `${input.userId} is already a member`]);
    },
  );

  r.post(
    ROUTES.widgetRoomMembersBulk,
    { schema: { params: RoomParams, body: WidgetAddMembersBody } },
    async (request, reply) => {
      const { roomId } = request.params;
      await requireMember(request, roomId);
      // All checked before any is added: a refused list adds nobody.
      const ids = request.body.members.map((item) => item.referenceId);
      await refuseBotIds(db, session(request).claims.cid, ids, (i) => `/members/${i}/referenceId`);
      await roomHasSpace(roomId, ids, '/members');
      await admitUsers(request, reply, session(request).claims.cid, ids);
      const members = request.body.members;
      const added = await rooms.addMembers(
        roomId,
        members.map((item) => ({
          userId: item.referenceId,
          memberType: item.memberType ?? ('Client' satisfies MemberType),
          ...(item.names !== undefined ? { names: item.names } : {}),
        })),
        { max: ROOM_MEMBERS_MAX, at: '/members' },
      );
      return ok(
        members.map((item, i) =>
          added[i] ? `${item.referenceId} added` : `${item.referenceId} is already a member`,
        ),
      );
    },
  );

  r.post(
    ROUTES.widgetRoomJoin,
    { schema: { params: RoomParams, body: UserIdBody } },
    async (request, reply) => {
      const { roomId } = request.params;
      const { claims } = session(request);
      const { userId } = request.body;
      const mine = await membership(db, roomId, claims.uid);
      if (mine && mine.companyId === claims.cid) {
        // A member may bring anyone in, but no bot (a non-member may only come in as themselves).
        await refuseBotIds(db, claims.cid, [userId], () => '/userId');
        await admitUsers(request, reply, claims.cid, [userId]);
      } else {
        // A user may join a group room of their company by themselves; anything
        // else needs a member to do it.
        const room = await messaging.findRoom(roomId);
        const selfJoinGroup =
          room && room.companyId === claims.cid && userId === claims.uid && room.type === 'group';
        if (!selfJoinGroup) throw new ApiError('NOT_A_MEMBER');
        // Taken out by another member: only a member can let them back in.
        if (await rooms.wasRemoved(roomId, userId))
          throw new ApiError('FORBIDDEN', {
            message: 'You were removed from this room; a member can add you back.',
          });
      }
      await roomHasSpace(roomId, [userId], '/userId');
      const { added } = await rooms.addMember(roomId, { userId }, { max: ROOM_MEMBERS_MAX, at: '/userId' });
      return ok([added ? `${userId} joined` : `${userId} is already a member`]);
    },
  );

  r.post(ROUTES.widgetRoomLeave, { schema: { params: RoomParams, body: UserIdBody } }, async (request) => {
    const { roomId } = request.params;
    // Leaving again (a retried or double-clicked leave), or a room one was never in: one is out
    // either way, so it succeeds as for anyone else who is not in; the same answer whether the
    // room exists or not.
    const self = request.body.userId === session(request).claims.uid;
    const room = await requireMember(request, roomId).catch((err: unknown) => {
      if (self && err instanceof ApiError && err.key === 'NOT_A_MEMBER') return null;
      throw err;
    });
    if (!room) return ok([`${request.body.userId} was not a member`]);
    // A bot room is the user's conversation with the bot: neither of the two can be taken out of it
    // (the widget would be left with a room it can neither read nor write, for good). Anyone added
    // beside them (an operator) leaves, or is taken out, as from any room.
    if (room.type === 'bot' && (await keepsBotRoom(db, roomId, request.body.userId)))
      throw new ApiError('FORBIDDEN', {
        message: 'A bot room cannot be left: it is the user’s conversation with the bot.',
      });
    const { removed } = await rooms.removeMember(roomId, request.body.userId, session(request).claims.uid);
    // Like joining someone already in: the user is out afterwards either way, so both succeed.
    const done = self ? 'left' : 'was removed';
    return ok([removed ? `${request.body.userId} ${done}` : `${request.body.userId} was not a member`]);
  });

  r.get(
    ROUTES.widgetRoomMessages,
    { schema: { params: RoomParams, querystring: GetMessagesQuery } },
    async (request) => {
      const { roomId } = request.params;
      await requireMember(request, roomId);
      const limit = request.query.limit ?? GET_MESSAGES_LIMIT_DEFAULT;
      // Message UUIDs are stored in lower case and case-insensitive wherever a caller gives one.
      const cursor = request.query.id === undefined ? undefined : storedId(request.query.id);
      const messages = await history(db, roomId, session(request).claims.uid, limit, cursor);
      if (!messages)
        throw new ApiError('NOT_FOUND', { message: `No message ${request.query.id} in this room.` });
      return { messages };
    },
  );

  r.post(ROUTES.widgetFlow, { schema: { params: FlowIdParams, body: SetFlowBody } }, async (request) => {
    const { claims } = session(request);
    const { flowId } = request.params;
    if (!flows.has(claims.bid, flowId)) {
      throw new ApiError('NOT_FOUND', { message: `The bot has no flow ${flowId}.` });
    }
    const { roomId } = await rooms.ensureBotRoom({ botId: claims.bid, userId: claims.uid });
    await flows.start({
      roomId,
      botId: claims.bid,
      userId: claims.uid,
      flowId,
      params: request.body.storedParams ?? {},
    });
    return { ...ok([`flow ${flowId} started`]), roomId, flowId };
  });

  r.post(ROUTES.widgetUpload, { onError: closeOnRefusal }, async (request, reply) => {
    const { claims } = session(request);
    if (!request.isMultipart()) {
      throw new ApiError('UNSUPPORTED_CONTENT_TYPE', { message: 'Send the file as multipart/form-data.' });
    }
    // The hour's allowance of this user and address (upload-limit.ts), before a byte is read: the
    // bytes announced (the largest upload when not) are held until the file is stored or refused.
    const announced = Number(request.headers['content-length']);
    const held =
      Number.isSafeInteger(announced) && announced > 0
        ? Math.min(announced, UPLOAD_MEDIA_MAX_BYTES)
        : UPLOAD_MEDIA_MAX_BYTES;
    const retryAfterMs = uploadLimits.start(claims.cid, claims.uid, request.ip, held);
    if (retryAfterMs > 0) {
      reply.header('retry-after', String(Math.ceil(retryAfterMs / 1000)));
      throw new ApiError('RATE_LIMITED', {
        message: `Too many uploads: wait ${Math.ceil(retryAfterMs / 1000)} s before uploading again.`,
        data: { retryAfterMs },
      });
    }
    let used = 0;
    // What arrived, stored or not: an upload refused or cut short midway counts its bytes against
    // the hour's megabytes too (only its count did, so a client cutting 25 MB uploads at 20 MB
    // wrote 15 GB an hour from one address).
    let received = 0;
    try {
      const file = await request.file().catch(unreadableUpload);
      if (!file)
        throw new ApiError('VALIDATION_ERROR', {
          message: 'No file in the request.',
          validationError: { '/file': 'is required' },
        });
      const contentType = file.mimetype.toLowerCase().split(';')[0]?.trim() ?? '';
      const type = (Object.keys(UPLOAD_MEDIA_TYPES) as (keyof typeof UPLOAD_MEDIA_TYPES)[]).find((t) =>
        (UPLOAD_MEDIA_TYPES[t] as readonly string[]).includes(contentType),
      );
      if (!type) {
        file.file.resume();
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
          message: `Files of type ${contentType || 'unknown'} are not accepted.`,
        });
      }
      // A widget names the room it uploads for: only its members may.
      const roomField = file.fields['roomId'];
      // Given twice, it names no one room: refused, as a repeated query parameter is.
      if (Array.isArray(roomField)) {
        file.file.resume();
        throw validationFailed({ '/roomId': 'must be given once, before the file' });
      }
      const roomId = roomField && 'value' in roomField ? roomField.value : undefined;
      if (typeof roomId === 'string' && roomId !== '') {
        try {
          if (roomId.length > 200 || unstorableText(roomId))
            throw validationFailed({ '/roomId': 'must be a room id (text of at most 200 characters)' });
          await requireMember(request, roomId);
        } catch (err) {
          file.file.resume();
          throw err;
        }
      }
      const max = type === 'IMAGE' ? UPLOAD_IMAGE_MAX_BYTES : UPLOAD_MEDIA_MAX_BYTES;
      const tooLarge = () =>
        new ApiError('PAYLOAD_TOO_LARGE', { message: `The file is over ${max / (1024 * 1024)} MB.` });
      const name = storedName(file.filename || 'file');
      const key = `widget/${randomUUID()}`;
      // Stored piece by piece as it arrives (server/media-store.ts), never whole in memory; the
      // file is nobody's until its media row is written, after the last piece.
      let size: number;
      uploading.add(key);
      try {
        size = await writeMediaChunks(
          db,
          key,
          uploadedBytes(file.file, (n) => (received += n)),
          max,
        );
        if (file.file.truncated) throw tooLarge();
        await db.transaction(async (tx) => {
          await tx.query(
            `INSERT INTO media (key, company_id, content_type, size, name, uploaded_by)
             VALUES ($1, $2, $3, $4, $5, $6)`,
            [key, claims.cid, contentType, size, name, claims.uid],
          );
          // Its members may have it signed afresh (media-rooms.ts); the uploader was checked above.
          if (typeof roomId === 'string' && roomId !== '')
            await mediaSentIn(tx, key, roomId, claims.uid, true);
        });
      } catch (err) {
        file.file.resume();
        await discardMediaChunks(db, key).catch(() => {});
        void reclaim?.pieces();
        throw err instanceof MediaTooLarge ? tooLarge() : err;
      } finally {
        uploading.delete(key);
      }
      used = size;
      return {
        mediaUrl: signer.sign(key, MEDIA_URL_TTL_DEFAULT, app.charla.baseUrlFor(request)),
        type,
        contentType,
        size,
        name,
      };
    } finally {
      uploadLimits.settle(claims.cid, claims.uid, request.ip, held, Math.max(used, received));
    }
  });

  r.post(ROUTES.widgetAssetsRefresh, { schema: { body: WidgetRefreshBody } }, async (request) => {
    const { claims } = session(request);
    // Not an address at all is the caller's format mistake (400), as for the business's refresh.
    const problem = parseAddress(request.body.resourceUrl);
    if (typeof problem === 'string') throw validationFailed({ '/resourceUrl': problem });
    const key = signer.mediaKeyOf(request.body.resourceUrl, app.charla.ownBaseUrls(request));
    if (!key)
      throw new ApiError('SIGNED_URL_ERROR', { message: 'The address is not one of this service’s media.' });
    // Only media the user could see; one that does not exist is refused alike, so keys cannot be probed.
    if (!(await mediaVisible(db, key, claims.cid, claims.uid))) throw new ApiError('NOT_A_MEMBER');
    return { signedUrl: signer.sign(key, MEDIA_URL_TTL_DEFAULT, app.charla.baseUrlFor(request)) };
  });
}

/**
 * A multipart body the parser cannot read (no boundary, cut short before its closing boundary)
 * is the client's mistake: 400, not the parser's plain Error answered as a 500. The plugin's own
 * errors carry their status (413 for a file over the limit) and stay as they are.
 */
function unreadableUpload(err: unknown): never {
  if (err instanceof ApiError || typeof (err as { statusCode?: unknown } | null)?.statusCode === 'number')
    throw err;
  throw validationFailed(
    { '/file': 'must be sent as a whole multipart/form-data body' },
    `The upload could not be read: ${err instanceof Error ? err.message : 'malformed body'}.`,
  );
}

/** The upload's bytes as they arrive; a body the parser cannot read is unreadableUpload's. */
async function* uploadedBytes(
  stream: AsyncIterable<Buffer>,
  onBytes: (n: number) => void,
): AsyncGenerator<Buffer> {
  try {
    for await (const piece of stream) {
      onBytes(piece.length);
      yield piece;
    }
  } catch (err) {
    unreadableUpload(err);
  }
}

/**
 * A refused upload closes its connection: a refusal is mostly sent before the whole body came (too
 * large, not a member, a wrong type, past the allowance), and the rest, unread, would meet the
 * connection's next request (keep-alive clients saw theirs reset). Refusals are rare; a new
 * connection is cheap.
 */
function closeOnRefusal(
  _request: FastifyRequest,
  reply: FastifyReply,
  _err: unknown,
  done: () => void,
): void {
  reply.header('connection', 'close');
  done();
}

/** A refused origin gets no Access-Control-Allow-Origin. */
function refuseCors(err: unknown, reply: FastifyReply): void {
  if (err instanceof ApiError && err.key === 'ORIGIN_NOT_ALLOWED') {
    reply.removeHeader('Access-Control-Allow-Origin');
  }
}
