import type { Message } from '../../types/index.ts';
import { CharlaEvent } from './charla-event.ts';

export interface MessageDetail {
  roomId: string;
  message: Message;
}
/** Dispatched for every message that arrives from the service (live or by gap fill). */
export class CharlaMessageEvent extends CharlaEvent<MessageDetail> {
  constructor(detail: MessageDetail) {
    super('charla-message', detail);
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-message': CharlaMessageEvent;
  }
}
