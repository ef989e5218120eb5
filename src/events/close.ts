export interface CloseDetail {
  /** True when close(true) also disabled the launcher. */
  disabled: boolean;
}
/** Dispatched when the chat panel closes. */
export class CharlaCloseEvent extends Event {
  /** What happened (the same payload `widgetInstance.on('close', handler)` receives). */
  readonly detail: CloseDetail;

  constructor(detail: CloseDetail) {
    super('charla-close', { bubbles: true, composed: true, cancelable: false });
    this.detail = detail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-close': CharlaCloseEvent;
  }
}
