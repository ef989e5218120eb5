import type { ConnectionState } from '../../types/enums.ts';

export interface ConnectionDetail {
  state: ConnectionState;
  previous: ConnectionState;
}
/** Dispatched when the live connection changes state. */
export class CharlaConnectionEvent extends Event {
  /** What happened (the same payload `widgetInstance.on('connection', handler)` receives). */
  readonly detail: ConnectionDetail;

  constructor(detail: ConnectionDetail) {
    super('charla-connection', { bubbles: true, composed: true, cancelable: false });
    this.detail = detail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-connection': CharlaConnectionEvent;
  }
}
