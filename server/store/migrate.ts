/**
 * Versioned, idempotent migrations. Each migration runs once, in its own
 * transaction, recorded in charla_migrations. Several processes starting at
 * once serialize on an advisory lock (PostgreSQL) so none applies one twice.
 */
import type { Db } from './db.ts';

export interface Migration {
  /** Unique, ordered: '001_core', '010_live', ... */
  id: string;
  sql: string;
}

export async function migrate(db: Db, migrations: Migration[]): Promise<string[]> {
  const sorted = [...migrations].sort((a, b) => a.id.localeCompare(b.id));
  const ids = new Set<string>();
  for (const m of sorted) {
    if (ids.has(m.id)) throw new Error(`duplicate migration id ${m.id}`);
    ids.add(m.id);
  }
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7436201)');
    await tx.query(
      'CREATE TABLE IF NOT EXISTS charla_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await tx.query<{ id: string }>('SELECT id FROM charla_migrations')).rows.map((r) => r.id));
    const applied: string[] = [];
    for (const m of sorted) {
      if (done.has(m.id)) continue;
      for (const statement of splitStatements(m.sql)) await tx.query(statement);
      await tx.query('INSERT INTO charla_migrations (id) VALUES ($1)', [m.id]);
      applied.push(m.id);
    }
    return applied;
  });
}

/** Splits on semicolons at line ends (migrations keep one statement per `;\n`; no $$ bodies). */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && !/^(--[^\n]*\n?)+$/.test(s));
}
