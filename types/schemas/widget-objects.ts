import Type from 'typebox';
import { MEMBER_TYPES, MESSAGE_BY, MESSAGE_STATUSES, ROOM_TYPES } from '../enums.ts';
import { ADD_MEMBERS_MAX, MESSAGE_TEXT_MAX, SHORT_TEXT_MAX } from '../limits.ts';
import { AnyObject, HttpsUrl, Id, MessageText, ShortText, StringMap, Uuid, lit } from './common.ts';
import { BotContact } from './bot-messages.ts';

/** Contact used to start chats (and room contacts, same shape). */
export const Contact = Type.Object({
  id: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Number()]),
  avatar: Type.Optional(Type.String({ maxLength: 2048 })),
  names: Type.Optional(ShortText),
  color: Type.Optional(Type.String({ maxLength: 50 })),
  type: Type.Optional(Type.String({ maxLength: 50 })),
});
export type Contact = Type.Static<typeof Contact>;

export const Member = Type.Object({
  id: Type.String(),
  legalId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  names: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  referenceId: Type.String(),
  roomId: Type.String(),
  groupRoomId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  botId: Type.Union([Type.String(), Type.Null()]),
  companyId: Type.String(),
  socketId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  memberType: lit(MEMBER_TYPES),
});
export type Member = Type.Static<typeof Member>;

/** One option of an options message (ours: the interface's `options` object, as a list). */
export const MessageOption = Type.Object({
  type: Type.String(),
  title: Type.String(),
  payload: AnyObject,
  order: Type.Number(),
  url: Type.Optional(Type.String()),
  /** Ours: the option's description under its title. */
  description: Type.Optional(Type.String()),
});
export type MessageOption = Type.Static<typeof MessageOption>;

/** One quick reply chip (ours: the interface's `QuickReplies` object, as a list). */
export const QuickReply = Type.Object({
  title: Type.String(),
  payload: AnyObject,
  contentType: Type.String(),
  imageUrl: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  repliable: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
});
export type QuickReply = Type.Static<typeof QuickReply>;

/**
 * Ours: the bot's rich variants on a widget message, rendered as buttons, a
 * contact card, a call button or a small form. Options themselves are in `options`.
 */
export const Interactive = Type.Union([
  Type.Object({
    kind: Type.Literal('options'),
    buttonText: Type.String(),
    title: Type.Optional(Type.String()),
  }),
  Type.Object({ kind: Type.Literal('contacts'), contacts: Type.Array(BotContact) }),
  Type.Object({
    kind: Type.Literal('voice_call'),
    header: Type.Optional(Type.String()),
    displayText: Type.String(),
  }),
  Type.Object({ kind: Type.Literal('contact_info_request') }),
]);
export type Interactive = Type.Static<typeof Interactive>;

const baseFields = {
  id: Type.Union([Type.String(), Type.Number()]),
  roomId: Type.String(),
  senderId: Type.String(),
  createdAt: Type.String(),
  timestamp: Type.Number(),
  by: lit(MESSAGE_BY),
  status: lit(MESSAGE_STATUSES),
  senderNames: Type.Optional(Type.String()),
  options: Type.Optional(Type.Array(MessageOption)),
  QuickReplies: Type.Optional(Type.Array(QuickReply)),
  /** Ours: the room's sequence number, given by the service (absent while CREATED). */
  seq: Type.Optional(Type.Integer()),
  /** Ours: the bot's rich variant, when there is one. */
  interactive: Type.Optional(Interactive),
  /** Ours: why a FAILED message failed. */
  error: Type.Optional(Type.Object({ code: Type.String(), key: Type.String(), description: Type.String() })),
};

export const TextMessage = Type.Object({ ...baseFields, type: Type.Literal('TEXT'), text: Type.String() });
export const ImageMessage = Type.Object({
  ...baseFields,
  type: Type.Literal('IMAGE'),
  mediaUrl: Type.String(),
  caption: Type.Optional(Type.String()),
});
export const AudioMessage = Type.Object({
  ...baseFields,
  type: Type.Literal('AUDIO'),
  mediaUrl: Type.String(),
});
export const VideoMessage = Type.Object({
  ...baseFields,
  type: Type.Literal('VIDEO'),
  mediaUrl: Type.String(),
  caption: Type.Optional(Type.String()),
});
export const DocumentMessage = Type.Object({
  ...baseFields,
  type: Type.Literal('DOCUMENT'),
  mediaUrl: Type.String(),
  caption: Type.Optional(Type.String()),
});
/** FILE is named by the interface without fields of its own; we give it DOCUMENT's. */
export const FileMessage = Type.Object({
  ...baseFields,
  type: Type.Literal('FILE'),
  mediaUrl: Type.String(),
  caption: Type.Optional(Type.String()),
});
export const LocationMessage = Type.Object({
  ...baseFields,
  type: Type.Literal('LOCATION'),
  lat: Type.String(),
  lng: Type.String(),
});
export const PostbackMessage = Type.Object({
  ...baseFields,
  type: Type.Literal('POSTBACK'),
  text: Type.String(),
  payload: AnyObject,
});
export const EventMessage = Type.Object({
  ...baseFields,
  type: Type.Literal('EVENT'),
  slug: Type.String(),
  description: Type.String(),
  eventPayload: StringMap,
});

