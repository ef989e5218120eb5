/**
 * Processes of one database that sign with different keys are told so at start
 * (server/signing-keys.ts): the process whose key id was last started with
 * another secret logs a warning naming the key id and that other process, never
 * either secret. Same keys, or a new key id added for rotation, start quietly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../server/config.ts';
import type { ApiError } from '../../server/http/errors.ts';
import { Sessions, type WidgetAccess } from '../../server/live/session.ts';
import type { Db } from '../../server/store/db.ts';
import { ON_POSTGRES, startServer, uid } from './helpers/http.ts';

const dir = mkdtempSync(join(tmpdir(), 'charla-signing-keys-'));
const storage = ON_POSTGRES
  ? { databaseUrl: process.env['DATABASE_URL'] }
  : { databaseUrl: undefined, dataDir: dir };
const schema = `t_keys_${uid('s').replace(/-/g, '').slice(2, 20)}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a process on the shared storage and answers the warnings it logged while starting. */
async function start(instanceId: string, signingKeys: Record<string, string>, last = false) {
  const warnings: string[] = [];
  const logger = {
    level: 'warn',
    stream: { write: (line: string) => void warnings.push(String(JSON.parse(line).msg)) },
  } as unknown as Config['logger'];
  const server = await startServer({ ...storage, instanceId, signingKeys, logger }, { schema, keep: !last });
  const stored = await server.app.charla.db.query<Record<string, string>>(
    'SELECT key_id, fingerprint, instance_id FROM signing_keys ORDER BY key_id',
  );
  await server.close();
  return { warnings: warnings.filter((w) => /signing key/i.test(w)), stored: stored.rows };
}

describe('signing keys shared by the processes of one database', () => {
  it('warns the process whose key differs from the one another process started with, without revealing either', async () => {
    const first = await start('node-a', { k1: 'first-secret-aaaa' });
    expect(first.warnings).toEqual([]);
    expect(first.stored.map((r) => [r.key_id, r.instance_id])).toEqual([['k1', 'node-a']]);

    expect((await start('node-b', { k1: 'first-secret-aaaa' })).warnings).toEqual([]);

    const other = await start('node-c', { k1: 'other-secret-cccc' });
    expect(other.warnings).toHaveLength(1);
    expect(other.warnings[0]).toMatch(/Signing key "k1" is not the one node-b started with/);
    expect(other.warnings[0]).toMatch(/CHARLA_SIGNING_SECRET or CHARLA_SIGNING_KEYS/);
    const said = JSON.stringify(other);
    expect(said).not.toContain('first-secret-aaaa');
    expect(said).not.toContain('other-secret-cccc');

    // Rotation: a new key id first, the same k1 after it; nothing differs, nothing is said.
    const rotated = await start('node-c', { k2: 'next-secret-dddd', k1: 'other-secret-cccc' }, true);
    expect(rotated.warnings).toEqual([]);
    expect(rotated.stored.map((r) => r.key_id)).toEqual(['k1', 'k2']);
  });
});

describe('a session signed by a process with a key this one lacks', () => {
  it('is a 401 that names the key id and the setting, not a malformed token', () => {
    // Issuing and checking a token reads no storage.
    const noStorage = {} as Db;
    const signer = new Sessions(noStorage, { k2: 'new-secret-eeee', k1: 'old-secret-ffff' });
    const checker = new Sessions(noStorage, { k1: 'old-secret-ffff' });
    const { token } = signer.issue(
      { widgetId: 'w', companyId: 'c', keyId: 1, botId: null } as unknown as WidgetAccess,
      'u-1',
    );
    const refused = (() => {
      try {
        checker.verify(token);
      } catch (err) {
        return err as ApiError;
      }
      return null;
    })();
    expect(refused?.key).toBe('UNAUTHORIZED');
    expect(refused?.message).toBe(
      'Session token signed with a key this service does not have (key id "k2"): give every process the same CHARLA_SIGNING_KEYS.',
    );
    // A process that has the key takes it.
    expect(signer.verify(token).kid).toBe('k2');
  });
});
