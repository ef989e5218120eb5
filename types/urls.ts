/**
 * The steps every address check starts with, on the service (media addresses,
 * the assets refresh), in charla/api and in the widget (sendMessage, links and
 * media it renders): each then adds its own rules for scheme and host.
 */
import { URL_FORBIDDEN_CHAR_PATTERN, URL_FORBIDDEN_CHAR_REASON } from './limits.ts';

const FORBIDDEN = new RegExp(URL_FORBIDDEN_CHAR_PATTERN);

/** True when the address holds a character no address may hold (see URL_FORBIDDEN_CHAR_PATTERN). */
export function hasForbiddenChar(raw: string): boolean {
  return FORBIDDEN.test(raw);
}

/**
 * The address parsed, or why it is refused before its scheme and host are looked
 * at: a character no address may hold (URL_FORBIDDEN_CHAR_REASON), not an
 * absolute address, or a user name or password in it (a signed or stored copy
 * would drop them silently).
 */
export function parseAddress(raw: string): URL | string {
  if (FORBIDDEN.test(raw)) return URL_FORBIDDEN_CHAR_REASON;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute address';
  }
  if (url.username || url.password) return 'must not carry credentials';
  return url;
}
