import type { MembershipDetail } from './membership.ts';

export type { MembershipDetail };
/** Dispatched when a member (this user: type me; someone else: other) leaves a room. */
export class CharlaRemovedFromRoomEvent extends Event {
  /** What happened (the same payload `widgetInstance.on('removedFromRoom', handler)` receives). */
  readonly detail: MembershipDetail;

  constructor(detail: MembershipDetail) {
    super('charla-removed-from-room', { bubbles: true, composed: true, cancelable: false });
    this.detail = detail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-removed-from-room': CharlaRemovedFromRoomEvent;
  }
}
