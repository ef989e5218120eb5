/**
 * Every process of one database must sign with keys the others verify: a widget
 * session or a media address one process signs is checked by whichever process
 * the next request reaches. Nothing else would tell that two processes were
 * started with different CHARLA_SIGNING_SECRET / CHARLA_SIGNING_KEYS (the
 * visitor would only see their session refused on every other request), so
 * each process records at start a fingerprint of each of its keys (an HMAC
 * made with the key, which does not reveal it) and which of them it signs
 * with, and is warned:
 *
 * - when a key id it has was last started with another secret (by any process);
 * - when the key it signs with is not among those the last other process to
 *   start on this database verifies, or that process signs with a key this one
 *   does not verify (another key id altogether: "k9" beside "k1").
 *
 * The README's rotation (add the new key second, then put it first, then drop
 * the old) passes every step quietly: at each, what one signs the other has.
 *
 * A warning, not a refusal: replacing the key of a one-process deployment is
 * a legitimate way to end every session, and reads the same from here.
 */
import { createHmac } from 'node:crypto';
import type { Queryable } from './store/db.ts';
import type { Migration } from './store/migrate.ts';

const fingerprintOf = (secret: string) =>
  createHmac('sha256', secret).update('charla signing key fingerprint').digest('base64url');

/** Starts kept: the last other process is the newest; older rows only tell about processes long gone. */
const STARTS_KEPT = 50;

/**
 * What each process started with: the key id it signs with and the fingerprint of every key it
 * verifies (key id -> fingerprint). One row per CHARLA_INSTANCE_ID, the newest STARTS_KEPT kept.
 */
export const signingKeyMigrations: Migration[] = [
  {
    id: '020_signing_key_starts',
    sql: `
CREATE TABLE IF NOT EXISTS signing_key_starts (
  instance_id text PRIMARY KEY,
  signs text NOT NULL,
  keys jsonb NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
];

const SAME_KEYS =
  'Every process must have the same CHARLA_SIGNING_SECRET or CHARLA_SIGNING_KEYS (to rotate a key, see the README: ' +
  'add the new key second everywhere, then put it first).';

/**
 * Records this process's signing keys; answers a warning for each key id another process started
 * with another secret, and for a key one of this process and the last other process to start
 * signs with that the other does not have.
 */
export async function recordSigningKeys(
  db: Queryable,
  keys: Record<string, string>,
  instanceId: string,
): Promise<string[]> {
  const warnings: string[] = [];
  const fingerprints: Record<string, string> = {};
  // The key id whose secret differs is said once, by the check below, not again by the other.
  const differing = new Set<string>();
  for (const [keyId, secret] of Object.entries(keys)) {
    const fingerprint = fingerprintOf(secret);
    fingerprints[keyId] = fingerprint;
    const { rows } = await db.query<{ fingerprint: string; instance_id: string; seen_at: string }>(
      'SELECT fingerprint, instance_id, seen_at::text FROM signing_keys WHERE key_id = $1',
      [keyId],
    );
    const before = rows[0];
    if (before && before.fingerprint !== fingerprint) {
      differing.add(keyId);
      warnings.push(
        `Signing key "${keyId}" is not the one ${before.instance_id} started with on this database (${before.seen_at}). ` +
          'Every process must have the same CHARLA_SIGNING_SECRET or CHARLA_SIGNING_KEYS: a widget session or media ' +
          'address one of them signs is refused by the others. If you replaced the key on purpose, what the old one ' +
          'signed has ended and this warning will not repeat.',
      );
    }
    await db.query(
      `INSERT INTO signing_keys (key_id, fingerprint, instance_id) VALUES ($1, $2, $3)
       ON CONFLICT (key_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, instance_id = EXCLUDED.instance_id, seen_at = now()`,
      [keyId, fingerprint, instanceId],
    );
  }

  // The first key signs (server/signing.ts, server/live/session.ts); every one verifies.
  const signs = Object.keys(keys)[0];
  if (signs === undefined) return warnings;
  const { rows } = await db.query<{ instance_id: string; signs: string; keys: unknown; started_at: string }>(
    `SELECT instance_id, signs, keys, started_at::text FROM signing_key_starts
     WHERE instance_id <> $1 ORDER BY started_at DESC LIMIT 1`,
    [instanceId],
  );
  const other = rows[0];
  if (other) {
    // jsonb comes back parsed from PostgreSQL and PGlite alike; a string is read as JSON all the same.
    const theirs = (typeof other.keys === 'string' ? JSON.parse(other.keys) : other.keys) as Record<
      string,
      string
    >;
    const ids = (k: Record<string, string>) =>
      Object.keys(k)
        .map((id) => `"${id}"`)
        .join(', ');
    const started = `${other.instance_id} (the last other process to start on this database, ${other.started_at})`;
    if (theirs[signs] !== fingerprints[signs] && !differing.has(signs))
      warnings.push(
        `Signing key "${signs}", which this process (${instanceId}) signs with, is not one that ${started} ` +
          `has (its key ids: ${ids(theirs)}): the widget sessions and media addresses this process signs are refused ` +
          `there (401 or 403). ${SAME_KEYS}`,
      );
    if (
      theirs[other.signs] !== fingerprints[other.signs] &&
      !differing.has(other.signs) &&
      other.signs !== signs
    )
      warnings.push(
        `${started} signs with key "${other.signs}", which this process (${instanceId}) does not have ` +
          `(its key ids: ${ids(fingerprints)}): the widget sessions and media addresses that process signs are ` +
          `refused here (401 or 403). ${SAME_KEYS}`,
      );
  }
  await db.query(
    `INSERT INTO signing_key_starts (instance_id, signs, keys) VALUES ($1, $2, $3::jsonb)
     ON CONFLICT (instance_id) DO UPDATE SET signs = EXCLUDED.signs, keys = EXCLUDED.keys, started_at = now()`,
    [instanceId, signs, JSON.stringify(fingerprints)],
  );
  await db.query(
    `DELETE FROM signing_key_starts WHERE instance_id IN
       (SELECT instance_id FROM signing_key_starts ORDER BY started_at DESC OFFSET $1)`,
    [STARTS_KEPT],
  );
  return warnings;
}
