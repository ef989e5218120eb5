import { CharlaEvent } from './charla-event.ts';

export interface OpenDetail {}
/** Dispatched when the chat panel opens. */
export class CharlaOpenEvent extends CharlaEvent<OpenDetail> {
  constructor(detail: OpenDetail) {
    super('charla-open', detail);
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-open': CharlaOpenEvent;
  }
}
