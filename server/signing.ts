/**
 * Signed media addresses: HMAC-SHA256 over the resource path and the expiry,
 * with a key id so keys can rotate. Verified in constant time before a file
 * is served.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ROUTES } from '../types/index.ts';

export const MEDIA_PREFIX = ROUTES.media.replace('/*', '/');

export interface Signer {
  /** Signs a media key: `${base}/v1/media/<key>?kid=..&exp=..&sig=..`. */
  sign(mediaKey: string, ttlSeconds: number, baseUrl: string, now?: number): string;
  /** True when kid/exp/sig are valid for this media key and not expired. */
  verify(mediaKey: string, query: { kid?: unknown; exp?: unknown; sig?: unknown }, now?: number): boolean;
  /**
   * The media key of one of this service's own media addresses, or null when the address is not
   * ours: under one of `baseUrls` (signed or not, expired or not), or on any host when signed by
   * this service (expired or not): another process of the deployment, or another of its names,
   * signed it for the host its request came through.
   */
  mediaKeyOf(url: string, baseUrls: string[]): string | null;
}

/** An address's origin with its host's trailing dot dropped (`example.com.` is `example.com`). */
const originOf = (url: URL): string => url.origin.replace(/\.(?=(?::\d+)?$)/, '');

export function createSigner(keys: Record<string, string>): Signer {
  const ids = Object.keys(keys);
  const current = ids[0];
  if (!current) throw new Error('at least one signing key is needed');
  const mac = (kid: string, mediaKey: string, exp: number) =>
    createHmac('sha256', keys[kid] as string)
      .update(`${mediaKey}\n${exp}`)
      .digest('base64url');
  /** True when `sig` is ours for the key and expiry (their expiry aside), compared in constant time. */
  const signedByUs = (mediaKey: string, kid: unknown, exp: unknown, sig: unknown): boolean => {
    if (typeof kid !== 'string' || typeof sig !== 'string' || typeof exp !== 'string') return false;
    if (!Object.prototype.hasOwnProperty.call(keys, kid) || !/^\d{1,12}$/.test(exp)) return false;
    const expected = Buffer.from(mac(kid, mediaKey, Number(exp)));
    const given = Buffer.from(sig);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return {
    sign(mediaKey, ttlSeconds, baseUrl, now = Date.now()) {
      // Rounded up: the address lives at least the ttl asked for (rounded down it lived up to 1 s less).
      const exp = Math.ceil(now / 1000) + ttlSeconds;
      const sig = mac(current, mediaKey, exp);
      const path = MEDIA_PREFIX + mediaKey.split('/').map(encodeURIComponent).join('/');
      return `${baseUrl.replace(/\/$/, '')}${path}?kid=${current}&exp=${exp}&sig=${sig}`;
    },
    verify(mediaKey, query, now = Date.now()) {
      const { kid, exp, sig } = query;
      return signedByUs(mediaKey, kid, exp, sig) && Number(exp) * 1000 > now;
    },
    mediaKeyOf(url, baseUrls) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return null;
      }
      const origins = new Set(
        baseUrls.map((b) => {
          try {
            return originOf(new URL(b));
          } catch {
            return '';
          }
        }),
      );
      if (!parsed.pathname.startsWith(MEDIA_PREFIX)) return null;
      const key = parsed.pathname
        .slice(MEDIA_PREFIX.length)
        .split('/')
        .map((p) => {
          try {
            return decodeURIComponent(p);
          } catch {
            return '\u0000';
          }
        })
        .join('/');
      if (!key || key.includes('\u0000') || key.includes('..')) return null;
      if (origins.has(originOf(parsed))) return key;
      // Another host: ours only if we signed it (the expiry aside: refreshing is for expired ones).
      const q = parsed.searchParams;
      return signedByUs(key, q.get('kid'), q.get('exp'), q.get('sig')) ? key : null;
    },
  };
}
