/**
 * Versioned, idempotent migrations. Each migration runs once, in its own
 * transaction, recorded in charla_migrations. Several processes starting at
 * once serialize on an advisory lock (PostgreSQL) so none applies one twice.
 */
import { SCHEMA_QUERY_TIMEOUT_MS, type Db } from './db.ts';

export interface Migration {
  /** Unique, ordered: '001_core', '010_live', ... */
  id: string;
  sql: string;
}

export async function migrate(db: Db, migrations: readonly Migration[]): Promise<string[]> {
  const sorted = [...migrations].sort((a, b) => a.id.localeCompare(b.id));
  const ids = new Set<string>();
  for (const m of sorted) {
    if (ids.has(m.id)) throw new Error(`duplicate migration id ${m.id}`);
    ids.add(m.id);
  }
  // Schema changes, and the wait for another process's migrations, may take minutes.
  return db.transaction(
    async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(7436201)');
      await tx.query(
        'CREATE TABLE IF NOT EXISTS charla_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = new Set(
        (await tx.query<{ id: string }>('SELECT id FROM charla_migrations')).rows.map((r) => r.id),
      );
      const applied: string[] = [];
      for (const m of sorted) {
        if (done.has(m.id)) continue;
        for (const statement of splitStatements(m.sql)) await tx.query(statement);
        await tx.query('INSERT INTO charla_migrations (id) VALUES ($1)', [m.id]);
        applied.push(m.id);
      }
      return applied;
    },
    { queryTimeoutMs: SCHEMA_QUERY_TIMEOUT_MS },
  );
}

/**
 * Splits on semicolons at line ends (migrations keep one statement per `;\n`).
 * A dollar-quoted body (`$tag$ ... $tag$`, a function's) is one piece of its
 * statement whatever it holds.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let rest = sql;
  let current = '';
  const boundary = /;\s*(?:\n|$)|\$([A-Za-z_][A-Za-z_0-9]*)?\$/;
  for (;;) {
    const m = boundary.exec(rest);
    if (!m) {
      current += rest;
      break;
    }
    if (m[0].startsWith(';')) {
      statements.push(current + rest.slice(0, m.index));
      current = '';
      rest = rest.slice(m.index + m[0].length);
      continue;
    }
    // A dollar quote: keep everything up to its closing tag.
    const close = rest.indexOf(m[0], m.index + m[0].length);
    if (close < 0) throw new Error(`unterminated dollar quote ${m[0]} in a migration`);
    current += rest.slice(0, close + m[0].length);
    rest = rest.slice(close + m[0].length);
  }
  statements.push(current);
  return statements.map((s) => s.trim()).filter((s) => s.length > 0 && !/^(--[^\n]*\n?)+$/.test(s));
}