export type TextMessage = Type.Static<typeof TextMessage>;
export type ImageMessage = Type.Static<typeof ImageMessage>;
export type AudioMessage = Type.Static<typeof AudioMessage>;
export type VideoMessage = Type.Static<typeof VideoMessage>;
export type DocumentMessage = Type.Static<typeof DocumentMessage>;
export type FileMessage = Type.Static<typeof FileMessage>;
export type LocationMessage = Type.Static<typeof LocationMessage>;
export type PostbackMessage = Type.Static<typeof PostbackMessage>;
export type EventMessage = Type.Static<typeof EventMessage>;

/** Every widget message, told apart by `type`. */
export type Message =
  | TextMessage
  | ImageMessage
  | AudioMessage
  | VideoMessage
  | DocumentMessage
  | FileMessage
  | LocationMessage
  | PostbackMessage
  | EventMessage;
export const MessageSchema = Type.Union([
  TextMessage,
  ImageMessage,
  AudioMessage,
  VideoMessage,
  DocumentMessage,
  FileMessage,
  LocationMessage,
  PostbackMessage,
  EventMessage,
]);

/* ---- What a widget sends: the type's fields; the service fills the rest. ---- */

const outBase = {
  /** Client-made UUID: the idempotency key. */
  id: Uuid,
  roomId: Id,
  senderNames: Type.Optional(ShortText),
};
const MediaUrl = HttpsUrl;
const OutText = Type.Object({
  ...outBase,
  type: Type.Literal('TEXT'),
  text: MessageText,
});
const OutImage = Type.Object({
  ...outBase,
  type: Type.Literal('IMAGE'),
  mediaUrl: MediaUrl,
  caption: Type.Optional(ShortText),
});
const OutAudio = Type.Object({ ...outBase, type: Type.Literal('AUDIO'), mediaUrl: MediaUrl });
const OutVideo = Type.Object({
  ...outBase,
  type: Type.Literal('VIDEO'),
  mediaUrl: MediaUrl,
  caption: Type.Optional(ShortText),
});
const OutDocument = Type.Object({
  ...outBase,
  type: Type.Literal('DOCUMENT'),
  mediaUrl: MediaUrl,
  caption: Type.Optional(ShortText),
});
const Coordinate = Type.String({ pattern: '^-?[0-9]{1,3}(\\.[0-9]{1,15})?$' });
const OutLocation = Type.Object({
  ...outBase,
  type: Type.Literal('LOCATION'),
  lat: Coordinate,
  lng: Coordinate,
});
const OutPostback = Type.Object({
  ...outBase,
  type: Type.Literal('POSTBACK'),
  text: MessageText,
  payload: AnyObject,
});
const OutEvent = Type.Object({
  ...outBase,
  type: Type.Literal('EVENT'),
  slug: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: SHORT_TEXT_MAX }),
  eventPayload: StringMap,
});

/** A message as a widget sends it over the socket (`message:send`). */
export const OutgoingMessage = Type.Union([
  OutText,
  OutImage,
  OutAudio,
  OutVideo,
  OutDocument,
  OutLocation,
  OutPostback,
  OutEvent,
]);
export type OutgoingMessage = Type.Static<typeof OutgoingMessage>;
export const OUTGOING_MESSAGE_SCHEMAS = {
  TEXT: OutText,
  IMAGE: OutImage,
  AUDIO: OutAudio,
  VIDEO: OutVideo,
  DOCUMENT: OutDocument,
  LOCATION: OutLocation,
  POSTBACK: OutPostback,
  EVENT: OutEvent,
} as const;

/* ---- Rooms ---- */

export const Room = Type.Object({
  unread: Type.Integer(),
  id: Type.String(),
  bot: Type.Union([
    Type.Object({ id: Type.String(), name: Type.String(), type: Type.String() }),
    Type.Null(),
  ]),
  type: lit(ROOM_TYPES),
  company: Type.Object({ id: Type.String(), name: Type.String() }),
  channel: Type.String(),
  deleted: Type.Boolean(),
  members: Type.Array(Type.String()),
  avatarUrl: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  name: Type.String(),
  membersInfo: Type.Array(Member),
  lastMessageAt: Type.Union([Type.String(), Type.Null()]),
  channelProvider: Type.String(),
  /** Ours: the newest message, for the home menu. */
  lastMessage: Type.Optional(Type.Union([MessageSchema, Type.Null()])),
  /** Ours: the highest sequence number in the room. */
  lastSeq: Type.Optional(Type.Integer()),
});
export type Room = Type.Static<typeof Room>;

/** ApiResponse of joinRoom, leaveRoom, addMember, addMembers. */
export const ApiResponse = Type.Object({
  message: Type.Array(Type.String()),
  status: Type.Boolean(),
  statusMessage: Type.String(),
});
export type ApiResponse = Type.Static<typeof ApiResponse>;

export const AddMembersItem = Type.Object({
  referenceId: Id,
  names: Type.Optional(ShortText),
  memberType: Type.Optional(lit(MEMBER_TYPES)),
});
export type AddMembersItem = Type.Static<typeof AddMembersItem>;
export const AddMembersBody = Type.Object({
  members: Type.Array(AddMembersItem, { minItems: 1, maxItems: ADD_MEMBERS_MAX }),
});
