/**
 * The JSON body parser of the HTTP routes: an empty body is no body (so a
 * DELETE sent with `Content-Type: application/json` and nothing else is
 * fine, and a POST gets the schema's "must be object"), and keys that poison
 * prototypes (`__proto__`, `constructor.prototype`, in any spelling) are
 * refused with 400, as fastify's own parser does; so are bodies nested deeper
 * than MAX_JSON_DEPTH (storing them would overflow the stack) and numbers
 * JSON.parse cannot hold as written (see structureProblem). JSON is the only
 * body these routes take: fastify's text/plain parser is removed, so any
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

/** The canonical decimal form of a JSON number's text (digits and power of ten; '0' for zero). */
function decimal(text: string): string {
  const negative = text.startsWith('-');
  const unsigned = negative ? text.slice(1) : text;
  const e = unsigned.search(/[eE]/);
  const mantissa = e < 0 ? unsigned : unsigned.slice(0, e);
  const dot = mantissa.indexOf('.');
  const fraction = dot < 0 ? '' : mantissa.slice(dot + 1);
  let digits = (dot < 0 ? mantissa : mantissa.slice(0, dot) + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  let power = (e < 0 ? 0 : Number(unsigned.slice(e + 1))) - fraction.length;
  const zeros = /0+$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - zeros);
  power += zeros;
  return `${negative ? '-' : ''}${digits}e${power}`;
}

/** An open object or array while reading a JSON text: where its current member's key or index is. */
interface Frame {
  array: boolean;
  index: number;
  keyStart: number;
  keyEnd: number;
}

/**
 * The first number literal of a JSON text (already parsed, so well-formed)
 * that JSON.parse does not hold as written, as an error's field map naming
 * its path, or null: out of range (`1e400` becomes Infinity, stored as null)
 * or with more digits than a double keeps (`12345678901234567890123`).
 * Fifteen significant digits or fewer, without an exponent, always survive,
 * so only longer literals and those with an exponent are compared. Read from
 * the text, not the value: a repeated key that lost does not hide one.
 */
function inexactNumber(text: string): Record<string, string> | null {
  const stack: Frame[] = [];
  const n = text.length;
  let keyNext = false;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: to its closing quote, one not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      for (;;) {
        if (end < 0) return null;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 92) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      const top = stack[stack.length - 1];
      if (keyNext && top) {
        top.keyStart = i;
        top.keyEnd = end + 1;
        keyNext = false;
      }
      i = end + 1;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let end = i + 1;
      let exponent = false;
      for (; end < n; end++) {
        const d = text.charCodeAt(end);
        if (d === 101 || d === 69) exponent = true;
        else if (!((d >= 48 && d <= 57) || d === 46 || d === 43 || d === 45)) break;
      }
      if (exponent || end - i > 15) {
        const literal = text.slice(i, end);
        const value = Number(literal);
        if (!Number.isFinite(value) || decimal(String(value)) !== decimal(literal)) {
          const keys = stack.map((f) =>
            f.array
              ? String(f.index)
              : pointerSegment(JSON.parse(text.slice(f.keyStart, f.keyEnd)) as string),
          );
          const path = keys.length ? `/${keys.join('/')}` : '/';
          return {
            [path]: Number.isFinite(value)
              ? `is a number that cannot be kept as written (it would be stored as ${value})`
              : 'is a number out of range (it would be stored as null)',
          };
        }
      }
      i = end;
    } else {
      if (c === 123 || c === 91) {
        stack.push({ array: c === 91, index: 0, keyStart: 0, keyEnd: 0 });
        keyNext = c === 123;
      } else if (c === 125 || c === 93) stack.pop();
      else if (c === 44) {
        const top = stack[stack.length - 1];
        if (top?.array) top.index++;
        else keyNext = true;
      }
      i++;
    }
  }
  return null;
}

/** The field map of a value nested deeper than MAX_JSON_DEPTH. */
export const tooDeep = (): Record<string, string> => ({
  '/': `nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep`,
});

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
 *   `prototype`, however the text spelled it (`"\u005f_proto__"` is the same key);
 * - a number JSON.parse cannot hold as written. Given the JSON `text` the
 *   value came from (HTTP bodies), its number literals are read after the
 *   walk (inexactNumber): out of range, or with more digits than a double
 *   keeps. Without it (socket payloads), the walk refuses a number that is not
 *   finite (`1e400` parses as Infinity, which would be stored as null).
 */
export function structureProblem(value: unknown, text?: string): Record<string, string> | null {
  // With the text, inexactNumber finds every number the walk would (and more): the walk skips them.
  const numbers = text === undefined;
  const stack: Node[] = [{ value, depth: 0, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const v = node.value;
    if (typeof v === 'number') {
      if (numbers && !Number.isFinite(v))
        return { [pathOf(node)]: 'is a number out of range (it would be stored as null)' };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const depth = node.depth + 1;
    if (depth > MAX_JSON_DEPTH) return tooDeep();
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const child: unknown = v[i];
        if (typeof child === 'object' || (numbers && typeof child === 'number'))
          stack.push({ value: child, depth, parent: node, key: String(i) });
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
      if (typeof child === 'object' || (numbers && typeof child === 'number'))
        stack.push({ value: child, depth, parent: node, key });
    }
  }
  return text === undefined ? null : inexactNumber(text);
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
      done(validationFailed(problem), undefined);
      return;
    }
    done(null, value);
  });
}
