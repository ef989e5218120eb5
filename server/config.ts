/** The service's configuration, from the environment or from buildApp's options. */
import { isIP, isIPv4 } from 'node:net';
import { MAX_TIMER_MS } from '../types/limits.ts';

export interface Config {
  port: number;
  host: string;
  /** postgres://… for PostgreSQL, `memory://` for in-memory PGlite, unset for PGlite in dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL connections per process (DATABASE_POOL_SIZE, at least 2). */
  databasePoolSize: number;
  dataDir: string;
  /** CHARLA_STORE_TEMPLATE: a dump of a PGlite cluster a new embedded store starts from (tests; see store/db.ts). */
  storeTemplate?: string | undefined;
  /** In-memory stores from storeTemplate kept for reuse once closed (tests only; see store/db.ts). */
  reuseStores?: boolean | undefined;
  /** How the free space on the data directory's disk is read (tests give a disk of their own; statfs otherwise). */
  diskFree?: ((dir: string) => Promise<number>) | undefined;
  redisUrl: string | undefined;
  clientId: string;
  clientSecret: string;
  companyToken: string;
  companyId: string;
  companyName: string;
  /** Signing keys by key id; the first is used to sign, all verify (rotation). */
  signingKeys: Record<string, string>;
  /** The address clients reach this service at (signed media URLs are built on it). */
  publicBaseUrl: string | undefined;
  /**
   * Which peers' X-Forwarded-* headers are believed (fastify's trustProxy): the
   * proxies in front of this process. Default: loopback only (a proxy on the same machine).
   */
  trustProxy: boolean | string;
  /** Accept http://127.0.0.1 / localhost media addresses (tests and the demo only). */
  allowLoopbackMedia: boolean;
  /** Run the campaign scheduler in this process. */
  scheduler: boolean;
  schedulerIntervalMs: number;
  /** Seed the demo bot, widgets and data on first start. */
  seedDemo: boolean;
  /** Serve dist/ and demo/ pages. */
  serveStatic: boolean;
  /** Client socket events a user may send per second, sustained (CHARLA_SOCKET_RATE). */
  socketRate: number;
  /** Client socket events a user may send at once before the sustained rate applies (CHARLA_SOCKET_BURST). */
  socketBurst: number;
  /** Live connections (sockets) one widget user may hold open at once on this process (CHARLA_SOCKETS_PER_USER). */
  socketsPerUser: number;
  /** Files a widget user may upload an hour (CHARLA_UPLOADS_PER_HOUR); a client address ten times it. */
  uploadsPerHour: number;
  /** Megabytes a widget user may upload an hour (CHARLA_UPLOAD_MB_PER_HOUR); a client address ten times it. */
  uploadMbPerHour: number;
  /** Widget sessions under user ids new to the company a client address may open an hour (CHARLA_NEW_USERS_PER_HOUR). */
  newUsersPerHour: number;
  /**
   * How long a request may take to arrive, headers and body, in ms
   * (CHARLA_REQUEST_TIMEOUT_MS); past it the answer is 408 REQUEST_TIMEOUT.
   */
  requestTimeoutMs: number;
  /**
   * How long shutting down (SIGTERM, app.close()) waits for responses still being
   * written, in ms; then every connection left open is closed, so a client that
   * stopped reading a download cannot hold the process up.
   */
  shutdownGraceMs: number;
  /**
   * How long a process told to stop (SIGTERM) keeps serving with GET /ready answering 503 before
   * it shuts down, in ms (CHARLA_SHUTDOWN_DELAY_MS, 0 by default): the time a balancer that polls
   * /ready needs to stop sending it new requests.
   */
  shutdownDelayMs: number;
  logger: boolean | { level: string };
  production: boolean;
  /** Where each service process says who it is (scheduler claims, logs). */
  instanceId: string;
  /** Which settings fell back to a demo value, as "VARIABLE (value used)", printed loudly at start (empty in production). */
  demoValues: string[];
  /** CHARLA_SIGNING_SECRET was set beside a CHARLA_SIGNING_KEYS list, which wins: said at start. */
  signingSecretUnused?: boolean;
}

