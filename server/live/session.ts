/**
 * Widget sessions. A widget opens one with its API key and a user; the service
 * answers with a token:
 *
 *   base64url(JSON claims) "." base64url(HMAC-SHA256(signing key, "charla-session\n" + claims))
 *
 * Claims: v (1), uid (user), wid (widget), cid (company), bid (bot), key (the
 * api_keys row id), kid (signing key id, so keys rotate like signed media),
 * exp (Unix seconds, SESSION_TTL_SECONDS after issue). Every widget call
 * carries `Authorization: Bearer <token>`; the socket handshake carries
 * `auth: { token }`. On each use the token's signature and expiry are checked,
 * and the API key must still be active and the Origin allowed by the widget's
 * lists (both read through a short cache, so a revoked key or a changed list
 * takes effect within seconds).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { SESSION_TTL_SECONDS } from '../../types/index.ts';
import { ApiError } from '../http/errors.ts';
import { listsOf, originAllowed, type OriginLists } from './origin.ts';
import { botIdsOf } from './rooms.ts';

export interface SessionClaims {
  v: 1;
  uid: string;
  wid: string;
  cid: string;
  bid: string;
  key: number;
  kid: string;
  exp: number;
  /** 1 when the session proved its user id with a userHash. */
  idv?: 1;
}

/** How API keys are stored (widget creation) and looked up (sessions): the SHA-256 of the key, in hex. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export interface WidgetAccess {
  keyId: number;
  keyActive: boolean;
  widgetId: string;
  botId: string;
  companyId: string;
  config: Record<string, unknown>;
  lists: OriginLists;
  /** The key's identity-verification secret (null for a key issued without one). */
  identitySecret: string | null;
}

interface AccessRow {
  key_id: number;
  state: number;
  widget_id: string;
  bot_id: string;
  company_id: string;
  config: Record<string, unknown> | string;
  identity_secret: string | null;
}

const ACCESS_SQL = `SELECT k.id AS key_id, k.state, k.identity_secret, w.id AS widget_id, w.bot_id, w.company_id, w.config
  FROM api_keys k JOIN widgets w ON w.id = k.widget_id`;

function toAccess(row: AccessRow): WidgetAccess {
  const config =
    typeof row.config === 'string' ? (JSON.parse(row.config) as Record<string, unknown>) : row.config;
  return {
    keyId: row.key_id,
    keyActive: row.state === 1,
    widgetId: row.widget_id,
    botId: row.bot_id,
    companyId: row.company_id,
    config: config ?? {},
    lists: listsOf(config),
    identitySecret: row.identity_secret ?? null,
  };
}

/** True when the widget's credentials.identityVerification is on. */
function needsIdentity(access: WidgetAccess): boolean {
  const credentials = access.config['credentials'];
  return (
    typeof credentials === 'object' &&
    credentials !== null &&
    (credentials as Record<string, unknown>)['identityVerification'] === true
  );
}

/** The userHash a business's backend makes for a user id: hex HMAC-SHA256 under the key's identity secret. */
function userHashOf(identitySecret: string, userId: string): string {
  return createHmac('sha256', identitySecret).update(userId, 'utf8').digest('hex');
}

