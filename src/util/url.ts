/**
 * URL checks for anything that comes from the network or the host page before
 * it becomes a `src`, an `href` or a request target: https anywhere, http only
 * on the local machine (development and tests).
 */

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True when `hostname` is the local machine. */
export function isLocalHost(hostname: string): boolean {
  return LOCAL_HOSTS.has(hostname) || hostname.endsWith('.localhost');
}

/** The parsed URL when it is https, or http on the local machine; null otherwise. */
export function parseSafeUrl(value: unknown, base?: string): URL | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 4096) return null;
  let url: URL;
  try {
    url = base === undefined ? new URL(value) : new URL(value, base);
  } catch {
    return null;
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLocalHost(url.hostname)) return url;
  return null;
}

/** True when the value is an https URL (or http on the local machine). */
export function isSafeUrl(value: unknown): value is string {
  return parseSafeUrl(value) !== null;
}

/** The value when it is a safe URL, or null (for optional `src`/`href` slots). */
export function safeUrl(value: unknown): string | null {
  return parseSafeUrl(value)?.href ?? null;
}

/** Base URL without a trailing slash, or null when it is not safe. */
export function normalizeBaseUrl(value: unknown): string | null {
  const url = parseSafeUrl(value);
  if (!url) return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Where the service serves its signed media, under its base address: ROUTES.media
 * (types/routes.ts) without its `*`. Written out: importing ROUTES here made the
 * widget bundle 240 B gzip larger.
 */
const MEDIA_PATH = '/v1/media/';

/**
 * True when `value` is one of the service's own media addresses: the only
 * addresses it can sign again, so the only ones worth asking it to (anything
 * else is a 422 and a console error). Under the widget's base address, or
 * signed (`/v1/media/…?kid=..&exp=..&sig=..`, server/signing.ts) under any
 * host: the service also signs under its other names (CHARLA_PUBLIC_URL, its
 * listen address, each request's Host), which the widget cannot know.
 */
export function isServiceMedia(value: unknown, baseUrl: string): boolean {
  const url = parseSafeUrl(value);
  if (!url) return false;
  const q = url.searchParams;
  return (
    `${url.origin}${url.pathname}`.startsWith(`${baseUrl}${MEDIA_PATH}`) ||
    (url.pathname.startsWith(MEDIA_PATH) && q.has('kid') && q.has('exp') && q.has('sig'))
  );
}

/**
 * Seconds-since-epoch expiry of one of the service's signed media addresses
 * (`?kid=..&exp=..&sig=..`), or null when the address carries none.
 */
export function signedUrlExpiry(value: string): number | null {
  try {
    const url = new URL(value);
    if (!url.searchParams.has('sig')) return null;
    const exp = url.searchParams.get('exp');
    if (exp === null || !/^\d{1,12}$/.test(exp)) return null;
    return Number(exp);
  } catch {
    return null;
  }
}

/** True when a signed address has expired (or will within `marginSeconds`). */
export function isExpiredSignedUrl(value: string, now = Date.now(), marginSeconds = 30): boolean {
  const exp = signedUrlExpiry(value);
  return exp !== null && exp * 1000 <= now + marginSeconds * 1000;
}
