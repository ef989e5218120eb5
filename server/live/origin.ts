/**
 * The widget's `credentials.whiteList` / `blackList`, enforced on the Origin
 * of every widget call and socket handshake.
 *
 * Patterns are origins (`https://shop.example.com`, `http://localhost:3000`)
 * where the host may start with `*.`: `https://*.example.com` matches
 * `https://a.example.com` and `https://a.b.example.com` but not
 * `https://example.com`. Scheme, host and port must all match (a pattern
 * without a port matches the scheme's default port only; ports compare as
 * numbers). Case does not matter.
 *
 * Rules: a black-listed origin is refused, and with a black list so is an
 * opaque one (`Origin: null`: a sandboxed iframe could be a listed site); with
 * a non-empty white list, any origin outside it is refused, and so is a request
 * with no Origin at all; with no white list, a request without Origin (server
 * to server) is allowed. A host's trailing dot does not matter.
 */

export interface OriginLists {
  whiteList: string[];
  blackList: string[];
}

interface ParsedOrigin {
  scheme: string;
  host: string;
  port: string;
}

const DEFAULT_PORT: Record<string, string> = { http: '80', https: '443' };

function parseOrigin(value: string): ParsedOrigin | null {
  const m = /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:.]+\]|[^/:]+)(?::(\d{1,5}))?\/?$/i.exec(value.trim());
  if (!m) return null;
  const scheme = (m[1] ?? '').toLowerCase();
  // A port is a number: a pattern stored as written (`:00080`, before widget creation stored
  // origins as browsers spell them) still matches the `:80` a browser sends.
  const port = m[3] === undefined ? (DEFAULT_PORT[scheme] ?? '') : String(Number(m[3]));
  // A host with its trailing dot (`evil.example.`) is the same host to DNS: it matches as without.
  return { scheme, host: (m[2] ?? '').toLowerCase().replace(/\.$/, ''), port };
}

/** True when `origin` matches the pattern. */
export function originMatches(pattern: string, origin: string): boolean {
  const p = parseOrigin(pattern);
  const o = parseOrigin(origin);
  if (!p || !o || p.scheme !== o.scheme || p.port !== o.port) return false;
  if (p.host.startsWith('*.')) {
    const suffix = p.host.slice(1); // ".example.com"
    return o.host.endsWith(suffix) && o.host.length > suffix.length;
  }
  return p.host === o.host;
}

/** The lists of a widget's stored configuration (missing or malformed lists are empty). */
export function listsOf(config: unknown): OriginLists {
  const creds = (config as { credentials?: { whiteList?: unknown; blackList?: unknown } } | null)
    ?.credentials;
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  return { whiteList: strings(creds?.whiteList), blackList: strings(creds?.blackList) };
}

/** Whether a request with this Origin header (undefined when absent) may use the widget. */
export function originAllowed(lists: OriginLists, origin: string | undefined): boolean {
  if (origin === undefined || origin === '') return lists.whiteList.length === 0;
  // An opaque origin (a sandboxed iframe, a file) could be any site, a black-listed one too.
  if (origin.trim().toLowerCase() === 'null' && lists.blackList.length > 0) return false;
  if (lists.blackList.some((p) => originMatches(p, origin))) return false;
  if (lists.whiteList.length > 0) return lists.whiteList.some((p) => originMatches(p, origin));
  return true;
}