/** pino's levels (LOG_LEVEL). */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Default socket rate limit per user. The widget's own traffic peaks far
 * below it (a sync, a seen and a read report per room, the messages its user
 * types); the burst covers an outbox of 200 messages flushed at once after a
 * reconnect. See README, Configuration.
 */
const SOCKET_RATE = 20;
const SOCKET_BURST = 200;
/**
 * Live connections one widget user may hold at once on a process (server/live/gateway.ts): a
 * socket per open tab or page, so far above a visitor's tabs, well below one session token
 * opening thousands of sockets (each holds memory, a presence row and the user's fan-out).
 */
const SOCKETS_PER_USER = 50;
/**
 * Widget uploads a user may make an hour, and their megabytes (server/live/upload-limit.ts): far
 * above a conversation's photos and documents (ten 25 MB documents fit), well below a script
 * filling the store.
 */
const UPLOADS_PER_HOUR = 60;
const UPLOAD_MB_PER_HOUR = 250;
/**
 * New visitors one client address may bring an hour (server/live/new-user-limit.ts): ten a
 * minute, far above an office's or a carrier's shared address, far below a script making up
 * users (about 50 a second from one address, each a user, a bot room and its greeting stored).
 */
const NEW_USERS_PER_HOUR = 600;

/**
 * Default time for a request to arrive whole: 5 minutes, Node's own default
 * (fastify turns it off). The largest bodies decide it: a widget upload of
 * 25 MB takes about 200 s on a 1 Mbit/s mobile uplink, and must not be cut.
 */
const REQUEST_TIMEOUT_MS = 300_000;
/**
 * What shutting down gives responses still being written (ms): well inside the
 * usual orchestrator's grace (Kubernetes: 30 s before SIGKILL).
 */
const SHUTDOWN_GRACE_MS = 10_000;

const DEMO = { clientId: 'demo-client', clientSecret: 'demo-secret', companyToken: 'demo-company-token' };
const DEMO_SIGNING_KEY = 'demo-signing-secret-change-me';
/** Shortest client secret and company token production starts with. */
const SECRET_MIN = 16;
/** Shortest signing key production starts with (HMAC-SHA256: 32 characters of hex are 128 bits). */
const SIGNING_KEY_MIN = 32;

