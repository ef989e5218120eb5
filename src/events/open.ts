export interface OpenDetail {}
/** Dispatched when the chat panel opens. */
export class CharlaOpenEvent extends Event {
  /** What happened (the same payload `widgetInstance.on('open', handler)` receives). */
  readonly detail: OpenDetail;

  constructor(detail: OpenDetail) {
    super('charla-open', { bubbles: true, composed: true, cancelable: false });
    this.detail = detail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-open': CharlaOpenEvent;
  }
}
