import Type from 'typebox';
import { MESSAGE_TEXT_MAX, ROOM_POST_MESSAGES_MAX } from '../limits.ts';
import { HttpsUrl, Id, MessageText, ShortText, Uuid } from './common.ts';

const PostText = Type.Object({
  id: Uuid,
  type: Type.Literal('TEXT'),
  text: MessageText,
});
const PostMedia = Type.Object({
  id: Uuid,
  type: Type.Union([
    Type.Literal('IMAGE'),
    Type.Literal('VIDEO'),
    Type.Literal('DOCUMENT'),
    Type.Literal('AUDIO'),
    Type.Literal('FILE'),
  ]),
  mediaUrl: HttpsUrl,
  caption: Type.Optional(ShortText),
  text: Type.Optional(Type.String({ maxLength: MESSAGE_TEXT_MAX })),
});

/** One message of a room post: text when TEXT, mediaUrl otherwise. */
export const RoomPostMessage = Type.Union([PostText, PostMedia]);
export type RoomPostMessage = Type.Static<typeof RoomPostMessage>;

export const RoomPostBody = Type.Object({
  senderId: Id,
  messages: Type.Array(RoomPostMessage, { minItems: 1, maxItems: ROOM_POST_MESSAGES_MAX }),
});
export type RoomPostBody = Type.Static<typeof RoomPostBody>;

export const RoomIdParams = Type.Object({ roomId: Id });

/** Ours: the 200 body of a room post: the ids stored and the ids already there. */
export const RoomPostResult = Type.Object({
  message: Type.Array(Type.String()),
  statusMessage: Type.String(),
  status: Type.Integer(),
  data: Type.Object({
    roomId: Type.String(),
    messageIds: Type.Array(Type.String()),
    duplicates: Type.Array(Type.String()),
  }),
});
export type RoomPostResult = Type.Static<typeof RoomPostResult>;
