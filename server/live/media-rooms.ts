/**
 * Which stored media a widget session may have signed afresh
 * (`POST /v1/widget/assets/refresh`): only media it could see. That is
 *
 * - media uploaded for, or sent in, a room the user is a member of now
 *   (`media_rooms`, written by the upload and by messaging when a stored
 *   message carries one of this service's media addresses);
 * - the user's own uploads (`media.uploaded_by`), a room named or not;
 * - the bot's demo media (`demo/`, assets.ts), which the flows send to any
 *   visitor of the company.
 *
 * Anything else, a media that does not exist included, is refused alike, so
 * media keys cannot be probed.
 */
import type { Queryable } from '../store/db.ts';

/**
 * The condition under which user `user` of company `company` may see media
 * `m` (a row of `media`): each an SQL expression, a parameter (`$2`) or a
 * column of the enclosing query (`r.company_id`). The aliases inside
 * (`x`, `seen`, `v`) are the subquery's own, so they never hide the caller's.
 */
function visibleTo(company: string, user: string): string {
  return `m.company_id = ${company} AND (
      m.key LIKE 'demo/%'
      OR m.uploaded_by = ${user}
      OR EXISTS (
        SELECT 1 FROM media_rooms x JOIN rooms seen ON seen.id = x.room_id
          JOIN room_members v ON v.room_id = x.room_id AND v.user_id = ${user}
        WHERE x.media_key = m.key AND seen.company_id = ${company} AND NOT seen.deleted))`;
}

/** Whether the user may have the media signed afresh. */
export async function mediaVisible(
  db: Queryable,
  key: string,
  companyId: string,
  userId: string,
): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM media m WHERE m.key = $1 AND ${visibleTo('$2', '$3')}`, [
    key,
    companyId,
    userId,
  ]);
  return r.rows.length > 0;
}

/**
 * A media was uploaded for, or sent in, a room: its members may see it. A
 * person's message counts only for media the sender could see (holding an
 * address does not make a file one's own to share); the service's senders
 * (`trusted`: bots, flows, server-side operations) count as they are.
 */
export async function mediaSentIn(
  db: Queryable,
  key: string,
  roomId: string,
  senderId: string,
  trusted: boolean,
): Promise<void> {
  await db.query(
    `INSERT INTO media_rooms (media_key, room_id)
     SELECT m.key, r.id FROM media m JOIN rooms r ON r.id = $2 AND r.company_id = m.company_id
     WHERE m.key = $1 AND ($4::boolean OR ${visibleTo('r.company_id', '$3')})
     ON CONFLICT (media_key, room_id) DO NOTHING`,
    [key, roomId, senderId, trusted],
  );
}
