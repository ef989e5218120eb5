/**
 * The JSON body parser of the HTTP routes: an empty body is no body (so a
 * DELETE sent with `Content-Type: application/json` and nothing else is
 * fine, and a POST gets the schema's "must be object"), and keys that poison
 * prototypes (`__proto__`, `constructor.prototype`) are refused with 400,
 * as fastify's own parser does; so are bodies nested deeper than
 * MAX_JSON_DEPTH (storing them would overflow the stack). JSON is the only body these routes take:
 * fastify's text/plain parser is removed, so any other content type is 415.
 *
 * JSON is UTF-8 (RFC 8259): a body that declares another charset, or comes
 * compressed (a Content-Encoding other than identity, which nothing here
 * decodes), is 415; bytes that are not UTF-8 are 400. Read as UTF-8 anyway,
 * they would have been stored with U+FFFD in place of what was sent.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, validationFailed } from './errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Why a JSON body cannot be read as sent (its charset or its coding), or null. */
function unreadable(request: FastifyRequest): string | null {
  const coding = request.headers['content-encoding'];
  if (typeof coding === 'string' && coding.trim() !== '' && coding.trim().toLowerCase() !== 'identity') {
    return `Content-Encoding ${coding.trim()} is not accepted: send the body uncompressed.`;
  }
  const type = request.headers['content-type'] ?? '';
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(type)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return `JSON bodies are UTF-8; charset=${charset} is not accepted.`;
  }
  return null;
}

/** The deepest nesting of objects and arrays a body may have (the interface's deepest is under 10). */
export const MAX_JSON_DEPTH = 64;

/** Whether a parsed value nests objects/arrays deeper than `max` (walked without recursion). */
function tooDeep(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Whether a parsed value carries a key that poisons prototypes (`__proto__`, `constructor.prototype`). */
function poisoned(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null || depth > 200) return false;
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (key === '__proto__') return true;
    if (key === 'constructor' && typeof v === 'object' && v !== null && Object.hasOwn(v, 'prototype'))
      return true;
    if (poisoned(v, depth + 1)) return true;
  }
  return false;
}

/**
 * Why a parsed value cannot be taken as it is, as an error's field map: nested
 * deeper than MAX_JSON_DEPTH, or carrying a key that poisons prototypes; null
 * when it can. With the JSON `text` it came from, a text too short to nest that
 * deep or naming neither key is not walked.
 */
export function structureProblem(value: unknown, text?: string): Record<string, string> | null {
  if ((text === undefined || text.length > MAX_JSON_DEPTH) && tooDeep(value, MAX_JSON_DEPTH)) {
    return { '/': `nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep` };
  }
  if ((text === undefined || text.includes('__proto__') || text.includes('constructor')) && poisoned(value)) {
    return { '/': 'carries a forbidden key (__proto__ or constructor.prototype)' };
  }
  return null;
}

export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const refusal = unreadable(request);
    if (refusal) {
      done(new ApiError('UNSUPPORTED_CONTENT_TYPE', { message: refusal }), undefined);
      return;
    }
    let text: string;
    try {
      text = typeof body === 'string' ? body : utf8.decode(body);
    } catch {
      done(validationFailed({ '/': 'body is not valid UTF-8' }, 'Body is not valid UTF-8.'), undefined);
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      done(
        validationFailed(
          { '/': 'body is not valid JSON' },
          `Body is not valid JSON: ${(err as Error).message}`,
        ),
        undefined,
      );
      return;
    }
    const problem = structureProblem(value, text);
    if (problem) {
      done(validationFailed(problem, `Body ${problem['/']}.`), undefined);
      return;
    }
    done(null, value);
  });
}
