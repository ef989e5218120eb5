/**
 * Processes of one database that sign with different keys are told so at start
 * (server/signing-keys.ts), by a warning naming the key ids and the other process,
 * never a secret: the process whose key id was last started with another secret,
 * and the process whose signing key the last other process to start does not
 * have, or that does not have the key that process signs with (another key id
 * altogether). Same keys, and each step of the README's rotation, start quietly.
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

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The storage of one database: a PGlite directory, or a schema of its own on PostgreSQL. */
function database() {
  const dir = mkdtempSync(join(tmpdir(), 'charla-signing-keys-'));
  dirs.push(dir);
  return {
    options: ON_POSTGRES
      ? { databaseUrl: process.env['DATABASE_URL'] }
      : { databaseUrl: undefined, dataDir: dir },
    schema: `t_keys_${uid('s').replace(/-/g, '').slice(2, 20)}`,
  };
}
type Database = ReturnType<typeof database>;

/** Starts a process on the database and answers the warnings it logged while starting; `last` drops the database. */
async function start(db: Database, instanceId: string, signingKeys: Record<string, string>, last = false) {
  const warnings: string[] = [];
  const logger = {
    level: 'warn',
    stream: { write: (line: string) => void warnings.push(String(JSON.parse(line).msg)) },
  } as unknown as Config['logger'];
  const server = await startServer(
    { ...db.options, instanceId, signingKeys, logger },
    { schema: db.schema, keep: !last },
  );
  const stored = await server.app.charla.db.query<Record<string, string>>(
    'SELECT key_id, fingerprint, instance_id FROM signing_keys ORDER BY key_id',
  );
  await server.close();
  return { warnings: warnings.filter((w) => /signing key|signs with/i.test(w)), stored: stored.rows };
}

describe('signing keys shared by the processes of one database', () => {
  it('warns the process whose key differs from the one another process started with, without revealing either', async () => {
    const db = database();
    const first = await start(db, 'node-a', { k1: 'first-secret-aaaa' });
    expect(first.warnings).toEqual([]);
    expect(first.stored.map((r) => [r.key_id, r.instance_id])).toEqual([['k1', 'node-a']]);

    expect((await start(db, 'node-b', { k1: 'first-secret-aaaa' })).warnings).toEqual([]);

    const other = await start(db, 'node-c', { k1: 'other-secret-cccc' });
    expect(other.warnings).toHaveLength(1);
    expect(other.warnings[0]).toMatch(/Signing key "k1" is not the one node-b started with/);
    expect(other.warnings[0]).toMatch(/CHARLA_SIGNING_SECRET or CHARLA_SIGNING_KEYS/);
    const said = JSON.stringify(other);
    expect(said).not.toContain('first-secret-aaaa');
    expect(said).not.toContain('other-secret-cccc');

    // Started again with its k1 and a new key after it: node-b, the last other process to start,
    // still has another k1, so node-c is still told (it used to be quiet, its own k1 being the
    // last recorded).
    const again = await start(db, 'node-c', { k1: 'other-secret-cccc', k2: 'next-secret-dddd' }, true);
    expect(again.warnings).toHaveLength(1);
    expect(again.warnings[0]).toMatch(
      /Signing key "k1", which this process \(node-c\) signs with, is not one that node-b/,
    );
    expect(again.stored.map((r) => r.key_id)).toEqual(['k1', 'k2']);
  });

  it('warns a process started with another key id than the others, naming both key ids and the other process, never a key', async () => {
    const db = database();
    const secret = 'a'.repeat(64);
    const other = 'b'.repeat(64);
    expect((await start(db, 'node-a', { k1: secret })).warnings).toEqual([]);
    expect((await start(db, 'node-b', { k1: secret })).warnings).toEqual([]);
    const c = await start(db, 'node-c', { k9: other }, true);
    expect(c.warnings).toHaveLength(2);
    expect(c.warnings[0]).toMatch(
      /^Signing key "k9", which this process \(node-c\) signs with, is not one that node-b \(the last other process to start on this database, .+\) has \(its key ids: "k1"\): the widget sessions and media addresses this process signs are refused there/,
    );
    expect(c.warnings[1]).toMatch(
      /^node-b \(the last other process to start on this database, .+\) signs with key "k1", which this process \(node-c\) does not have \(its key ids: "k9"\)/,
    );
    for (const warning of c.warnings) expect(warning).toMatch(/CHARLA_SIGNING_SECRET or CHARLA_SIGNING_KEYS/);
    const said = JSON.stringify(c);
    expect(said).not.toContain(secret);
    expect(said).not.toContain(other);
  });

  it("is quiet at every step of the README's rotation, and warns a process that skips a step", async () => {
    const db = database();
    const old = 'old-secret-1111';
    const next = 'new-secret-2222';
    const quiet = async (instanceId: string, keys: Record<string, string>) =>
      expect(
        (await start(db, instanceId, keys)).warnings,
        `${instanceId} ${Object.keys(keys).join(',')}`,
      ).toEqual([]);
    await quiet('node-a', { k1: old });
    await quiet('node-b', { k1: old });
    // 1. the new key after the old one on every process.
    await quiet('node-a', { k1: old, k2: next });
    await quiet('node-b', { k1: old, k2: next });
    // 2. the new one first.
    await quiet('node-a', { k2: next, k1: old });
    await quiet('node-b', { k2: next, k1: old });
    // 3. the old one dropped.
    await quiet('node-a', { k2: next });
    await quiet('node-b', { k2: next });

    // The next rotation: a process going from step 1 straight to 3 while the others still sign
    // with k2 cannot check what they sign (what it signs, they can).
    await quiet('node-a', { k2: next, k3: 'third-secret-3333' });
    const skipped = await start(db, 'node-b', { k3: 'third-secret-3333' }, true);
    expect(skipped.warnings).toHaveLength(1);
    expect(skipped.warnings[0]).toMatch(
      /^node-a \(the last other process to start on this database, .+\) signs with key "k2", which this process \(node-b\) does not have \(its key ids: "k3"\)/,
    );
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
