import type { MembershipDetail } from './membership.ts';

export type { MembershipDetail };
/** Dispatched when a member (this user: type me; someone else: other) joins a room. */
export class CharlaAddedToRoomEvent extends Event {
  /** What happened (the same payload `widgetInstance.on('addedToRoom', handler)` receives). */
  readonly detail: MembershipDetail;

  constructor(detail: MembershipDetail) {
    super('charla-added-to-room', { bubbles: true, composed: true, cancelable: false });
    this.detail = detail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-added-to-room': CharlaAddedToRoomEvent;
  }
}
