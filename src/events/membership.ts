import type { Member } from '../../types/index.ts';

/** Payload of addedToRoom and removedFromRoom. */
export interface MembershipDetail {
  /** `me` when the member is this widget's user. */
  type: 'me' | 'other';
  roomId: string;
  member: Member;
}
