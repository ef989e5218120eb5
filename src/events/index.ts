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

/** The DOM event class of each facade event. */
const DOM_EVENTS: Record<WidgetEventName, new (detail: never) => Event> = {
  open: CharlaOpenEvent,
  close: CharlaCloseEvent,
  message: CharlaMessageEvent,
  addedToRoom: CharlaAddedToRoomEvent,
  removedFromRoom: CharlaRemovedFromRoomEvent,
  connection: CharlaConnectionEvent,
  error: CharlaErrorEvent,
};

/** The DOM event for a facade event. */
export function domEventFor<K extends WidgetEventName>(name: K, detail: WidgetEventMap[K]): Event {
  return new DOM_EVENTS[name](detail as never);
}
