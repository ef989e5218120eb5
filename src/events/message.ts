import type { Message } from '../../types/index.ts';

export interface MessageDetail {
  roomId: string;
  message: Message;
}
/** Dispatched for every message that arrives from the service (live or by gap fill). */
export class CharlaMessageEvent extends Event {
  /** What happened (the same payload `widgetInstance.on('message', handler)` receives). */
  readonly detail: MessageDetail;

  constructor(detail: MessageDetail) {
    super('charla-message', { bubbles: true, composed: true, cancelable: false });
    this.detail = detail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-message': CharlaMessageEvent;
  }
}
