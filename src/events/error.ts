import type { CharlaError } from '../transport/errors.ts';

export interface ErrorDetail {
  error: CharlaError;
  /** What was being done (`connect`, `sendMessage`, `sync`, ...). */
  operation: string;
}
/** Dispatched when something fails in the background (a failed send, a refused session). */
export class CharlaErrorEvent extends Event {
  /** What happened (the same payload `widgetInstance.on('error', handler)` receives). */
  readonly detail: ErrorDetail;

  constructor(detail: ErrorDetail) {
    super('charla-error', { bubbles: true, composed: true, cancelable: false });
    this.detail = detail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-error': CharlaErrorEvent;
  }
}
