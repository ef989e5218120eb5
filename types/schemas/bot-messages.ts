import Type from 'typebox';
import {
  CONTACTS_MAX,
  E164_PATTERN,
  NOT_BLANK_PATTERN,
  OPTION_DESCRIPTION_MAX,
  OPTION_TITLE_MAX,
  OPTIONS_MAX,
  OPTIONS_MIN,
  SHORT_TEXT_MAX,
} from '../limits.ts';
import { MESSAGE_STATUSES } from '../enums.ts';
import { GivenName, HttpsUrl, Id, MessageText, ShortText, Uuid, lit } from './common.ts';

const Text = MessageText;

/** `buttons.options[]` of a text-with-options message. */
export const ButtonOption = Type.Object({
  title: Type.String({ minLength: 1, maxLength: OPTION_TITLE_MAX, pattern: NOT_BLANK_PATTERN }),
  description: Type.Optional(Type.String({ maxLength: OPTION_DESCRIPTION_MAX })),
  payload: Type.Optional(Type.String({ maxLength: SHORT_TEXT_MAX })),
});
export type ButtonOption = Type.Static<typeof ButtonOption>;

/** The `buttons` object. buttonText defaults to `Opciones`. */
export const Buttons = Type.Object({
  title: Type.Optional(ShortText),
  buttonText: Type.Optional(
    Type.Object({
      type: Type.Literal('text'),
      text: Type.String({ minLength: 1, maxLength: OPTION_TITLE_MAX, pattern: NOT_BLANK_PATTERN }),
    }),
  ),
  options: Type.Array(ButtonOption, { minItems: OPTIONS_MIN, maxItems: OPTIONS_MAX }),
});
export type Buttons = Type.Static<typeof Buttons>;

/** Contact object of a contacts message: every field optional; phones in E.164. */
export const BotContact = Type.Object({
  name: Type.Optional(
    Type.Object({
      formatted_name: Type.Optional(ShortText),
      first_name: Type.Optional(ShortText),
      last_name: Type.Optional(ShortText),
    }),
  ),
  phones: Type.Optional(
    Type.Array(
      Type.Object({
        phone: Type.Optional(Type.String({ pattern: E164_PATTERN })),
        type: Type.Optional(ShortText),
        wa_id: Type.Optional(ShortText),
      }),
      { maxItems: 20 },
    ),
  ),
  emails: Type.Optional(
    Type.Array(
      Type.Object({
        email: Type.Optional(Type.String({ format: 'idn-email', maxLength: 320 })),
        type: Type.Optional(ShortText),
      }),
      { maxItems: 20 },
    ),
  ),
  addresses: Type.Optional(
    Type.Array(
      Type.Object({
        street: Type.Optional(ShortText),
        city: Type.Optional(ShortText),
        state: Type.Optional(ShortText),
        zip: Type.Optional(ShortText),
        country: Type.Optional(ShortText),
        country_code: Type.Optional(ShortText),
        type: Type.Optional(ShortText),
      }),
      { maxItems: 20 },
    ),
  ),
});
export type BotContact = Type.Static<typeof BotContact>;

/**
 * `id` is ours, optional: the message's id, a UUID of the caller's making. The same request again
 * (a retry after a timeout) stores nothing new and answers that id; the same id with another
 * message, user or bot is 400.
 */
const base = { userId: Id, botId: Type.Optional(Id), id: Type.Optional(Uuid) };

export const TextBotMessage = Type.Object({ type: Type.Literal('text'), text: Text, ...base });
export const TextWithOptionsBotMessage = Type.Object({
  type: Type.Literal('text'),
  text: Text,
  buttons: Buttons,
  ...base,
});
export const ContactsBotMessage = Type.Object({
  type: Type.Literal('contacts'),
  contacts: Type.Array(BotContact, { minItems: 1, maxItems: CONTACTS_MAX }),
  ...base,
});
export const VoiceCallBotMessage = Type.Object({
  type: Type.Literal('voice_call'),
  /** A heading above the message: none (empty), or one line of visible text. */
  header: Type.Optional(GivenName),
  text: Text,
  parameters: Type.Object({
    display_text: Type.String({ minLength: 1, maxLength: SHORT_TEXT_MAX, pattern: NOT_BLANK_PATTERN }),
  }),
  ...base,
});
export const VideoBotMessage = Type.Object({
  type: Type.Literal('video'),
  mediaUrl: HttpsUrl,
  /** The caption: a caption's limit, not a text's, and not blank. */
  text: Type.Optional(Type.String({ minLength: 1, maxLength: SHORT_TEXT_MAX, pattern: NOT_BLANK_PATTERN })),
  ...base,
});
export const ContactInfoRequestBotMessage = Type.Object({
  type: Type.Literal('contact_info_request'),
  text: Text,
  ...base,
});

