/**
 * What the contract's origin pattern (ORIGIN_PATTERN) cannot say about a
 * widget's whiteList / blackList entry, checked the same way by the service
 * and by the API client: a host of DNS labels, a port in range, and a
 * wildcard that does not cover a whole top-level domain. Plain code, no
 * schema library (the API client's bundle must not carry one).
 */
import { DNS_HOST_MAX, DNS_LABEL_PATTERN, PORT_MAX, PORT_MIN } from './limits.ts';

const LABEL = new RegExp(DNS_LABEL_PATTERN);
const SHAPE = /^(https?):\/\/(\*\.)?([^:/]+)(?::([0-9]+))?\/?$/i;

/** An IPv4 address as browsers write it in `Origin`: four decimal numbers. */
const IPV4 = /^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$/;
const IPV4_PROBLEM =
  'must name a host: a name, or an IPv4 address of four numbers from 0 to 255 (1.2.3.4, without leading zeros)';

/** A wildcard's host may be one label only here: `http://*.localhost:3000` for local development. */
const SINGLE_LABEL_WILDCARD_HOSTS = new Set(['localhost']);

/**
 * The host as a browser sends it in `Origin`: an internationalised name in
 * its ASCII (punycode) form, `bücher.example` as `xn--bcher-kva.example`;
 * null when no browser could send it.
 */
function asciiHost(scheme: string, host: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\u007f]*$/.test(host)) return host;
  try {
    return new URL(`${scheme}://${host}`).hostname;
  } catch {
    return null;
  }
}

/**
 * What is wrong with an origin pattern that has the contract's shape, or null
 * when a browser can send an origin it matches and it does not let in every
 * site of a top-level domain (`https://*.com`). Public suffixes of two labels
 * (`*.co.uk`) are not known here and pass.
 */
export function originHostProblem(pattern: string): string | null {
  const m = SHAPE.exec(pattern);
  if (!m) return null; // the shape's own check names it
  const wildcard = m[2] !== undefined;
  const host = asciiHost((m[1] ?? 'https').toLowerCase(), m[3] ?? '')?.replace(/\.$/, '');
  const labels = host?.split('.') ?? [];
  if (!host || host.length > DNS_HOST_MAX || !labels.every((label) => LABEL.test(label)))
    return 'must name a host: labels of 1 to 63 letters, digits or hyphens (not at either end), separated by dots';
  // A host ending in a label of digits is an IPv4 address to a browser (`https://1.2.3.4`): one that
  // is not (`https://256.1.1.1`, `https://1.2.3.4.5`, `https://a.1`) names nothing any page is on.
  let parsed: string;
  try {
    parsed = new URL(`${m[1]}://${wildcard ? 'a.' : ''}${host}`).hostname;
  } catch {
    return IPV4_PROBLEM;
  }
  // A browser also reads `1.2.3` (1.2.0.3), `0x7f.0.0.1` and `01.2.3.4` as addresses, spelled
  // otherwise in `Origin`: written so, the entry would name another host than the one it shows.
  if (!wildcard && IPV4.test(parsed) && parsed !== host.toLowerCase()) return IPV4_PROBLEM;
  const port = m[4];
  if (port !== undefined && !(Number(port) >= PORT_MIN && Number(port) <= PORT_MAX))
    return `must have a port from ${PORT_MIN} to ${PORT_MAX}`;
  if (wildcard && labels.length < 2 && !SINGLE_LABEL_WILDCARD_HOSTS.has(host.toLowerCase()))
    return 'must keep a domain after *. (https://*.example.com): a wildcard over a top-level domain lets every site in it';
  return null;
}
