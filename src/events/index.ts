/** Every event of the widget, as a DOM event class and as a facade event name. */
import { CharlaAddedToRoomEvent } from './added-to-room.ts';
import { CharlaCloseEvent, type CloseDetail } from './close.ts';
import { CharlaConnectionEvent, type ConnectionDetail } from './connection.ts';
import { CharlaErrorEvent, type ErrorDetail } from './error.ts';
import type { MembershipDetail } from './membership.ts';
import { CharlaMessageEvent, type MessageDetail } from './message.ts';
import { CharlaOpenEvent, type OpenDetail } from './open.ts';
import { CharlaRemovedFromRoomEvent } from './removed-from-room.ts';

export {
  CharlaAddedToRoomEvent,
  CharlaCloseEvent,
  CharlaConnectionEvent,
  CharlaErrorEvent,
  CharlaMessageEvent,
  CharlaOpenEvent,
  CharlaRemovedFromRoomEvent,
};
export type { CloseDetail, ConnectionDetail, ErrorDetail, MembershipDetail, MessageDetail, OpenDetail };

/** Facade event names and their payloads (`widgetInstance.on(name, handler)`). */
export interface WidgetEventMap {
  open: OpenDetail;
  close: CloseDetail;
  message: MessageDetail;
  addedToRoom: MembershipDetail;
  removedFromRoom: MembershipDetail;
  connection: ConnectionDetail;
  error: ErrorDetail;
  // Index signature so the map fits the generic emitter.
  [name: string]: unknown;
}

export type WidgetEventName =
  'open' | 'close' | 'message' | 'addedToRoom' | 'removedFromRoom' | 'connection' | 'error';

/** The DOM event for a facade event. */
export function domEventFor<K extends WidgetEventName>(name: K, detail: WidgetEventMap[K]): Event {
  switch (name) {
    case 'open':
      return new CharlaOpenEvent(detail as OpenDetail);
    case 'close':
      return new CharlaCloseEvent(detail as CloseDetail);
    case 'message':
      return new CharlaMessageEvent(detail as MessageDetail);
    case 'addedToRoom':
      return new CharlaAddedToRoomEvent(detail as MembershipDetail);
    case 'removedFromRoom':
      return new CharlaRemovedFromRoomEvent(detail as MembershipDetail);
    case 'connection':
      return new CharlaConnectionEvent(detail as ConnectionDetail);
    default:
      return new CharlaErrorEvent(detail as ErrorDetail);
  }
}
