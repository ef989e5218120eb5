/**
 * A few DOM helpers for the demo pages. Text goes in as text (textContent),
 * never as markup: the pages show data from the network.
 */

type Child = Node | string | null | undefined | false;

/** `h('button', { type: 'submit', class: 'primary' }, 'Send')`. Attributes are set with setAttribute. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

/** The element with this id, or an error naming it. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** Pretty JSON for a <pre>, with undefined shown as such. */
export function pretty(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The error as something worth showing: name, message, and the error body when there is one. */
export function describeError(error: unknown): unknown {
  if (error instanceof Error) {
    const e = error as Error & { body?: unknown; httpStatus?: number; code?: string };
    return { name: e.name, message: e.message, httpStatus: e.httpStatus, code: e.code, body: e.body };
  }
  return error;
}