/** Reads the environment. In production, missing credentials are fatal. An empty value counts as unset. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env['NODE_ENV'] === 'production';
  const clientId = setting(env, 'CHARLA_CLIENT_ID');
  const clientSecret = setting(env, 'CHARLA_CLIENT_SECRET');
  const companyToken = setting(env, 'CHARLA_COMPANY_TOKEN');
  const signingSecret = setting(env, 'CHARLA_SIGNING_SECRET');
  const signingKeys = parseSigningKeys(signingSecret, setting(env, 'CHARLA_SIGNING_KEYS'));
  const hasSigningKeys = signingKeys !== undefined;
  const missing = [
    ...(clientId ? [] : ['CHARLA_CLIENT_ID']),
    ...(clientSecret ? [] : ['CHARLA_CLIENT_SECRET']),
    ...(companyToken ? [] : ['CHARLA_COMPANY_TOKEN']),
    ...(hasSigningKeys ? [] : ['CHARLA_SIGNING_SECRET (or CHARLA_SIGNING_KEYS)']),
  ];
  if (production && missing.length) {
    throw new Error(
      `In production CHARLA_CLIENT_ID, CHARLA_CLIENT_SECRET, CHARLA_COMPANY_TOKEN and CHARLA_SIGNING_SECRET (or CHARLA_SIGNING_KEYS) must be set; missing: ${missing.join(', ')}.`,
    );
  }
  if (production) {
    // Set is not enough: the demo values are published, and a short secret is guessed.
    const weak = [
      ...(clientSecret === DEMO.clientSecret || clientSecret!.length < SECRET_MIN
        ? ['CHARLA_CLIENT_SECRET']
        : []),
      ...(companyToken === DEMO.companyToken || companyToken!.length < SECRET_MIN
        ? ['CHARLA_COMPANY_TOKEN']
        : []),
      ...Object.entries(signingKeys!)
        .filter(([, key]) => key === DEMO_SIGNING_KEY || key.length < SIGNING_KEY_MIN)
        .map(([id]) => `signing key "${id}"`),
    ];
    if (weak.length)
      throw new Error(
        `In production CHARLA_CLIENT_SECRET and CHARLA_COMPANY_TOKEN must be at least ${SECRET_MIN} characters and each signing key at least ${SIGNING_KEY_MIN} (openssl rand -hex 32), none of them a demo value; too weak: ${weak.join(', ')}.`,
      );
  }
  const logLevel = setting(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (it is "${logLevel}").`);
  }
  // Storage and fan-out are checked before anything opens them: a mistyped address must not
  // start a process on a private store of its own, or without the other processes.
  const databaseUrl = databaseUrlOf(env['DATABASE_URL']);
  const poolSize = databasePoolSize(env['DATABASE_POOL_SIZE']);
  const redisUrl = redisUrlOf(env['REDIS_URL']);
  const socketRate = positiveNumber(env, 'CHARLA_SOCKET_RATE', SOCKET_RATE, 'events per second');
  const socketBurst = positiveNumber(env, 'CHARLA_SOCKET_BURST', SOCKET_BURST, 'events', true);
  const socketsPerUser = positiveNumber(
    env,
    'CHARLA_SOCKETS_PER_USER',
    SOCKETS_PER_USER,
    'connections',
    true,
  );
  const uploadsPerHour = positiveNumber(env, 'CHARLA_UPLOADS_PER_HOUR', UPLOADS_PER_HOUR, 'files', true);
  const uploadMbPerHour = positiveNumber(env, 'CHARLA_UPLOAD_MB_PER_HOUR', UPLOAD_MB_PER_HOUR, 'megabytes');
  const newUsersPerHour = positiveNumber(env, 'CHARLA_NEW_USERS_PER_HOUR', NEW_USERS_PER_HOUR, 'users', true);
  const requestTimeoutMs = positiveNumber(
    env,
    'CHARLA_REQUEST_TIMEOUT_MS',
    REQUEST_TIMEOUT_MS,
    'milliseconds',
    true,
  );
  const shutdownDelay = setting(env, 'CHARLA_SHUTDOWN_DELAY_MS');
  // Digits only: Number() also read "1e3", "0x10", " 100" and "3000.0", and a timer takes at most
  // 2^31-1 ms (a longer one fired at once, after a TimeoutOverflowWarning: no delay at all).
  const shutdownDelayMs = shutdownDelay === undefined ? 0 : Number(shutdownDelay);
  if (shutdownDelay !== undefined && !(/^[0-9]+$/.test(shutdownDelay) && shutdownDelayMs <= MAX_TIMER_MS))
    throw new Error(
      `CHARLA_SHUTDOWN_DELAY_MS must be a whole number of milliseconds, 0 to ${MAX_TIMER_MS} (it is "${shutdownDelay}").`,
    );
  const publicBaseUrl = setting(env, 'CHARLA_PUBLIC_URL');
  // Signed media addresses are built on it: a value without its scheme would make broken links.
  if (publicBaseUrl !== undefined && !(/^https?:\/\//i.test(publicBaseUrl) && URL.canParse(publicBaseUrl)))
    throw new Error(
      `CHARLA_PUBLIC_URL must be an http(s) address such as https://chat.example.com (it is "${publicBaseUrl}").`,
    );
  const port = portOf(env['PORT']);
  const host = setting(env, 'HOST') ?? '127.0.0.1';
  return {
    ...defaultConfig(),
    port,
    host,
    databaseUrl,
    databasePoolSize: poolSize,
    dataDir: setting(env, 'CHARLA_DATA_DIR') ?? './.charla-data',
    storeTemplate: setting(env, 'CHARLA_STORE_TEMPLATE'),
    redisUrl,
    clientId: clientId ?? DEMO.clientId,
    clientSecret: clientSecret ?? DEMO.clientSecret,
    companyToken: companyToken ?? DEMO.companyToken,
    companyId: setting(env, 'CHARLA_COMPANY_ID') ?? 'company-1',
    companyName: setting(env, 'CHARLA_COMPANY_NAME') ?? 'Charla Demo',
    signingKeys: signingKeys ?? { k1: DEMO_SIGNING_KEY },
    publicBaseUrl,
    trustProxy: parseTrustProxy(env['CHARLA_TRUST_PROXY']),
    allowLoopbackMedia: onOff(env, 'CHARLA_ALLOW_LOOPBACK_MEDIA', !production),
    scheduler: onOff(env, 'CHARLA_SCHEDULER', true),
    seedDemo: onOff(env, 'CHARLA_SEED_DEMO', true) && !production,
    serveStatic: onOff(env, 'CHARLA_SERVE_STATIC', true),
    socketRate,
    socketBurst,
    socketsPerUser,
    uploadsPerHour,
    uploadMbPerHour,
    newUsersPerHour,
    requestTimeoutMs,
    shutdownGraceMs: SHUTDOWN_GRACE_MS,
    shutdownDelayMs,
    logger: { level: logLevel },
    production,
    instanceId: setting(env, 'CHARLA_INSTANCE_ID') ?? `${host}:${port}:${process.pid}`,
    // Empty in production, which refuses to start without every one of them (above).
    demoValues: [
      ...(clientId ? [] : [`CHARLA_CLIENT_ID (${DEMO.clientId})`]),
      ...(clientSecret ? [] : [`CHARLA_CLIENT_SECRET (${DEMO.clientSecret})`]),
      ...(companyToken ? [] : [`CHARLA_COMPANY_TOKEN (${DEMO.companyToken})`]),
      ...(hasSigningKeys ? [] : ['CHARLA_SIGNING_SECRET (a demo signing key)']),
    ],
    // The secret is the key k1: unused unless the list gives it as k1 (as the README's rotation does).
    ...(signingSecret !== undefined && signingKeys?.['k1'] !== signingSecret
      ? { signingSecretUnused: true }
      : {}),
  };
}

/** "A", "A and B", "A, B and C". */
function listed(names: string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** A variable's value; unset when it is missing, empty or only blanks. */
function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}

