/**
 * Every process of one database must sign with the same keys: a widget session
 * or a media address one process signs is checked by whichever process the
 * next request reaches. Nothing else would tell that two processes were
 * started with different CHARLA_SIGNING_SECRET / CHARLA_SIGNING_KEYS (the
 * visitor would only see their session refused on every other request), so
 * each process records a fingerprint of its keys at start (an HMAC made with
 * the key, which does not reveal it) and is warned when a key id it has was
 * last started with another secret.
 *
 * A warning, not a refusal: replacing the key of a one-process deployment is
 * a legitimate way to end every session, and reads the same from here.
 */
import { createHmac } from 'node:crypto';
import type { Queryable } from './store/db.ts';

const fingerprintOf = (secret: string) =>
  createHmac('sha256', secret).update('charla signing key fingerprint').digest('base64url');

/** Records this process's signing keys; answers a warning for each key id another process started with another secret. */
export async function recordSigningKeys(
  db: Queryable,
  keys: Record<string, string>,
  instanceId: string,
): Promise<string[]> {
  const warnings: string[] = [];
  for (const [keyId, secret] of Object.entries(keys)) {
    const fingerprint = fingerprintOf(secret);
    const { rows } = await db.query<{ fingerprint: string; instance_id: string; seen_at: string }>(
      'SELECT fingerprint, instance_id, seen_at::text FROM signing_keys WHERE key_id = $1',
      [keyId],
    );
    const before = rows[0];
    if (before && before.fingerprint !== fingerprint) {
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
  return warnings;
}
