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
import { letOthersRun, type Queryable } from '../store/db.ts';
import { UPLOAD_MEDIA_TYPES } from '../../types/limits.ts';

/**
 * Why a widget upload cannot go out as a message of `type`, or null: an IMAGE carries an
 * image upload (the kind whose limit is 8 MB), a VIDEO a video, an AUDIO an audio; a DOCUMENT
 * or a FILE any file (a card). A media that is not a widget upload is not this rule's.
 */
export async function uploadKindProblem(db: Queryable, key: string, type: string): Promise<string | null> {
  if (!key.startsWith('widget/') || (type !== 'IMAGE' && type !== 'VIDEO' && type !== 'AUDIO')) return null;
  const r = await db.query<{ content_type: string }>('SELECT content_type FROM media WHERE key = $1', [key]);
  const contentType = r.rows[0]?.content_type;
  if (contentType === undefined || (UPLOAD_MEDIA_TYPES[type] as readonly string[]).includes(contentType))
    return null;
  return `is an upload of type ${contentType}, not one a ${type} message carries (send it as a DOCUMENT)`;
}

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

/** How long an upload that no message carries is kept: the visitor cancelled it, or left. */
export const UNSENT_UPLOAD_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * A stored message carries this upload: it stays (run in the transaction that stores the
 * message). Whoever sent it, and whatever it grants (mediaSentIn): a file a message shows is kept.
 */
export async function uploadSent(db: Queryable, key: string): Promise<void> {
  await db.query('UPDATE media SET sent_at = now() WHERE key = $1 AND sent_at IS NULL', [key]);
}

/**
 * Removes the widget uploads that no message carries and that are older than `olderThanMs`:
 * their row first (the file is gone for everyone at once), then their rooms and their pieces.
 * An upload a message does carry although it was not noted (stored by a process older than
 * migration 019, during a rolling upgrade) is noted now and kept. `batch` uploads a statement,
 * with other work let in between on the embedded store. Answers how many were removed.
 */
export async function sweepUnsentUploads(db: Queryable, olderThanMs: number, batch = 50): Promise<number> {
  let removed = 0;
  for (;;) {
    const { rows } = await db.query<{ key: string; sent: boolean }>(
      `SELECT m.key, EXISTS (
         SELECT 1 FROM media_rooms x JOIN messages g ON g.room_id = x.room_id
         WHERE x.media_key = m.key AND g.created_at >= m.created_at
           AND position('/v1/media/' || m.key IN g.body->>'mediaUrl') > 0) AS sent
       FROM media m
       WHERE m.sent_at IS NULL AND m.uploaded_by IS NOT NULL
         AND m.created_at <= now() - make_interval(secs => $1::double precision / 1000)
       ORDER BY m.created_at LIMIT $2`,
      [olderThanMs, batch],
    );
    for (const { key, sent } of rows) {
      if (sent) {
        await uploadSent(db, key);
        continue;
      }
      // Only if still unsent: a message that carried it a moment ago keeps it.
      const gone = await db.query('DELETE FROM media WHERE key = $1 AND sent_at IS NULL', [key]);
      if (gone.rowCount === 0) continue;
      await db.query('DELETE FROM media_rooms WHERE media_key = $1', [key]);
      await db.query('DELETE FROM media_chunks WHERE media_key = $1', [key]);
      removed += 1;
      await letOthersRun();
    }
    if (rows.length < batch) return removed;
    await letOthersRun();
  }
}
