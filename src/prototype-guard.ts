/**
 * Imported first by the self-contained bundle (src/iife.ts). A page that adds
 * an enumerable property to Object.prototype (`Object.prototype.owner = 'x'`;
 * old libraries and tag snippets do) reached the bundler's own
 * `for (k in namespace)` while charla.iife.js was evaluated: it threw
 * ("Getter must be a function") and the widget never started. Such
 * properties are made non-enumerable while the bundle evaluates and are
 * enumerable again once it has (`restorePrototype`, and a microtask should
 * the evaluation throw): the page's values are never touched.
 */
const proto = Object.prototype as Record<string, unknown>;
const hidden: string[] = [];
for (const key in proto) {
  try {
    Object.defineProperty(proto, key, { enumerable: false });
    hidden.push(key);
  } catch {
    // Not configurable: left as it is.
  }
}

/** Makes the hidden properties enumerable again (once). */
export function restorePrototype(): void {
  for (const key of hidden.splice(0)) Object.defineProperty(proto, key, { enumerable: true });
}
if (hidden.length) queueMicrotask(restorePrototype);