export type TextBotMessage = Type.Static<typeof TextBotMessage>;
export type TextWithOptionsBotMessage = Type.Static<typeof TextWithOptionsBotMessage>;
export type ContactsBotMessage = Type.Static<typeof ContactsBotMessage>;
export type VoiceCallBotMessage = Type.Static<typeof VoiceCallBotMessage>;
export type VideoBotMessage = Type.Static<typeof VideoBotMessage>;
export type ContactInfoRequestBotMessage = Type.Static<typeof ContactInfoRequestBotMessage>;

/** The six variants, told apart by `type` and, for options, by `buttons`. */
export type BotMessage =
  | TextBotMessage
  | TextWithOptionsBotMessage
  | ContactsBotMessage
  | VoiceCallBotMessage
  | VideoBotMessage
  | ContactInfoRequestBotMessage;

/** All six variants as one schema (for documentation; validation picks one with {@link botMessageSchemaFor}). */
export const BotMessageSchema = Type.Union([
  TextWithOptionsBotMessage,
  TextBotMessage,
  ContactsBotMessage,
  VoiceCallBotMessage,
  VideoBotMessage,
  ContactInfoRequestBotMessage,
]);

/**
 * Picks the variant schema for a body by its `type` (and `buttons` for text),
 * so validation errors name the fields of that variant only. Undefined when
 * the type is not one of the six.
 */
export function botMessageSchemaFor(body: unknown) {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  switch (b['type']) {
    case 'text':
      return b['buttons'] === undefined ? TextBotMessage : TextWithOptionsBotMessage;
    case 'contacts':
      return ContactsBotMessage;
    case 'voice_call':
      return VoiceCallBotMessage;
    case 'video':
      return VideoBotMessage;
    case 'contact_info_request':
      return ContactInfoRequestBotMessage;
    default:
      return undefined;
  }
}

/** A bot message without its recipient: what a campaign sends to each recipient. */
export type BotMessageContent = DistributiveOmit<BotMessage, 'userId' | 'botId' | 'id'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export const BotMessageContent = Type.Union([
  Type.Omit(TextWithOptionsBotMessage, ['userId', 'botId', 'id']),
  Type.Omit(TextBotMessage, ['userId', 'botId', 'id']),
  Type.Omit(ContactsBotMessage, ['userId', 'botId', 'id']),
  Type.Omit(VoiceCallBotMessage, ['userId', 'botId', 'id']),
  Type.Omit(VideoBotMessage, ['userId', 'botId', 'id']),
  Type.Omit(ContactInfoRequestBotMessage, ['userId', 'botId', 'id']),
]);

export const BotIdParams = Type.Object({ botId: Id });
/** GET /v1/bots/{botId}/messages/{messageId}: any id of up to 200 characters (a UUID in any case). */
export const BotMessageParams = Type.Object({ botId: Id, messageId: Id });

/** Bot message send result. */
export const BotMessageResult = Type.Object({ success: Type.Boolean(), messageId: Type.String() });
export type BotMessageResult = Type.Static<typeof BotMessageResult>;

/** A bot message's current status, as the send result's messageId tracks it. */
export const BotMessageStatus = Type.Object({
  messageId: Type.String(),
  botId: Type.String(),
  /** The bot's room with the user. */
  roomId: Type.String(),
  /** The user the bot's room is with (the message's recipient). */
  userId: Type.String(),
  status: lit(MESSAGE_STATUSES),
  /** When the service stored it: ISO 8601, UTC. */
  createdAt: Type.String({ format: 'date-time' }),
});
export type BotMessageStatus = Type.Static<typeof BotMessageStatus>;