/** Whether `userHash` is the userId's hash under this key's identity secret (constant-time comparison). */
function hashProves(access: WidgetAccess, userId: string, userHash: unknown): boolean {
  if (!access.identitySecret || typeof userHash !== 'string' || userHash.length === 0) return false;
  const expected = Buffer.from(userHashOf(access.identitySecret, userId), 'utf8');
  const given = Buffer.from(userHash.trim().toLowerCase(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** What a session's userHash established. */
export interface Identity {
  /** The userHash proved the userId under this key's identity secret. */
  proven: boolean;
  /** The widget verifies identities: the user id is verified from this session on. */
  verifies: boolean;
}

/**
 * Identity verification at session time: when the widget asks for it, the
 * page must give a userId and the userHash its backend made (401 otherwise,
 * constant-time check). Without it the page's userId is taken as given,
 * unless that user id is verified (see {@link unprovenSession}).
 */
export function checkIdentity(access: WidgetAccess, userId: string | undefined, userHash: unknown): Identity {
  const verifies = needsIdentity(access);
  const proven = userId !== undefined && hashProves(access, userId, userHash);
  if (verifies && !proven) {
    if (userId === undefined)
      throw identityRefused('This widget verifies identities: userId and userHash are required.');
    if (typeof userHash !== 'string' || userHash.length === 0)
      throw identityRefused('This widget verifies identities: userHash is required.');
    if (!access.identitySecret) throw identityRefused('This API key has no identity secret.');
    throw identityRefused('userHash does not match userId.');
  }
  return { proven, verifies };
}

const identityRefused = (message: string) => new ApiError('UNAUTHORIZED', { message });

/**
 * The refusal of a session, on any widget of the company, for a user id that
 * is verified (it once opened a session proven by its userHash on a widget
 * that verifies identities) when this session did not prove it.
 */
export function unprovenSession(userHash: unknown): ApiError {
  return typeof userHash === 'string' && userHash.length > 0
    ? identityRefused('userHash does not match userId.')
    : identityRefused('This user id signs in with identity verification: userHash is required.');
}

const CACHE_MS = 5000;

export class Sessions {
  private readonly cache = new Map<number, { at: number; access: WidgetAccess | null }>();
  /** Whether a user (company + user id) is verified; `true` never goes back, so it is kept. */
  private readonly verifiedUsers = new Map<string, { at: number; verified: boolean }>();
  /** Each company's bot ids (see botsOf). */
  private readonly companyBots = new Map<string, { at: number; ids: Set<string> }>();

  constructor(
    private readonly db: Db,
    private readonly keys: Record<string, string>,
  ) {}

  /** The widget an API key opens, or 401. */
  async accessByKey(apiKey: string): Promise<WidgetAccess> {
    const r = await this.db.query<AccessRow>(`${ACCESS_SQL} WHERE k.key_hash = $1`, [hashApiKey(apiKey)]);
    const row = r.rows[0];
    if (!row || row.state !== 1)
      throw new ApiError('UNAUTHORIZED', { message: 'Invalid or revoked API key.' });
    return toAccess(row);
  }

  private async accessByKeyId(keyId: number): Promise<WidgetAccess | null> {
    const hit = this.cache.get(keyId);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.access;
    const r = await this.db.query<AccessRow>(`${ACCESS_SQL} WHERE k.id = $1`, [keyId]);
    const access = r.rows[0] ? toAccess(r.rows[0]) : null;
    this.cache.set(keyId, { at: Date.now(), access });
    if (this.cache.size > 10_000) this.cache.clear();
    return access;
  }

  /** Whether the user id is verified (read through a short cache; a verified one stays verified). */
  private async isVerified(companyId: string, userId: string): Promise<boolean> {
    const key = `${companyId}\n${userId}`;
    const hit = this.verifiedUsers.get(key);
    if (hit && (hit.verified || Date.now() - hit.at < CACHE_MS)) return hit.verified;
    const r = await this.db.query<{ verified: boolean }>(
      'SELECT verified FROM live_users WHERE company_id = $1 AND id = $2',
      [companyId, userId],
    );
    const verified = r.rows[0]?.verified === true;
    if (this.verifiedUsers.size > 10_000) this.verifiedUsers.clear();
    this.verifiedUsers.set(key, { at: Date.now(), verified });
    return verified;
  }

  /** The company's bot ids, read at most once per CACHE_MS per company (not per user or request). */
  private async botsOf(companyId: string): Promise<Set<string>> {
    const hit = this.companyBots.get(companyId);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.ids;
    const ids = await botIdsOf(this.db, companyId);
    this.companyBots.set(companyId, { at: Date.now(), ids });
    return ids;
  }

  /** A user id just became verified in this process: its unproven sessions stop at once here. */
  markVerified(companyId: string, userId: string): void {
    this.verifiedUsers.set(`${companyId}\n${userId}`, { at: Date.now(), verified: true });
  }

  private mac(kid: string, claims: string): string {
    return createHmac('sha256', this.keys[kid] as string)
      .update(`charla-session\n${claims}`)
      .digest('base64url');
  }

  issue(
    access: WidgetAccess,
    userId: string,
    now = Date.now(),
    /** The session proved its user id with a userHash. */
    proven = false,
  ): { token: string; expiresAt: string; claims: SessionClaims } {
    const kid = Object.keys(this.keys)[0] as string;
    const exp = Math.floor(now / 1000) + SESSION_TTL_SECONDS;
    const claims: SessionClaims = {
      v: 1,
      uid: userId,
      wid: access.widgetId,
      cid: access.companyId,
      bid: access.botId,
      key: access.keyId,
      kid,
      exp,
      ...(proven ? { idv: 1 as const } : {}),
    };
    const encoded = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return {
      token: `${encoded}.${this.mac(kid, encoded)}`,
      expiresAt: new Date(exp * 1000).toISOString(),
      claims,
    };
  }

  /** The token's claims when its signature holds and it has not expired; 401 otherwise. */
  verify(token: unknown, now = Date.now()): SessionClaims {
    const fail = (message: string) => new ApiError('UNAUTHORIZED', { message });
    if (typeof token !== 'string' || token.length > 4096) throw fail('Missing session token.');
    const dot = token.indexOf('.');
    if (dot <= 0) throw fail('Malformed session token.');
    const encoded = token.slice(0, dot);
    const sig = token.slice(dot + 1);
    let claims: SessionClaims;
    try {
      claims = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as SessionClaims;
    } catch {
      throw fail('Malformed session token.');
    }
    if (typeof claims !== 'object' || claims === null || claims.v !== 1 || typeof claims.kid !== 'string') {
      throw fail('Malformed session token.');
    }
    // Well formed, but signed with a key this process lacks: a rotation half done across processes.
    if (!Object.prototype.hasOwnProperty.call(this.keys, claims.kid))
      throw fail(
        `Session token signed with a key this service does not have (key id "${claims.kid.slice(0, 64)}"): give every process the same CHARLA_SIGNING_KEYS.`,
      );
    const expected = Buffer.from(this.mac(claims.kid, encoded));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw fail('Invalid session token.');
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now) throw fail('Session expired.');
    return claims;
  }

  /**
   * Checks a session token and the caller's Origin: 401 for a bad, expired or
   * revoked session, or one that did not prove a user id verified since it
   * was issued; 403 ORIGIN_NOT_ALLOWED for an origin the widget's lists refuse.
   */
  async authorize(
    token: unknown,
    origin: string | undefined,
  ): Promise<{ claims: SessionClaims; access: WidgetAccess }> {
    const claims = this.verify(token);
    const access = await this.accessByKeyId(claims.key);
    if (!access || !access.keyActive || access.widgetId !== claims.wid) {
      throw new ApiError('UNAUTHORIZED', { message: 'The API key of this session was revoked.' });
    }
    checkOrigin(access, origin);
    // No session is issued to a bot's id (refuseBotIds); one issued before that rule is refused too.
    if ((await this.botsOf(claims.cid)).has(claims.uid))
      throw new ApiError('UNAUTHORIZED', { message: 'A session cannot be a bot’s.' });
    if (claims.idv !== 1 && (await this.isVerified(claims.cid, claims.uid))) {
      throw new ApiError('UNAUTHORIZED', {
        message:
          'This user id now signs in with identity verification: open a new session with its userHash.',
      });
    }
    return { claims, access };
  }
}

export function checkOrigin(access: WidgetAccess, origin: string | undefined): void {
  if (!originAllowed(access.lists, origin)) {
    throw new ApiError('ORIGIN_NOT_ALLOWED', {
      message: origin
        ? `Origin ${origin} is not allowed for this widget.`
        : 'This widget needs an Origin header.',
    });
  }
}

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
