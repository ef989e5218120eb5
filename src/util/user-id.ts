/**
 * The user id a widget uses when the page gives none: a UUID made once and
 * kept per API key in localStorage (in memory where storage is blocked).
 * No imports beyond uuid: the script-tag loader uses it too.
 */
import { uuid } from './uuid.ts';

const memory = new Map<string, string>();

export function userIdKey(apiKey: string): string {
  return `charla:user:${apiKey}`;
}

export function storedUserId(apiKey: string): string {
  const key = userIdKey(apiKey);
  try {
    const ls = globalThis.localStorage;
    const held = ls?.getItem(key);
    if (held) return held;
    const made = memory.get(key) ?? uuid();
    ls?.setItem(key, made);
    memory.set(key, made);
    return made;
  } catch {
    let made = memory.get(key);
    if (!made) {
      made = uuid();
      memory.set(key, made);
    }
    return made;
  }
}
