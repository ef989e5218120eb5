/**
 * The one place the live side reaches sockets. Messaging, the widget routes
 * and the flow runner broadcast through a Hub; the gateway sets its `io` when
 * it starts. With no gateway (or before it starts) broadcasts are no-ops, so
 * storage still works.
 *
 * Everything goes through socket.io rooms (`room:<id>`, `user:<id>`) and the
 * server-side operations (`socketsJoin`, `fetchSockets`), never through a
 * process-local map, so a Redis adapter set on `io` makes it work across
 * processes unchanged.
 */
import type { Server } from 'socket.io';
import type {
  ClientToServerEvents,
  InterServerEvents,
  Member,
  Message,
  Room,
  ServerToClientEvents,
  SocketData,
  StatusChange,
} from '../../types/index.ts';

/** What a socket carries: the session's claims plus the user's names. */
export interface LiveSocketData extends SocketData {
  names: string | null;
  /** api_keys.id the session was opened with (revocation checks). */
  keyId: number;
  exp: number;
  /** The session proved its user id with a userHash. */
  proven: boolean;
}

export type LiveServer = Server<
  ClientToServerEvents,
  ServerToClientEvents,
  InterServerEvents,
  LiveSocketData
>;

export const roomChannel = (roomId: string) => `room:${roomId}`;
/** Users are per company: the same page user id in two companies is two people. */
export const userChannel = (companyId: string, userId: string) => `user:${companyId}:${userId}`;

export class Hub {
  io: LiveServer | null = null;

  messageNew(message: Message): void {
    this.io?.to(roomChannel(message.roomId)).emit('message:new', message);
  }

  /** Tells the room, but for the users (company, user id) in `hiddenFrom`, who may not see that message. */
  status(change: StatusChange, hiddenFrom: readonly (readonly [string, string])[] | null = null): void {
    if (!this.io) return;
    const except = (hiddenFrom ?? []).map(([companyId, userId]) => userChannel(companyId, userId));
    this.io.to(roomChannel(change.roomId)).except(except).emit('message:status', change);
  }

  /** Tells the room, then puts every socket of the user into it. */
  memberJoined(roomId: string, member: Member): void {
    if (!this.io) return;
    this.io.in(userChannel(member.companyId, member.referenceId)).socketsJoin(roomChannel(roomId));
    this.io.to(roomChannel(roomId)).emit('member:joined', { roomId, member });
  }

  /** Tells the room (the leaver included), then takes the user's sockets out of it. */
  memberLeft(roomId: string, member: Member): void {
    if (!this.io) return;
    this.io.to(roomChannel(roomId)).emit('member:left', { roomId, member });
    this.io.in(userChannel(member.companyId, member.referenceId)).socketsLeave(roomChannel(roomId));
  }

  /** Puts every socket of a user into a room (a room made or joined while connected). */
  joinUser(companyId: string, userId: string, roomId: string): void {
    this.io?.in(userChannel(companyId, userId)).socketsJoin(roomChannel(roomId));
  }

  /**
   * A user id just became verified: its sockets of sessions that did not
   * prove it are told their session ended and closed, on every process.
   */
  async closeUnproven(companyId: string, userId: string): Promise<void> {
    if (!this.io) return;
    for (const s of await this.io.in(userChannel(companyId, userId)).fetchSockets()) {
      if (s.data.proven) continue;
      s.emit('session:expired');
      s.disconnect(true);
    }
  }

  roomUpdated(userId: string, room: Room): void {
    this.io?.to(userChannel(room.company.id, userId)).emit('room:updated', room);
  }

  /**
   * Whether a member other than `exceptUserId` has a socket in the room on
   * this process: `true`, or `false` when this process alone serves sockets;
   * `'ask'` when other processes may hold one (a cluster adapter), which
   * {@link otherMemberOnlineAnywhere} answers off the hot path. A socket's
   * `data.userId` tells its user. This is what DELIVERED_CHANNEL means on the
   * web channel.
   */
  otherMemberOnlineHere(roomId: string, exceptUserId: string): boolean | 'ask' {
    if (!this.io) return false;
    const nsp = this.io.of('/');
    // Every adapter keeps this process's own sockets in `rooms`.
    const adapter = nsp.adapter as unknown as {
      rooms?: Map<string, Set<string>>;
      constructor: { name: string };
    };
    const ids = adapter.rooms?.get(roomChannel(roomId));
    if (ids) {
      for (const id of ids) {
        const s = nsp.sockets.get(id);
        if (s && s.data.userId !== exceptUserId) return true;
      }
    }
    return adapter.constructor.name === 'Adapter' ? false : 'ask';
  }

  /** The same question across every process (a round trip through the adapter). */
  async otherMemberOnlineAnywhere(roomId: string, exceptUserId: string): Promise<boolean> {
    if (!this.io) return false;
    const sockets = await this.io.in(roomChannel(roomId)).fetchSockets();
    return sockets.some((s) => s.data.userId !== exceptUserId);
  }
}
