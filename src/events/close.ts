import { CharlaEvent } from './charla-event.ts';

export interface CloseDetail {
  /** True when close(true) also disabled the launcher. */
  disabled: boolean;
}
/** Dispatched when the chat panel closes. */
export class CharlaCloseEvent extends CharlaEvent<CloseDetail> {
  constructor(detail: CloseDetail) {
    super('charla-close', detail);
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-close': CharlaCloseEvent;
  }
}
