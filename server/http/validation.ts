/**
 * Validation of the server-side operations with TypeBox's compiler instead of
 * fastify's Ajv defaults, because those defaults (coerceTypes, removeAdditional)
 * quietly turn `ttl: "900"` into 900, `userId: 123` into "123" and drop unknown
 * fields of closed objects. Here bodies are checked as sent; only query strings
 * and path parameters, which are text by nature, get their integers read from
 * strict digit strings.
 *
 * Unions are checked by picking the branch first (bot message variants, room
 * post message types), so a 400 names the fields of that branch only.
 */
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Settings } from 'typebox/system';
import { Value } from 'typebox/value';
import { UUID_PATTERN } from '../../types/limits.ts';
import { validationMap } from './errors.ts';

const UUID = new RegExp(UUID_PATTERN);

/**
 * An id as stored: room and message ids are UUIDs the service keeps in lower case and takes in
 * either case; any other id as given.
 */
export const storedId = (id: string): string => (UUID.test(id) ? id.toLowerCase() : id);

// TypeBox stops listing errors at 8 by default: a value that fails a union of 8 literals by
// type and by constant used to name half the allowed values ("must be one of" 4 of the 8
// positions). 100 names every allowed value and every field of any body we take, and still
// bounds the work a hostile body can cause.
Settings.Set({ maxErrors: 100 });

interface Issue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** A validation outcome: the (possibly converted) value, or errors keyed by field. */
export type Checked = { ok: true; value: unknown } | { ok: false; errors: Record<string, string> };

type Validator = { Check(value: unknown): boolean; Errors(value: unknown): Iterable<Issue> };
const compiled = new WeakMap<object, Validator>();

/** Compiles once per schema object. */
export function compiledFor(schema: TSchema): Validator {
  let v = compiled.get(schema);
  if (!v) {
    v = Compile(schema) as unknown as Validator;
    compiled.set(schema, v);
  }
  return v;
}

/** Checks a value against a schema; errors are prefixed (e.g. `/message`). */
export function check(schema: TSchema, value: unknown, prefix = ''): Checked {
  const v = compiledFor(schema);
  if (v.Check(value)) return { ok: true, value };
  return { ok: false, errors: validationMap([...v.Errors(value)], prefix) };
}

/** An Error fastify passes to the error handler as a validation failure. */
export class ValidationFailure extends Error {
  readonly validation: Issue[];
  readonly validationContext: string;
  readonly statusCode = 400;
  /** Already keyed by field: the error handler uses these as they are. */
  readonly fields: Record<string, string>;
  constructor(fields: Record<string, string>, context: string) {
    super('validation failed');
    this.fields = fields;
    this.validationContext = context;
    this.validation = Object.entries(fields).map(([path, message]) => ({ instancePath: path, message }));
  }
}

/** Reads integers and numbers of a flat object schema from strict decimal strings. */
function convertScalars(schema: TSchema, data: unknown): unknown {
  const props = (schema as { properties?: Record<string, { type?: string }> }).properties;
  if (!props || typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  const out: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const [name, prop] of Object.entries(props)) {
    const v = out[name];
    if (typeof v !== 'string') continue;
    // Any run of digits is an integer (a page of 16 digits is past the largest, not "not an integer").
    if (prop.type === 'integer' && /^-?\d{1,400}$/.test(v)) out[name] = Number(v);
    else if (prop.type === 'number' && /^-?\d{1,15}(\.\d{1,15})?$/.test(v)) out[name] = Number(v);
    else if (prop.type === 'boolean' && (v === 'true' || v === 'false')) out[name] = v === 'true';
  }
  return out;
}

