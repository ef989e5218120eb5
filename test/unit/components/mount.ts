/**
 * Mounting one of the widget's elements for a component test, with Testing
 * Library queries. Apart from fixture.ts so that fixture.ts stays free of
 * test-only libraries: bench/render/page.ts bundles it into the page whose
 * launcher time the render benchmark measures.
 */
import { within } from '@testing-library/dom';
import type { WidgetContext } from '../../../src/widget/context.ts';
import { makeContext, settle } from './fixture.ts';

/**
 * One of the widget's elements on the page with this context, rendered: the element, queries
 * within its shadow root, and the context's stores and recorded calls.
 */
export async function mountElement<T extends HTMLElement>(tag: string, f = makeContext()) {
  const el = document.createElement(tag) as T & { context?: WidgetContext };
  el.context = f.context;
  document.body.append(el);
  await settle(el);
  return { ...f, el, q: within(el.shadowRoot as unknown as HTMLElement) };
}
