import type { MembershipDetail } from './membership.ts';
import { CharlaEvent } from './charla-event.ts';

export type { MembershipDetail };
/** Dispatched when a member (this user: type me; someone else: other) joins a room. */
export class CharlaAddedToRoomEvent extends CharlaEvent<MembershipDetail> {
  constructor(detail: MembershipDetail) {
    super('charla-added-to-room', detail);
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'charla-added-to-room': CharlaAddedToRoomEvent;
  }
}
