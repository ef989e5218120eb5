/**
 * Every address from the network passes through here before it becomes a
 * `src` or an `href`: https anywhere, http only on the developer's own machine.
 * `tel:` and `mailto:` links are built from validated values, never passed through.
 */
import { E164_PATTERN } from '../../../types/limits.ts';
import { hasForbiddenChar } from '../../../types/urls.ts';
import { parseSafeUrl } from '../../util/url.ts';
import { BIDI_CONTROL } from './format.ts';

/** Where rendered http addresses may point: narrower than util/url.ts's local hosts (no `*.localhost`). */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The address normalised by the URL parser, or null when it may not be used. */
export function safeUrl(value: unknown): string | null {
  // Control characters and whitespace inside an address are a smuggling trick, never a real URL.
  if (typeof value === 'string' && hasForbiddenChar(value)) return null;
  const url = parseSafeUrl(value);
  return url && (url.protocol === 'https:' || LOCAL_HOSTS.has(url.hostname)) ? url.href : null;
}

const E164 = new RegExp(E164_PATTERN);
/** `tel:` link for an E.164 number (spaces, dashes and brackets are tolerated and removed). */
export function telHref(phone: unknown): string | null {
  if (typeof phone !== 'string') return null;
  const compact = phone.replace(/[\s().-]/g, '');
  return E164.test(compact) ? `tel:${compact}` : null;
}

// Deliberately narrow: one @, no spaces, no characters that could change a mailto: URL's meaning
// (no %: a mail client decodes x%3Fbcc%3Devil%40evil.example@x.com into another address).
// Letters and digits of any script (ñandú@ejemplo.es, ana@ñandú.es): the browser encodes them.
const EMAIL = /^[\p{L}\p{M}\p{N}._+-]{1,64}@[\p{L}\p{M}\p{N}-]{1,63}(\.[\p{L}\p{M}\p{N}-]{1,63})+$/u;
export function isEmail(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 254 && EMAIL.test(value);
}
/** `mailto:` link for a plain address whose domain cannot pass for another ({@link lookalikeHost}). */
export function mailtoHref(email: unknown): string | null {
  return isEmail(email) && !lookalikeHost(email.slice(email.lastIndexOf('@') + 1)) ? `mailto:${email}` : null;
}

const COORDINATE = /^-?[0-9]{1,3}(\.[0-9]{1,15})?$/;
/**
 * Latitude and longitude as the decimal texts they were given in (`0.0000001`, never `1e-7`), or
 * null when either is not a coordinate.
 */
export function coordinates(lat: unknown, lng: unknown): { lat: string; lng: string } | null {
  const a = typeof lat === 'number' ? String(lat) : lat;
  const b = typeof lng === 'number' ? String(lng) : lng;
  if (typeof a !== 'string' || typeof b !== 'string' || !COORDINATE.test(a) || !COORDINATE.test(b))
    return null;
  if (Math.abs(Number(a)) > 90 || Math.abs(Number(b)) > 180) return null;
  return { lat: a, lng: b };
}

/** A map link for validated coordinates (OpenStreetMap: no key, no tracking script). */
export function mapHref(lat: string, lng: string): string {
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=16/${lat}/${lng}`;
}

const HTTP_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/;

/** A run of message text: plain, or an http(s) link whose href passed {@link safeUrl}. */
export type TextSegment = { text: string; href?: undefined } | { text: string; href: string };

/** Splits message text into plain runs and http(s) links; everything else stays text. */
export function linkify(text: string): TextSegment[] {
  const out: TextSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(HTTP_IN_TEXT)) {
    let candidate = match[0];
    const trailing = TRAILING_PUNCTUATION.exec(candidate)?.[0] ?? '';
    candidate = candidate.slice(0, candidate.length - trailing.length);
    // A closing bracket the address itself opened is part of it: https://es.wikipedia.org/wiki/Pan_(alimento)
    for (const c of trailing) {
      if (c !== ')' || candidate.split('(').length <= candidate.split(')').length) break;
      candidate += c;
    }
    const href = safeHttpUrl(candidate);
    if (!href) continue;
    const start = match.index;
    if (start > last) out.push({ text: text.slice(last, start) });
    out.push({ text: candidate, href });
    last = start + candidate.length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/** A label of Cyrillic or Greek letters that all look like Latin ones (`аррӏе` for apple). */
const LOOKALIKE_LABEL = /^(?:[аеорсухіјѕԁӏһԛԝѵ]+|[αικνορτυχ]+)$/u;

/**
 * True when a host as written (before the URL parser turns it to punycode) may pass for another:
 * a symbol that is not a letter, digit, hyphen or dot (`google.com⁄signin.evil.example`, with a
 * fraction slash), Cyrillic or Greek mixed with Latin or each other in one label (`pаypal`, with a
 * Cyrillic а), or a label made only of Cyrillic or Greek look-alikes of Latin letters. Hosts in one
 * script (`españa.es`, `пример.рф`, `例え.jp`) do not.
 */
function lookalikeHost(host: string): boolean {
  if (!/[^\x00-\x7f]/.test(host)) return false;
  if (/[^\p{L}\p{M}\p{N}.-]/u.test(host)) return true;
  return host
    .toLowerCase()
    .split('.')
    .some((label) => {
      const cyrillic = /\p{sc=Cyrillic}/u.test(label);
      const greek = /\p{sc=Greek}/u.test(label);
      return (
        ((cyrillic || greek) && (/\p{sc=Latin}/u.test(label) || (cyrillic && greek))) ||
        LOOKALIKE_LABEL.test(label)
      );
    });
}

/**
 * True when the address's host may pass for another ({@link lookalikeHost}), or is written so that
 * it reads as one host and the parser finds another: percent-encoded (`p%D0%B0ypal.com` is the
 * Cyrillic-а paypal, `paypal%2Ecom.evil.example` is under evil.example) or with a backslash, which
 * the parser reads as a slash (`https://evil.example\@good.example/` goes to evil.example).
 */
function deceptiveHost(value: string): boolean {
  const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(value)?.[1] ?? '';
  if (/[%\\]/.test(authority)) return true;
  return lookalikeHost(authority.replace(/:\d*$/, ''));
}

/**
 * Links in text may be any http(s) host (they open in a new tab); media stays under {@link safeUrl}.
 * Not a link: an address with a user part (`https://bank.example@evil.example/` goes to
 * evil.example), with a direction control (`report\u202Efdp.exe` reads as `reportexe.pdf`), or
 * whose host may pass for another ({@link deceptiveHost}).
 */
function safeHttpUrl(value: string): string | null {
  if (BIDI_CONTROL.test(value) || deceptiveHost(value)) return null;
  try {
    const url = new URL(value);
    if (url.username || url.password) return null;
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
