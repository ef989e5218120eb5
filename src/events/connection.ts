import type { ConnectionState } from '../../types/enums.ts';
import { CharlaEvent } from './charla-event.ts';

export interface ConnectionDetail {
  state: ConnectionState;
  previous: ConnectionState;
}
/** Dispatched when the live connection changes state. */
export class CharlaConnectionEvent extends CharlaEvent<ConnectionDetail> {
  constructor(detail: ConnectionDetail) {
    super('charla-connection', detail);
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-connection': CharlaConnectionEvent;
  }
}
