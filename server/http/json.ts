/**
 * The JSON body parser of the HTTP routes: an empty body is no body (so a
 * DELETE sent with `Content-Type: application/json` and nothing else is
 * fine, and a POST gets the schema's "must be object"), and keys that poison
 * prototypes (`__proto__`, `constructor.prototype`, in any spelling) are
 * refused with 400, as fastify's own parser does; so are bodies nested deeper
 * than MAX_JSON_DEPTH (storing them would overflow the stack). JSON is the
 * only body these routes take: fastify's text/plain parser is removed, so any
 * other content type is 415.
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

/** A key as a segment of a JSON Pointer (RFC 6901), as validation errors name fields. */
const pointerSegment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

interface Node {
  value: unknown;
  depth: number;
  parent: Node | undefined;
  key: string;
}
const pathOf = (node: Node): string => {
  const keys: string[] = [];
  for (let at: Node | undefined = node; at?.parent; at = at.parent) keys.push(pointerSegment(at.key));
  return keys.length ? `/${keys.reverse().join('/')}` : '/';
};

/**
 * Why a parsed value cannot be taken as it is, as an error's field map, or
 * null when it can. One walk (without recursion) of the whole value refuses:
 * - nesting deeper than MAX_JSON_DEPTH (storing it would overflow the stack);
 * - a key that poisons prototypes, `__proto__` or `constructor` holding
 *   `prototype`, however the text spelled it (`"\u005f_proto__"` is the same
 *   key once parsed, so the value is walked, never the text searched).
 */
export function structureProblem(value: unknown): Record<string, string> | null {
  const stack: Node[] = [{ value, depth: 0, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const v = node.value;
    if (typeof v !== 'object' || v === null) continue;
    const depth = node.depth + 1;
    if (depth > MAX_JSON_DEPTH)
      return { '/': `nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const child: unknown = v[i];
        if (typeof child === 'object') stack.push({ value: child, depth, parent: node, key: String(i) });
      }
      continue;
    }
    for (const key of Object.keys(v)) {
      const child = (v as Record<string, unknown>)[key];
      const forbidden =
        key === '__proto__' ||
        (key === 'constructor' &&
          typeof child === 'object' &&
          child !== null &&
          Object.hasOwn(child, 'prototype'));
      if (forbidden)
        return {
          [pathOf({ value: child, depth, parent: node, key })]:
            'is a forbidden key (__proto__ or constructor.prototype)',
        };
      if (typeof child === 'object') stack.push({ value: child, depth, parent: node, key });
    }
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
    const problem = structureProblem(value);
    if (problem) {
      done(validationFailed(problem), undefined);
      return;
    }
    done(null, value);
  });
}