/** An address for an error message, its password masked (it may be a secret pasted in the wrong place). */
function shownUrl(value: string): string {
  if (!URL.canParse(value)) return /[@:]/.test(value) ? 'not an address' : `"${value}"`;
  const url = new URL(value);
  if (url.password) url.password = '***';
  return `"${url.toString()}"`;
}

/**
 * DATABASE_URL: unset or empty -> PGlite in CHARLA_DATA_DIR; `memory://` -> in-memory PGlite;
 * postgres:// or postgresql:// (any case, as URL schemes are) -> PostgreSQL, the scheme given back in
 * lower case. Anything else stops the start: it used to open a private PGlite, so each process of
 * several had a database of its own.
 */
export function databaseUrlOf(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim();
  const scheme = /^(postgres|postgresql|memory):\/\//i.exec(value)?.[1];
  const lower = scheme?.toLowerCase();
  if (lower === 'memory' && value.length === 'memory://'.length) return 'memory://';
  if (scheme && lower !== 'memory' && URL.canParse(value)) return `${lower}${value.slice(scheme.length)}`;
  throw new Error(
    `DATABASE_URL must be a postgres:// address such as postgres://user:pass@host:5432/db (postgresql:// too), or memory:// (it is ${shownUrl(value)}); unset, the service uses PGlite in CHARLA_DATA_DIR.`,
  );
}

/**
 * DATABASE_POOL_SIZE: PostgreSQL connections per process, 10 when unset. At least 2: the demo seed
 * holds one connection for its lock (several processes starting at once) while it writes through
 * another, and a request's transaction must not wait behind the scheduler's for ever.
 */
function databasePoolSize(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 10;
  if (!/^\s*\d+\s*$/.test(raw) || Number(raw) < MIN_POOL_SIZE || !Number.isSafeInteger(Number(raw)))
    throw new Error(
      `DATABASE_POOL_SIZE must be a whole number of at least ${MIN_POOL_SIZE} (it is "${raw}").`,
    );
  return Number(raw);
}

