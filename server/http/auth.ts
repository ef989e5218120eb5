/** HTTP Basic authentication for the server-side operations, compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { ApiError } from './errors.ts';

/** Constant-time equality of two strings (hashing first hides the length). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

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
  if (allowCompanyToken && safeEqual(value, config.companyToken)) ok = true;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const expected = `${config.clientId}:${config.clientSecret}`;
  // Always run both comparisons so timing does not tell which one matched.
  if (safeEqual(decoded, expected)) ok = true;
  if (!ok) throw new ApiError('UNAUTHORIZED', { message: 'Invalid credentials.' });
}

/** A fastify onRequest hook requiring Basic credentials. */
export function requireBasic(config: Config, options: { allowCompanyToken?: boolean } = {}) {
  return async (request: FastifyRequest): Promise<void> => {
    checkBasic(request, config, options.allowCompanyToken ?? false);
  };
}
