/** Shared assertions of the contract tests: a schema accepts a value, or rejects it at a given field. */
import { expect } from 'vitest';
import Value from 'typebox/value';
import type { TSchema } from 'typebox';

/** Every error TypeBox reports for a value, as `instancePath keyword: message`. */
export function errorsOf(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].map((e) => `${e.instancePath || '/'} ${e.keyword}: ${e.message}`);
}

/** The schema accepts the value (the failure message lists why not). */
export function expectAccepted(schema: TSchema, value: unknown): void {
  expect(errorsOf(schema, value), JSON.stringify(value)).toEqual([]);
  expect(Value.Check(schema, value)).toBe(true);
}

/**
 * The schema rejects the value, and for the right reason: one of the errors
 * names `path` (a JSON pointer such as `/buttons/options/0/title`) or a field
 * under it. An empty path means the root object.
 */
export function expectRejected(schema: TSchema, value: unknown, path: string): void {
  expect(Value.Check(schema, value), `accepted ${JSON.stringify(value)}`).toBe(false);
  const paths = [...Value.Errors(schema, value)].map((e) => e.instancePath);
  const hit = paths.some((p) => p === path || p.startsWith(`${path}/`));
  expect(hit, `errors at ${JSON.stringify(paths)}, none at ${path || '/'}`).toBe(true);
}

/** A string of n characters. */
export const chars = (n: number, c = 'a'): string => c.repeat(n);

/** A copy of an object with some fields replaced or (with undefined) removed. */
export function withFields<T extends object>(
  base: T,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const copy: Record<string, unknown> = structuredClone(base) as Record<string, unknown>;
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) delete copy[k];
    else copy[k] = v;
  }
  return copy;
}
