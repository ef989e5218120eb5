/**
 * Ours: the widget's own API (the interface does not show how a widget
 * connects). A widget opens a session with its API key and a user; every
 * later call carries `Authorization: Bearer <token>`, and the socket
 * handshake carries `auth: { token }`.
 */
import Type from 'typebox';
import { ADD_MEMBERS_MAX, GET_MESSAGES_LIMIT_MAX } from '../limits.ts';
import { AnyObject, GivenName, Id, PersonName, StringMap } from './common.ts';
import { BotRecord } from './widget-create.ts';
import { AddMembersItem, Contact, Member, MessageSchema, Room } from './widget-objects.ts';

export const SessionBody = Type.Object({
  /** Any non-empty key: one that opens no widget (too short, too long, revoked) is 401, not 400. */
  apiKey: Type.String({ minLength: 1, maxLength: 1024 }),
  /** The page's user id; when absent the widget makes one and keeps it. */
  userId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  /** One line of visible text (it signs the user's messages); 400 naming /userNames otherwise. */
  userNames: Type.Optional(PersonName),
  /**
   * Hex HMAC-SHA256 of userId under the API key's identitySecret, made by the
   * business's backend. Required when the widget's
   * credentials.identityVerification is true; ignored otherwise.
   */
  userHash: Type.Optional(Type.String({ maxLength: 200 })),
  /** Language the user reads (es or en), for the bot's flows. */
  language: Type.Optional(Type.String({ maxLength: 10 })),
});
export type SessionBody = Type.Static<typeof SessionBody>;

export const WidgetPublicConfig = Type.Object({
  id: Type.String(),
  properties: AnyObject,
  theme: AnyObject,
  credentials: AnyObject,
  config: AnyObject,
});
export type WidgetPublicConfig = Type.Static<typeof WidgetPublicConfig>;

export const SessionResult = Type.Object({
  token: Type.String(),
  expiresAt: Type.String(),
  user: Type.Object({ id: Type.String(), names: Type.Union([Type.String(), Type.Null()]) }),
  widget: WidgetPublicConfig,
  bot: BotRecord,
  /** The room of this user with the widget's bot (created on first need). */
  botRoomId: Type.String(),
  company: Type.Object({ id: Type.String(), name: Type.String() }),
});
export type SessionResult = Type.Static<typeof SessionResult>;

export const RoomList = Type.Object({ rooms: Type.Array(Room) });
export type RoomList = Type.Static<typeof RoomList>;

export const MembersResult = Type.Object({ members: Type.Array(Member) });

export const GetMessagesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: GET_MESSAGES_LIMIT_MAX })),
  /** Return the messages before this message id (history); absent: the latest. */
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
export const MessagesResult = Type.Object({ messages: Type.Array(MessageSchema) });

export const UserIdBody = Type.Object({ userId: Id });
/** A contact another member gives: its names, when given, are empty (none) or one line of visible text. */
const GivenContact = Type.Object({ ...Contact.properties, names: Type.Optional(GivenName) });
export const AddMemberBody = Type.Object({
  /** A Contact or a bare id. */
  member: Type.Union([GivenContact, Type.String({ minLength: 1, maxLength: 200 })]),
});
/** addMembers over the widget API: each item's names as a contact's (GivenName). */
export const WidgetAddMembersBody = Type.Object({
  members: Type.Array(Type.Object({ ...AddMembersItem.properties, names: Type.Optional(GivenName) }), {
    minItems: 1,
    maxItems: ADD_MEMBERS_MAX,
  }),
});
export const OpenRoomWithUserBody = Type.Object({
  id: Type.Union([Id, Type.Number()]),
  names: Type.Optional(GivenName),
});
export const SetFlowBody = Type.Object({ storedParams: Type.Optional(StringMap) });
export const FlowIdParams = Type.Object({ flowId: Id });

export const UploadResult = Type.Object({
  mediaUrl: Type.String(),
  type: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
  name: Type.String(),
});
export type UploadResult = Type.Static<typeof UploadResult>;

/** The widget's media refresh: a signed address of the service's own that has expired. */
export const WidgetRefreshBody = Type.Object({ resourceUrl: Type.String({ minLength: 9, maxLength: 4096 }) });