const MIN_POOL_SIZE = 2;

/** REDIS_URL: unset or empty -> in-process fan-out; else a redis:// or rediss:// address (any case). */
export function redisUrlOf(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim();
  const scheme = /^(rediss?):\/\//i.exec(value)?.[1];
  if (scheme && URL.canParse(value)) return `${scheme.toLowerCase()}${value.slice(scheme.length)}`;
  throw new Error(
    `REDIS_URL must be a redis:// or rediss:// address such as redis://host:6379 (it is ${shownUrl(value)}).`,
  );
}

/**
 * What a process with this configuration should warn about when it starts: the demo values in
 * use, and the following. In production without CHARLA_PUBLIC_URL, the service's own address is each
 * request's Host (or a trusted proxy's X-Forwarded-Host): a proxy that passes the client's Host
 * through lets a caller choose the host of the signed media addresses it is given.
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  // Only what really fell back: a process given its credentials but no signing key does not
  // advertise a demo login it refuses.
  if (config.demoValues.length)
    warnings.push(
      `\n  *** DEMO VALUES IN USE: ${config.demoValues.join(', ')}. ***\n` +
        `  Set ${listed(config.demoValues.map((v) => v.split(' ')[0]!))} for real use.`,
    );
  if (config.signingSecretUnused)
    warnings.push(
      'CHARLA_SIGNING_SECRET is set and not used: CHARLA_SIGNING_KEYS is, and its first key signs. Keep one of the two (the secret is the key k1: write "k1:<secret>" in the list to go on verifying what it signed).',
    );
  if (config.production && !config.publicBaseUrl)
    warnings.push(
      "CHARLA_PUBLIC_URL is not set: signed media addresses name each request's own Host. Set it to the public address (https://chat.example.com) when the service runs behind a proxy.",
    );
  // PostgreSQL is how several processes share a database; without Redis each of them sends live
  // messages only to its own widgets, and nothing else would say so.
  if (config.databaseUrl && /^postgres(ql)?:\/\//.test(config.databaseUrl) && !config.redisUrl)
    warnings.push(
      'DATABASE_URL is PostgreSQL and REDIS_URL is not set: live messages reach only the widgets connected to this process. ' +
        "That is fine for one process; several processes need REDIS_URL (the same Redis for all), or each one's widgets never see the messages the others take.",
    );
  return warnings;
}

/** Defaults for tests: in-memory storage, demo credentials, no logger, no static files. */
export function defaultConfig(): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: 'memory://',
    databasePoolSize: 10,
    dataDir: './.charla-data',
    redisUrl: undefined,
    ...DEMO,
    companyId: 'company-1',
    companyName: 'Charla Demo',
    signingKeys: { k1: DEMO_SIGNING_KEY },
    publicBaseUrl: undefined,
    trustProxy: 'loopback',
    allowLoopbackMedia: true,
    scheduler: true,
    schedulerIntervalMs: 500,
    seedDemo: false,
    serveStatic: false,
    socketRate: SOCKET_RATE,
    socketBurst: SOCKET_BURST,
    socketsPerUser: SOCKETS_PER_USER,
    uploadsPerHour: UPLOADS_PER_HOUR,
    uploadMbPerHour: UPLOAD_MB_PER_HOUR,
    // A test file's service takes its visitors from one address: its own limit where it tests it.
    newUsersPerHour: 1_000_000,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    shutdownGraceMs: SHUTDOWN_GRACE_MS,
    shutdownDelayMs: 0,
    logger: false,
    production: false,
    instanceId: `test:${process.pid}`,
    demoValues: [],
  };
}

/** A variable that must be a positive number (an integer when `integer`); unset gives the default. */
function positiveNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  unit: string,
  integer = false,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isSafeInteger(value))) {
    throw new Error(
      `${name} must be a positive ${integer ? 'whole number' : 'number'} of ${unit} (it is "${raw}").`,
    );
  }
  return value;
}

