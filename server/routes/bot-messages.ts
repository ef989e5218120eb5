/**
 * POST /v1/bots/{botId}/messages: the six variants, told apart by `type` and
 * (for options) `buttons`. Each body is validated against its own variant so
 * a 400 names that variant's fields; BotMessageSchema documents them all.
 * GET /v1/bots/{botId}/messages/{messageId}: the status of a message it sent.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type, { type TSchema } from 'typebox';
import {
  BotIdParams,
  BotMessageParams,
  BotMessageResult,
  BotMessageStatus,
  BotMessageSchema,
  botMessageSchemaFor,
  VideoBotMessage,
  type BotMessage,
} from '../../types/schemas/index.ts';
import { BOT_MESSAGE_TYPES, ROUTES, type BotMessageContent } from '../../types/index.ts';
import { requireBasic } from '../http/auth.ts';
import { validationFailed } from '../http/errors.ts';
import { check, validatorCompiler, type Checked } from '../http/validation.ts';
import { sendBotMessage } from '../bot-message.ts';
import { botMessageStatus } from '../bot-message-status.ts';
import { refuseBotIds } from '../live/rooms.ts';
import { errorResponses } from './common.ts';

const withoutRecipient = new WeakMap<object, TSchema>();
function contentSchemaOf(variant: TSchema): TSchema {
  let s = withoutRecipient.get(variant);
  if (!s) {
    s = Type.Omit(variant as never, ['userId', 'botId', 'id']) as TSchema;
    withoutRecipient.set(variant, s);
  }
  return s;
}

/**
 * The video variant as the body is checked: any string as `mediaUrl`. Whether
 * it is an address the service may fetch is the video check's to say, with
 * the interface's 422 INVALID_MEDIA_URL ("address invalid or unreachable"),
 * not a 400 (bot-message.ts, checkVideo). A missing or non-string one is 400.
 */
const VideoWithAnyAddress = Type.Object({ ...VideoBotMessage.properties, mediaUrl: Type.String() });

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function pickVariant(
  data: unknown,
  prefix: string,
): { schema: TSchema } | { errors: Record<string, string> } {
  if (!isObject(data)) return { errors: { [prefix || '/']: 'must be object' } };
  const schema = botMessageSchemaFor(data) as TSchema | undefined;
  if (!schema) {
    const field = `${prefix}/type`;
    return {
      errors: {
        [field]:
          data['type'] === undefined ? 'is required' : `must be one of ${BOT_MESSAGE_TYPES.join(', ')}`,
      },
    };
  }
  return { schema: schema === VideoBotMessage ? VideoWithAnyAddress : schema };
}

/** A whole bot message (with userId), against its variant. */
export function checkBotMessage(data: unknown): Checked {
  const picked = pickVariant(data, '');
  if ('errors' in picked) return { ok: false, errors: picked.errors };
  return check(picked.schema, data);
}

/** A bot message without its recipient (a campaign's message), against its variant. */
export function checkBotMessageContent(data: unknown, prefix: string): Checked {
  const picked = pickVariant(data, prefix);
  if ('errors' in picked) return { ok: false, errors: picked.errors };
  return check(contentSchemaOf(picked.schema), data, prefix);
}

export async function botMessageRoutes(app: FastifyInstance): Promise<void> {
  const charla = app.charla;
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    ROUTES.botMessages,
    {
      schema: {
        tags: ['Bot messages'],
        summary: 'Send a message to a user through a bot',
        operationId: 'sendBotMessage',
        description:
          "Variants: text, text with buttons (1-10 options), contacts, voice_call (bot must have calling enabled, else 403 CALLING_NOT_ENABLED), video (a public https address, else 422 INVALID_MEDIA_URL; the file is checked with HEAD: 422 INVALID_MEDIA_URL, MEDIA_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE), contact_info_request. Ours: an optional id (a UUID of the caller's making) makes a retry safe: the same request again stores nothing and answers that id; the same id with another message, user or bot is 400 at /id.",
        security: [{ basicAuth: [] }],
        params: BotIdParams,
        body: BotMessageSchema,
        response: { 200: BotMessageResult, ...errorResponses(401, 403, 404, 422) },
      },
      validatorCompiler: validatorCompiler({ body: checkBotMessage }),
      onRequest: requireBasic(charla.config),
    },
    async (request) => {
      const { botId } = request.params;
      const body = request.body as BotMessage;
      if (body.botId !== undefined && body.botId !== botId) {
        throw validationFailed({ '/botId': 'must match the botId of the path' });
      }
      const { userId, botId: _ignored, id, ...content } = body;
      // The user is a person: a bot's id would make the bot a visitor of its own room.
      await refuseBotIds(charla.db, charla.config.companyId, [userId], () => '/userId');
      const { messageId } = await sendBotMessage(charla, botId, userId, content as BotMessageContent, id);
      return { success: true, messageId };
    },
  );
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    ROUTES.botMessage,
    {
      schema: {
        tags: ['Bot messages'],
        summary: 'Track the status of a message a bot sent',
        operationId: 'getBotMessage',
        description:
          'The messageId of the send result (a UUID, in any case). status: DELIVERED (stored; the user had no widget connected), DELIVERED_CHANNEL (pushed to an open widget of the user), DELIVERED_USER (the user’s widget showed it); it never moves back. userId is the user the bot’s room is with. 404 NOT_FOUND for an id this bot did not send in one of its rooms (an unknown id, another bot’s message, the user’s own message).',
        security: [{ basicAuth: [] }],
        params: BotMessageParams,
        response: { 200: BotMessageStatus, ...errorResponses(401, 404) },
      },
      onRequest: requireBasic(charla.config),
    },
    async (request) => {
      const { botId, messageId } = request.params;
      return botMessageStatus(charla.db, charla.config.companyId, botId, messageId);
    },
  );
}
