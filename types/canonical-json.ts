/**
 * JSON whatever the order of each object's keys, for telling whether two
 * values are the same: the service's JSON storage (PostgreSQL jsonb, PGlite)
 * gives objects back with their keys reordered, so `JSON.stringify` of a
 * stored payload differs from the one the client sent. Keys whose value is
 * undefined are left out, as JSON.stringify leaves them out. Plain code: the
 * service, the API client and the widget use it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}

/**
 * What a message's retry must repeat of its content (with who sent it, or the
 * room, as each side checks): the type and every field a type carries.
 */
export const MESSAGE_CONTENT_KEYS = [
  'type',
  'text',
  'mediaUrl',
  'caption',
  'lat',
  'lng',
  'payload',
  'slug',
  'description',
  'eventPayload',
] as const;

/** Whether `a` and `b` agree on `keys` (absent and null alike), whatever the order of their objects' keys. */
export function sameFields(a: object, b: object, keys: readonly string[]): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return keys.every((key) => canonicalJson(x[key] ?? null) === canonicalJson(y[key] ?? null));
}
