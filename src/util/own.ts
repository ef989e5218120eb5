/**
 * Whose a message is, as the widget shows and counts it. The service's split of
 * `by`: people are `user` and `client`; `bot`, `charla` and `company` speak for
 * the business.
 */
import type { Message } from '../../types/index.ts';

/** Written by a person, not by the business (its bot, a system, a campaign). */
export const byPerson = (m: Message): boolean => m.by === 'user' || m.by === 'client';

/**
 * Written by this widget's user: their id on a person's message. A room post of
 * the business that names the user as its sender (`by: charla`) is the service's,
 * not theirs: shown as the service's, and counted unread.
 */
export function isOwn(m: Message, userId: string | null | undefined): boolean {
  return byPerson(m) && (userId ? m.senderId === userId : m.by === 'user');
}
