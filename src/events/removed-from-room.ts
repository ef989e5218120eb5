import type { MembershipDetail } from './membership.ts';
import { CharlaEvent } from './charla-event.ts';

export type { MembershipDetail };
/** Dispatched when a member (this user: type me; someone else: other) leaves a room. */
export class CharlaRemovedFromRoomEvent extends CharlaEvent<MembershipDetail> {
  constructor(detail: MembershipDetail) {
    super('charla-removed-from-room', detail);
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-removed-from-room': CharlaRemovedFromRoomEvent;
  }
}