/**
 * Text PostgreSQL cannot store (NUL, unpaired surrogates), anywhere in a
 * value, keys included: refused up front as a client's mistake, never left
 * to fail in the database as a 500.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export function unstorableText(value: unknown, path = '', depth = 0): Record<string, string> | null {
  const bad = (s: string) => s.includes('\u0000') || LONE_SURROGATE.test(s);
  if (typeof value === 'string')
    return bad(value) ? { [path || '/']: 'must not contain NUL or unpaired surrogate characters' } : null;
  if (typeof value !== 'object' || value === null || depth > 64) return null;
  for (const [k, v] of Object.entries(value)) {
    const at = `${path}/${k}`;
    if (bad(k)) return { [path || '/']: 'keys must not contain NUL or unpaired surrogate characters' };
    const inner = unstorableText(v, at, depth + 1);
    if (inner) return inner;
  }
  return null;
}

/** Whether a `default` annotation appears anywhere in a schema. */
function hasDefault(schema: unknown, depth = 0): boolean {
  if (typeof schema !== 'object' || schema === null || depth > 32) return false;
  if (Object.hasOwn(schema, 'default')) return true;
  return Object.values(schema).some((v) => hasDefault(v, depth + 1));
}

/**
 * Value.Default for the flat object schemas of query strings and path
 * parameters, worked out once per schema: when only top-level properties carry
 * defaults (none deeper, no additionalProperties schema), filling the missing
 * ones is all Value.Default does, without walking the schema on every request.
 * Any other schema goes through Value.Default.
 */
function defaulterFor(schema: TSchema): (value: unknown) => unknown {
  const props = (schema as { properties?: Record<string, TSchema> }).properties;
  const additional = (schema as { additionalProperties?: unknown }).additionalProperties;
  const flat =
    props !== undefined &&
    (schema as { type?: unknown }).type === 'object' &&
    !Object.hasOwn(schema, 'default') &&
    (additional === undefined || typeof additional === 'boolean') &&
    Object.values(props).every((p) => {
      const { default: _own, ...rest } = p as Record<string, unknown>;
      return !hasDefault(rest);
    });
  if (!flat) return (value) => Value.Default(schema, value);
  const defaults = Object.entries(props)
    .filter(
      ([, p]) => Object.hasOwn(p, 'default') && typeof (p as { default?: unknown }).default !== 'function',
    )
    .map(([name, p]) => [name, (p as { default?: unknown }).default] as const);
  if (defaults.some(([, d]) => typeof d === 'object' && d !== null))
    return (value) => Value.Default(schema, value);
  return (value) => {
    if (typeof value !== 'object' || value === null) return value;
    const target = value as Record<string, unknown>;
    for (const [name, d] of defaults) if (target[name] === undefined) target[name] = d;
    return value;
  };
}

/** Query parameters given more than once (they arrive as arrays) where the schema takes one value. */
function repeatedParameters(schema: TSchema, data: unknown): Record<string, string> {
  const props = (schema as { properties?: Record<string, { type?: string }> }).properties;
  if (!props || typeof data !== 'object' || data === null) return {};
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(data as Record<string, unknown>))
    if (Array.isArray(v) && props[name] !== undefined && props[name].type !== 'array')
      out[`/${name}`] = 'must be given once';
  return out;
}

/** A custom check for one part of one route (used for unions picked by a field). */
export type PartCheck = (data: unknown) => Checked;

/**
 * The validator compiler of the HTTP routes. `custom` gives a hand-written
 * check for a part of a route (bodies whose union is picked by a field); the
 * schema of that part still documents it.
 */
export function validatorCompiler(
  custom: Partial<Record<'body' | 'querystring' | 'params' | 'headers', PartCheck>> = {},
): FastifySchemaCompiler<TSchema> {
  return ({ schema, httpPart }) => {
    const part = (httpPart ?? 'body') as 'body' | 'querystring' | 'params' | 'headers';
    const special = custom[part];
    const text = part !== 'body';
    const withDefaults = text ? defaulterFor(schema) : undefined;
    return (data: unknown) => {
      let value = data;
      if (withDefaults) {
        // Repeated query parameters arrive as arrays; they fail the string/integer check.
        value = convertScalars(schema, value ?? {});
        value = withDefaults(value);
      }
      const unstorable = unstorableText(value);
      if (unstorable) return { error: new ValidationFailure(unstorable, part) };
      const result = special ? special(value) : check(schema, value);
      if (result.ok) return { value: result.value };
      const repeated = text ? repeatedParameters(schema, value) : {};
      return { error: new ValidationFailure({ ...result.errors, ...repeated }, part) };
    };
  };
}
