/**
 * The QA console's operation forms: one form per operation, built from a
 * small description, showing what was asked and what came back (or the error
 * with its body). Everything is rendered as text.
 */
import { byId, describeError, h, pretty } from './dom.ts';

export type Values = Record<string, string | boolean>;

export interface Field {
  name: string;
  label?: string;
  kind?: 'text' | 'number' | 'json' | 'checkbox' | 'select' | 'textarea';
  /** Initial value (a function is read when the form is built). */
  value?: string | boolean | (() => string);
  /** Used when the field is left empty (read at submit time). */
  fallback?: () => string | null;
  placeholder?: string;
  options?: string[];
  /** Quick-fill buttons: label and the value they put in. */
  quick?: { label: string; value: () => string }[];
}

export interface Operation {
  /** The form's accessible name (and data-op), e.g. `getRoom` or `http:listCampaigns`. */
  id: string;
  title: string;
  doc?: string;
  fields?: Field[];
  submitLabel?: string;
  /** Runs the operation; what it resolves with is shown as the result. */
  run(values: Values, show: { request(value: unknown): void }): unknown;
  /** Called with the result after a success (e.g. to offer a follow-up). */
  after?(result: unknown, form: HTMLFormElement): void;
}

/** Reads a form's values, applying fallbacks. */
function read(form: HTMLFormElement, fields: Field[]): Values {
  const values: Values = {};
  for (const f of fields) {
    const input = form.elements.namedItem(f.name) as
      HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement | null;
    if (!input) continue;
    if (f.kind === 'checkbox') {
      values[f.name] = (input as HTMLInputElement).checked;
      continue;
    }
    let v = input.value;
    if (v.trim() === '' && f.fallback) v = f.fallback() ?? '';
    values[f.name] = v;
  }
  return values;
}

/** Parses a JSON field, naming it when it is not JSON. */
export function json<T = unknown>(values: Values, name: string): T {
  const raw = values[name];
  if (typeof raw !== 'string') throw new Error(`${name} is missing`);
  try {
    return JSON.parse(raw) as T;
  } catch (error) {
    throw new Error(`${name} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Optional JSON: undefined when empty. */
export function optionalJson<T = unknown>(values: Values, name: string): T | undefined {
  const raw = values[name];
  return typeof raw === 'string' && raw.trim() !== '' ? json<T>(values, name) : undefined;
}

/** A string field, or undefined when empty. */
export function optional(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** A string field. */
export function str(values: Values, name: string): string {
  const v = values[name];
  return typeof v === 'string' ? v : '';
}

function fieldElement(op: Operation, f: Field): HTMLElement {
  const id = `${op.id.replace(/[^A-Za-z0-9_-]/g, '-')}-${f.name}`;
  const initial = typeof f.value === 'function' ? f.value() : f.value;
  const label = f.label ?? f.name;
  if (f.kind === 'checkbox') {
    const input = h('input', { type: 'checkbox', id, name: f.name, checked: initial === true });
    return h('label', { class: 'check', for: id }, input, label);
  }
  let control: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
  if (f.kind === 'json' || f.kind === 'textarea') {
    control = h('textarea', { id, name: f.name, rows: '4', spellcheck: 'false', placeholder: f.placeholder });
    control.value = typeof initial === 'string' ? initial : '';
  } else if (f.kind === 'select') {
    control = h(
      'select',
      { id, name: f.name },
      ...(f.options ?? []).map((o) => h('option', { value: o }, o)),
    );
    if (typeof initial === 'string') control.value = initial;
  } else {
    control = h('input', {
      id,
      name: f.name,
      type: f.kind === 'number' ? 'number' : 'text',
      placeholder: f.placeholder,
    });
    control.value = typeof initial === 'string' ? initial : '';
  }
  const wrapper = h('div', {}, h('label', { for: id }, label, control));
  if (f.quick?.length) {
    const quick = h('div', { class: 'quick' });
    for (const q of f.quick) {
      const b = h('button', { type: 'button', class: 'secondary' }, q.label);
      b.addEventListener('click', () => {
        control.value = q.value();
      });
      quick.append(b);
    }
    wrapper.append(quick);
  }
  return wrapper;
}

/**
 * Builds the form of an operation into the container with this id; its title is a heading one
 * level below the section's (h3 under an h2, h4 under an h3).
 */
export function mountOperation(
  containerId: string,
  op: Operation,
  heading: 'h3' | 'h4' = 'h4',
): HTMLFormElement {
  const fields = op.fields ?? [];
  const request = h('pre', { class: 'request', 'data-request': true });
  const result = h('pre', { class: 'result', 'data-result': true, 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'op', 'aria-label': op.id, 'data-op': op.id },
    h(heading, {}, h('code', {}, op.title)),
    op.doc ? h('p', { class: 'doc' }, op.doc) : null,
    ...fields.map((f) => fieldElement(op, f)),
    h('button', { type: 'submit', class: 'run' }, op.submitLabel ?? 'Ejecutar'),
    request,
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    request.textContent = '';
    result.dataset['state'] = 'pending';
    result.textContent = '…';
    const show = {
      request(value: unknown) {
        request.textContent = pretty(value);
      },
    };
    let outcome: Promise<unknown>;
    try {
      outcome = Promise.resolve(op.run(read(form, fields), show));
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome.then(
      (value) => {
        result.dataset['state'] = 'ok';
        result.textContent = pretty(value);
        op.after?.(value, form);
      },
      (error: unknown) => {
        result.dataset['state'] = 'error';
        result.textContent = pretty(describeError(error));
      },
    );
  });
  byId(containerId).append(form);
  return form;
}
