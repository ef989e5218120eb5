/** HTTP Basic authentication for the server-side operations, compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { ApiError } from './errors.ts';

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Constant-time equality of two strings (hashing first hides the length). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/**
 * The digest of a configured secret, made once per value instead of on every
 * request (the comparison with what a request sends stays constant-time).
 */
const secretDigests = new Map<string, Buffer>();
function secretDigest(secret: string): Buffer {
  let digest = secretDigests.get(secret);
  if (!digest) {
    if (secretDigests.size > 16) secretDigests.clear();
    digest = sha256(secret);
    secretDigests.set(secret, digest);
  }
  return digest;
}
const matchesSecret = (given: string, secret: string): boolean =>
  timingSafeEqual(sha256(given), secretDigest(secret));

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Accepts `Basic base64(clientId:clientSecret)`; with allowCompanyToken also
 * `Basic <COMPANY_TOKEN>`. Throws 401 otherwise.
 */
export function checkBasic(request: FastifyRequest, config: Config, allowCompanyToken: boolean): void {
  const header = request.headers.authorization;
  if (typeof header !== 'string')
    throw new ApiError('UNAUTHORIZED', { message: 'Missing Authorization header.' });
  const match = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError('UNAUTHORIZED', { message: 'Authorization must use the Basic scheme.' });
  const value = match[1] ?? '';
  let ok = false;
  if (allowCompanyToken && matchesSecret(value, config.companyToken)) ok = true;
  // Only well-formed base64 (Node's decoder would skip stray characters and read what follows).
  const decoded = BASE64.test(value) ? Buffer.from(value, 'base64').toString('utf8') : '';
  // Always run both comparisons so timing does not tell which one matched.
  if (matchesSecret(decoded, `${config.clientId}:${config.clientSecret}`)) ok = true;
  if (!ok) throw new ApiError('UNAUTHORIZED', { message: 'Invalid credentials.' });
}

/** A fastify onRequest hook requiring Basic credentials. */
export function requireBasic(config: Config, options: { allowCompanyToken?: boolean } = {}) {
  return async (request: FastifyRequest): Promise<void> => {
    checkBasic(request, config, options.allowCompanyToken ?? false);
  };
}