/** An on/off switch: `1`, `true`, `on`, `yes` or `0`, `false`, `off`, `no` (any case); unset gives the default. */
function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(value)) return true;
  if (['0', 'false', 'off', 'no'].includes(value)) return false;
  throw new Error(`${name} must be 1, true, on or yes (on), or 0, false, off or no (off) (it is "${raw}").`);
}

/** PORT: a port number, 0 (any free port) to 65535; unset gives 8080. */
function portOf(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 8080;
  const port = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || port > 65535)
    throw new Error(`PORT must be a port number from 0 to 65535 (it is "${raw}").`);
  return port;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * CHARLA_TRUST_PROXY: unset -> 'loopback'; `true`/`false`; or addresses, CIDR ranges (`10.0.0.0/8`,
 * `10.0.0.0/255.0.0.0`, `fd00::/8`) and the names loopback, linklocal, uniquelocal, comma-separated.
 * Anything else stops the start, naming the entry.
 */
export function parseTrustProxy(value: string | undefined): boolean | string {
  const v = (value ?? '').trim();
  if (v === '') return 'loopback';
  if (v === 'true') return true;
  if (v === 'false') return false;
  for (const entry of v.split(',').map((e) => e.trim())) {
    if (!PROXY_NAMES.includes(entry) && !isAddressOrRange(entry)) {
      throw new Error(
        `CHARLA_TRUST_PROXY must be true, false, or addresses, CIDR ranges and ${PROXY_NAMES.join(', ')}, comma-separated ("${entry}" is none of them).`,
      );
    }
  }
  return v;
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', range, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (range === undefined) return true;
  if (family === 4 && isIPv4(range)) return true;
  return /^\d{1,3}$/.test(range) && Number(range) <= (family === 4 ? 32 : 128);
}

/** A key id: it goes into signed addresses as it is (`?kid=`). */
const KEY_ID = /^[A-Za-z0-9._~-]+$/;

/**
 * CHARLA_SIGNING_KEYS="k2:secret2,k1:secret1" (the first signs, all verify) or one
 * CHARLA_SIGNING_SECRET as k1; undefined when neither is set. An entry that is not `id:secret`, or a
 * key id given twice, stops the start, naming the entry by its place and its id, never its secret
 * (an entry without an id may be a secret itself). Blank entries (a trailing comma) are passed over.
 */
function parseSigningKeys(
  secret: string | undefined,
  list: string | undefined,
): Record<string, string> | undefined {
  if (list === undefined) return secret === undefined ? undefined : { k1: secret };
  const keys: Record<string, string> = {};
  const refuse = (why: string) =>
    new Error(
      `CHARLA_SIGNING_KEYS must be id:secret entries, comma-separated, such as "k2:new-secret,k1:old-secret" (the id of letters, digits, ".", "_", "~" or "-"): ${why}.`,
    );
  for (const [n, raw] of list.split(',').entries()) {
    const entry = raw.trim();
    if (entry === '') continue;
    const i = entry.indexOf(':');
    const id = i < 0 ? '' : entry.slice(0, i).trim();
    const value = i < 0 ? '' : entry.slice(i + 1).trim();
    if (i < 0) throw refuse(`entry ${n + 1} has no "id:" (not shown: it may be a secret)`);
    if (!KEY_ID.test(id)) throw refuse(`entry ${n + 1} has no usable key id before its ":"`);
    // Kept in order in an object, whose keys that read as numbers come first whatever their place:
    // "2:new,1:old" signed with 1.
    if (/^\d+$/.test(id))
      throw refuse(
        `entry ${n + 1} has the key id "${id}", only digits: start it with a letter, such as "k${id}"`,
      );
    if (!value) throw refuse(`entry ${n + 1} "${id}:" has no secret`);
    if (Object.hasOwn(keys, id)) throw refuse(`entry ${n + 1} gives the key id "${id}" twice`);
    keys[id] = value;
  }
  if (Object.keys(keys).length === 0) return secret === undefined ? undefined : { k1: secret };
  return keys;
}
