/**
 * POST /v1/rooms/{roomId}/message: external messages into an active room,
 * idempotent on each message's UUID. The 200 body lists the ids stored now
 * (messageIds) and those that were already there (duplicates).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type, { type Static, type TSchema } from 'typebox';
import { RoomIdParams, RoomPostBody, RoomPostMessage, RoomPostResult } from '../../types/schemas/index.ts';
import {
  charCount,
  MEDIA_MESSAGE_TYPES,
  NOT_BLANK_PATTERN,
  ROOM_POST_MESSAGES_MAX,
  ROUTES,
  SHORT_TEXT_MAX,
  type MessageType,
} from '../../types/index.ts';
import { Id } from '../../types/schemas/index.ts';
import { canonicalJson } from '../../types/canonical-json.ts';
import { requireBasic } from '../http/auth.ts';
import { ApiError, validationFailed } from '../http/errors.ts';
import { check, storedId, validatorCompiler, type Checked } from '../http/validation.ts';
import { mediaUrlProblem } from '../bot-message.ts';
import { errorResponses, ok } from './common.ts';

const NOT_BLANK = new RegExp(NOT_BLANK_PATTERN, 'u');

const [PostText, PostMedia] = (RoomPostMessage as unknown as { anyOf: [TSchema, TSchema] }).anyOf;
const Envelope = Type.Object({
  senderId: Id,
  messages: Type.Array(Type.Unknown(), { minItems: 1, maxItems: ROOM_POST_MESSAGES_MAX }),
});

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The envelope, then each message against the shape its type names (text for TEXT, mediaUrl otherwise). */
export function checkRoomPost(data: unknown): Checked {
  const top = check(Envelope, data);
  const errors: Record<string, string> = top.ok ? {} : { ...top.errors };
  const messages = isObject(data) ? data['messages'] : undefined;
  if (Array.isArray(messages) && messages.length <= ROOM_POST_MESSAGES_MAX) {
    messages.forEach((m, i) => {
      const at = `/messages/${i}`;
      if (!isObject(m)) {
        errors[at] = 'must be object';
        return;
      }
      const type = m['type'];
      const schema =
        type === 'TEXT'
          ? PostText
          : (MEDIA_MESSAGE_TYPES as readonly unknown[]).includes(type)
            ? PostMedia
            : undefined;
      if (!schema) {
        errors[`${at}/type`] =
          type === undefined ? 'is required' : `must be TEXT or one of ${MEDIA_MESSAGE_TYPES.join(', ')}`;
        if (m['id'] === undefined) errors[`${at}/id`] = 'is required';
        return;
      }
      const r = check(schema, m, at);
      if (!r.ok) Object.assign(errors, r.errors);
      // A media message's text is its caption (when it gives none): held to a caption's limit.
      const text = m['text'];
      if (schema === PostMedia && m['caption'] === undefined && typeof text === 'string')
        if (charCount(text) > SHORT_TEXT_MAX)
          errors[`${at}/text`] =
            `is this media message's caption: must be at most ${SHORT_TEXT_MAX} characters`;
    });
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, value: data };
}

