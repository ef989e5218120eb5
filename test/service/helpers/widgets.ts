/** The widget library in service tests: no DOM, a memory outbox, its own storage namespace, WebSocket only. */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { CharlaError } from '../../../src/transport/errors.ts';
import { createWidget } from '../../../src/widget/create-widget.ts';
import type { WidgetOptions } from '../../../src/widget/core.ts';
import type { WidgetInstance } from '../../../src/widget/instance.ts';

/** A widget with the test defaults under `options`, kept in `made` so the file's afterAll destroys it. */
export function serviceWidget(made: WidgetInstance[], options: WidgetOptions): WidgetInstance {
  const w = createWidget({
    container: null,
    outboxStorage: 'memory',
    namespace: `ns-${randomUUID()}`,
    transports: ['websocket'],
    ...options,
  });
  made.push(w);
  return w;
}

/** The CharlaError a widget call rejects with (a call that resolves fails the test). */
export async function rejection(p: Promise<unknown>): Promise<CharlaError> {
  const e = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CharlaError);
  return e as CharlaError;
}
