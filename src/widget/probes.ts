/**
 * Names other code probes any object for (promises, JSON, test matchers,
 * React, DOM checks): not widget methods. Both handles (the loader's, which
 * queues calls, and the full bundle's) answer undefined for them, so nothing
 * is queued or called for them: `await handle` does not hang and
 * `JSON.stringify(handle)` leaves no rejection behind.
 */
const PROBES = new Set<PropertyKey>([
  'then',
  'toJSON',
  'constructor',
  'asymmetricMatch',
  '$$typeof',
  'nodeType',
]);

/** True for a name that is probed for, not called as a widget method. */
export function isProbe(prop: PropertyKey): boolean {
  return PROBES.has(prop);
}
