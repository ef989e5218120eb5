/**
 * Typed event maps of the live protocol, shared by socket.io-client and the
 * socket.io server. Types only.
 *
 * The handshake carries `auth: { token }` (the widget session). On connect the
 * service joins the socket to every room of the user. Sends are acknowledged
 * with {@link Ack}; a rejected event gets the error body and stores nothing.
 */
import type { ErrorBody } from './errors.ts';
import type { MessageStatus } from './enums.ts';
import type { Member, Message, OutgoingMessage, Room } from './schemas/widget-objects.ts';

/** Every acknowledgement: the result, or the error body. */
export type Ack<T> = { ok: true; data: T } | { ok: false; error: ErrorBody };

export interface SyncRequest {
  /** Last sequence number the client holds, per room; rooms not named get their latest page. */
  after: Record<string, number>;
}
export interface SyncResult {
  /** Every message after the given sequence, per room, oldest first. */
  messages: Message[];
  /** The rooms of the user now (a room joined while offline appears here). */
  rooms: Room[];
}

export interface StatusChange {
  roomId: string;
  id: string;
  status: MessageStatus;
  error?: { code: string; key: string; description: string };
}

export interface MembershipChange {
  roomId: string;
  member: Member;
}

export interface ClientToServerEvents {
  /** Stores (idempotently, keyed by the UUID) and broadcasts a message. */
  'message:send': (message: OutgoingMessage, ack: (res: Ack<Message>) => void) => void;
  /** Gap fill after a reconnect. */
  'messages:sync': (req: SyncRequest, ack: (res: Ack<SyncResult>) => void) => void;
  /** The widget has shown these messages to its user: they become DELIVERED_USER. */
  'messages:seen': (
    req: { roomId: string; ids: string[] },
    ack: (res: Ack<{ updated: number }>) => void,
  ) => void;
  /** The user read the room: its unread count goes to zero. */
  /**
   * The user read the room: up to `seq` (the last message the widget held), or all of it without
   * one. Answers what stays unread.
   */
  'room:read': (req: { roomId: string; seq?: number }, ack: (res: Ack<{ unread: number }>) => void) => void;
}

export interface ServerToClientEvents {
  'message:new': (message: Message) => void;
  'message:status': (change: StatusChange) => void;
  'member:joined': (change: MembershipChange) => void;
  'member:left': (change: MembershipChange) => void;
  'room:updated': (room: Room) => void;
  /** The session is no longer valid (expired, key revoked): the client must open a new one. */
  'session:expired': () => void;
}

export interface InterServerEvents {
  ping: () => void;
}

export interface SocketData {
  userId: string;
  widgetId: string;
  companyId: string;
  botId: string;
}
