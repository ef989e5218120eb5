/**
 * Base of the widget's DOM events: bubbling and composed (they leave the
 * shadow root), not cancelable, with the facade event's payload as `detail`.
 */
export class CharlaEvent<D> extends Event {
  /** What happened (the same payload `widgetInstance.on(name, handler)` receives). */
  readonly detail: D;

  constructor(type: string, detail: D) {
    super(type, { bubbles: true, composed: true });
    this.detail = detail;
  }
}
