/** Contact lists: one entry per id, later copies replace earlier ones in place. */
import type { Contact } from '../../types/index.ts';

export function mergeContacts(list: readonly Contact[], incoming: readonly Contact[]): Contact[] {
  const next = list.slice();
  const index = new Map(next.map((c, i) => [String(c.id), i] as const));
  for (const c of incoming) {
    const at = index.get(String(c.id));
    if (at === undefined) {
      index.set(String(c.id), next.length);
      next.push(c);
    } else {
      next[at] = c;
    }
  }
  return next;
}

/** The same list with duplicates (by id) collapsed, last copy winning. */
export function uniqueContacts(list: readonly Contact[]): Contact[] {
  return mergeContacts([], list);
}
