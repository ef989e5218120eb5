/**
 * Helpers of the HTTP service tests: a real server on an ephemeral port, real
 * storage (in-memory PGlite, a PGlite directory, or PostgreSQL when
 * DATABASE_URL is set), and a small fetch wrapper with the demo credentials.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp } from '../../../server/app.ts';
import type { Config } from '../../../server/config.ts';

export const CLIENT_ID = 'demo-client';
export const CLIENT_SECRET = 'demo-secret';
export const COMPANY_TOKEN = 'demo-company-token';
export const BASIC = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
export const COMPANY = `Basic ${COMPANY_TOKEN}`;
export const PUBLIC_BASE = 'https://charla.test';

/** PostgreSQL when DATABASE_URL is set, else in-memory PGlite. */
export const DATABASE_URL = process.env['DATABASE_URL'] || 'memory://';
export const ON_POSTGRES = /^postgres(ql)?:\/\//.test(DATABASE_URL);

export interface Server {
  app: FastifyInstance;
  base: string;
  close(): Promise<void>;
}

/**
 * The storage of a test's service: `options.databaseUrl` when given (even
 * undefined: a PGlite directory), else DATABASE_URL. On PostgreSQL a schema of
 * its own (search_path in the connection options), dropped by `drop()` unless
 * `keep`; reopened when `schema` is given.
 */
export async function storageFor(
  options: Partial<Config>,
  storage: { schema?: string; keep?: boolean } = {},
): Promise<{ databaseUrl: string | undefined; schema: string | undefined; drop(): Promise<void> }> {
  const given = 'databaseUrl' in options ? options.databaseUrl : DATABASE_URL;
  if (!given || !/^postgres(ql)?:\/\//.test(given))
    return { databaseUrl: given, schema: undefined, drop: async () => {} };
  const schema = storage.schema ?? `t_${randomUUID().replace(/-/g, '')}`;
  const sql = async (statement: string) => {
    const client = new pg.Client({ connectionString: given });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await sql(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const url = new URL(given);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    databaseUrl: url.toString(),
    schema,
    drop: async () => {
      if (!storage.keep) await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/**
 * A server on an ephemeral port. On PostgreSQL each server gets its own schema
 * (search_path in the connection options), so files running at once never see
 * each other's rows; pass `schema` to reopen the same storage (restart tests).
 */
export async function startServer(
  options: Partial<Config> = {},
  storage: { schema?: string; keep?: boolean } = {},
): Promise<Server & { schema: string | undefined }> {
  const { databaseUrl, schema, drop } = await storageFor(options, storage);
  const app = await buildApp({
    publicBaseUrl: PUBLIC_BASE,
    scheduler: false,
    logger: false,
    storeTemplate: inject('pgliteSchemaTemplate'),
    reuseStores: true,
    ...options,
    databaseUrl,
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    base: address,
    schema,
    close: async () => {
      await app.close();
      await drop();
    },
  };
}

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** A request with the client credentials unless headers say otherwise. */
export async function call<T = any>(
  server: Server | string,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string | undefined> } = {},
): Promise<Res<T>> {
  const base = typeof server === 'string' ? server : server.base;
  const headers: Record<string, string> = {};
  const given = {
    authorization: BASIC,
    ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...options.headers,
  };
  for (const [k, v] of Object.entries(given)) if (v !== undefined) headers[k] = v;
  const res = await fetch(base + path, {
    method,
    headers,
    body: options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers, text };
}

/** A unique id, so tests can share one PostgreSQL database. */
export const uid = (prefix = 'x') => `${prefix}-${randomUUID()}`;

/** Creates a bot (and a widget) through the API; returns the bot id. */
export async function createBot(
  server: Server,
  options: { callingEnabled?: boolean; name?: string } = {},
): Promise<string> {
  const res = await call(server, 'POST', '/v1/widget/create', {
    body: { bot: { ...options }, widget: { properties: { type: 'normal' } } },
  });
  if (res.status !== 200) throw new Error(`createBot: ${res.status} ${res.text}`);
  return res.body.data.Bot.id as string;
}

/**
 * The service on a PGlite directory at `port` (0: any free one), without the scheduler: restart tests
 * start it again on the same directory and port, so widgets reconnect to the same address and find
 * what was stored. Answers the app and its address.
 */
export async function startOnDataDir(dataDir: string, port: number, options: Partial<Config> = {}) {
  const app = await buildApp({
    databaseUrl: undefined,
    dataDir,
    storeTemplate: inject('pgliteSchemaTemplate'),
    scheduler: false,
    logger: false,
    ...options,
  });
  await app.listen({ port, host: '127.0.0.1' });
  const addr = app.server.address();
  if (!addr || typeof addr !== 'object') throw new Error('no address');
  return { app, port: addr.port, baseUrl: `http://127.0.0.1:${addr.port}` };
}

/** Row counts of every table the HTTP operations write (a rejected request changes none). */
export async function snapshot(server: Server): Promise<Record<string, string>> {
  const db = server.app.charla.db;
  const tables = ['bots', 'widgets', 'api_keys', 'campaigns', 'campaign_recipients', 'media'];
  const live = await db.query<{ name: string }>(
    'SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NOT NULL',
    [['rooms', 'room_members', 'messages', 'live_users']],
  );
  tables.push(...live.rows.map((r) => r.name));
  // One statement for all tables (PGlite's cost is mostly per statement): each table's row count
  // and a hash of all its rows in order.
  const { rows } = await db.query<{ name: string; n: string; h: string | null }>(
    tables
      .map(
        (table) =>
          `SELECT '${table}' AS name, count(*)::text AS n, md5(string_agg(t::text, ',' ORDER BY t::text)) AS h FROM ${table} t`,
      )
      .join(' UNION ALL '),
  );
  const out: Record<string, string> = {};
  for (const table of tables) {
    const row = rows.find((r) => r.name === table);
    out[table] = `${row?.n}:${row?.h}`;
  }
  return out;
}

/** A date-time this many seconds from now, ISO 8601 with Z. */
export const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

/** Waits until fn returns truthy (or times out). */
export async function until<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  stepMs = 50,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - start > timeoutMs) throw new Error('until: timed out');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Inserts campaigns straight into storage (list tests need chosen creation dates). */
export async function insertCampaigns(
  server: Server,
  rows: Array<{ botId: string; createdAt: string; status?: string; elementName?: string; name?: string }>,
): Promise<string[]> {
  const ids: string[] = [];
  for (const r of rows) {
    const id = randomUUID();
    ids.push(id);
    await server.app.charla.db.query(
      `INSERT INTO campaigns (id, company_id, name, element_name, bot_id, status, message, created_at, completed_at)
       VALUES ($1, 'company-1', $2, $3, $4, $5, $6, $7, CASE WHEN $5 = 'COMPLETED' THEN $7::timestamptz ELSE NULL END)`,
      [
        id,
        r.name ?? 'c',
        r.elementName ?? 'el',
        r.botId,
        r.status ?? 'COMPLETED',
        JSON.stringify({ type: 'text', text: 'hi' }),
        r.createdAt,
      ],
    );
  }
  return ids;
}
