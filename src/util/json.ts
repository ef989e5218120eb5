/**
 * JSON as the standard has it, on pages that changed it: old libraries
 * (Prototype.js, still on Magento 1 shops) add `toJSON` to Array.prototype
 * and String.prototype, which turns `['event', data]` into a quoted string
 * and every socket packet into one the service refuses. Those methods are
 * set aside for the call and put back at once.
 */
const PROTOTYPES = [Array.prototype, String.prototype] as unknown as Record<string, unknown>[];

export function withStandardJSON<T>(fn: () => T): T {
  const taken: [Record<string, unknown>, PropertyDescriptor][] = [];
  for (const proto of PROTOTYPES) {
    const own = Object.getOwnPropertyDescriptor(proto, 'toJSON');
    if (own?.configurable && delete proto['toJSON']) taken.push([proto, own]);
  }
  try {
    return fn();
  } finally {
    for (const [proto, own] of taken) Object.defineProperty(proto, 'toJSON', own);
  }
}

/** JSON.stringify with the page's Array/String toJSON set aside. */
export const stringify = (value: unknown): string => withStandardJSON(() => JSON.stringify(value));