export async function roomRoutes(app: FastifyInstance): Promise<void> {
  const charla = app.charla;
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    ROUTES.roomMessage,
    {
      schema: {
        tags: ['Rooms'],
        summary: 'Post messages into a room',
        operationId: 'postRoomMessage',
        description:
          'External messages into an active room. Each message needs a UUID id (the idempotency key), a type, text when TEXT, an https mediaUrl otherwise. Answers the ids stored now and the ids that were already stored in this room; an id used in another room is 400 and nothing is stored.',
        security: [{ basicAuth: [] }, { companyToken: [] }],
        params: RoomIdParams,
        body: RoomPostBody,
        response: { 200: RoomPostResult, ...errorResponses(401, 404) },
      },
      validatorCompiler: validatorCompiler({ body: checkRoomPost }),
      onRequest: requireBasic(charla.config, { allowCompanyToken: true }),
    },
    async (request) => {
      // Room ids are UUIDs the service makes in lower case; a caller may write them in capitals.
      const roomId = storedId(request.params.roomId);
      const { senderId, messages } = request.body;
      const bad: Record<string, string> = {};
      // Told apart by type: a TEXT's mediaUrl is a field its type does not have, ignored as any other.
      messages.forEach((m, i) => {
        if (m.type !== 'TEXT') {
          const problem = mediaUrlProblem(m.mediaUrl, charla.config.allowLoopbackMedia);
          if (problem) bad[`/messages/${i}/mediaUrl`] = problem;
        }
      });
      // What each message stores: what makes two copies of an id the same message (fields its
      // type does not have, or unknown ones, are ignored here as they are when it is stored).
      const contents = messages.map(storedContent);
      // One id twice in a request is one message sent twice (the second is its
      // duplicate); with other content it would be silently dropped, so it is refused.
      const firstAt = new Map<string, number>();
      messages.forEach((m, i) => {
        const id = m.id.toLowerCase();
        const j = firstAt.get(id);
        if (j === undefined) firstAt.set(id, i);
        else if (canonicalJson(contents[j]) !== canonicalJson(contents[i]))
          bad[`/messages/${i}/id`] = `repeats the id of /messages/${j} with other content`;
      });
      if (Object.keys(bad).length) throw validationFailed(bad);
      const room = await charla.messaging.findRoom(roomId, senderId);
      // Another company's room (a storage shared by several deployments) is not found, as one that does not exist.
      if (!room || room.companyId !== charla.config.companyId)
        throw new ApiError('NOT_FOUND', { message: `Room ${roomId} does not exist.`, data: { roomId } });
      // The room's bot speaks as the bot, under its name (as its messages and campaigns), and so
      // does another bot of the company (a group room has none of its own); anyone else (a
      // system, a flow, an operator's id) as the service.
      const ownBot = room.botId !== null && senderId === room.botId;
      const botName = ownBot ? room.botName : (room.senderBotName ?? null);
      const by = ownBot || botName !== null ? 'bot' : 'charla';
      // UUIDs are case-insensitive: one message whichever case its id is written in.
      const ids = messages.map((m) => m.id.toLowerCase());
      const { results, clash, conflict } = await charla.messaging.deliverAll(
        roomId,
        messages.map((m, i) => ({
          id: ids[i] as string,
          roomId,
          senderId,
          by,
          ...(botName ? { senderNames: botName } : {}),
          ...(contents[i] as ReturnType<typeof storedContent>),
        })),
      );
      // An id already used in another room (ids are global), or in this room by another
      // message (a retry must repeat the message it retries): nothing of the request was stored.
      if (clash.length > 0 || conflict.length > 0) {
        const taken = new Set(clash);
        const differs = new Set(conflict);
        const bad: Record<string, string> = {};
        ids.forEach((id, i) => {
          if (taken.has(id)) bad[`/messages/${i}/id`] = 'is already the id of a message in another room';
          else if (differs.has(id))
            bad[`/messages/${i}/id`] = 'is already the id of another message in this room (other content)';
        });
        throw validationFailed(bad);
      }
      const messageIds: string[] = [];
      const duplicates: string[] = [];
      results.forEach((r, i) => (r.duplicate ? duplicates : messageIds).push(ids[i] as string));
      return ok('Messages posted successfully.', { roomId, messageIds, duplicates });
    },
  );
}

/** The fields a posted message stores by its type: a TEXT its text; a media message its address and caption. */
function storedContent(m: Static<typeof RoomPostBody>['messages'][number]) {
  const type = m.type as MessageType;
  if (m.type === 'TEXT') return { type, text: m.text };
  return {
    type,
    mediaUrl: m.mediaUrl,
    // A blank caption is no caption: the text, if it says something, is.
    ...(m.caption !== undefined && NOT_BLANK.test(m.caption)
      ? { caption: m.caption }
      : m.text && NOT_BLANK.test(m.text)
        ? { caption: m.text }
        : {}),
  };
}
