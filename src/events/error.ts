import type { CharlaError } from '../transport/errors.ts';
import { CharlaEvent } from './charla-event.ts';

export interface ErrorDetail {
  error: CharlaError;
  /** What was being done (`connect`, `sendMessage`, `sync`, ...). */
  operation: string;
}
/** Dispatched when something fails in the background (a failed send, a refused session). */
export class CharlaErrorEvent extends CharlaEvent<ErrorDetail> {
  constructor(detail: ErrorDetail) {
    super('charla-error', detail);
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-error': CharlaErrorEvent;
  }
}
