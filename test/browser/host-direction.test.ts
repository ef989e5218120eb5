/**
 * A page's right-to-left rule does not flip the widget: its languages read
 * left to right, whatever `direction` the page gives every element or the
 * <charla-widget> element itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { deep, makeContext, mountWidget, waitFor } from './helpers.ts';

afterEach(() => {
  document.body.replaceChildren();
  document.head.querySelectorAll('style[data-page-rule]').forEach((s) => s.remove());
  document.documentElement.removeAttribute('dir');
});

function pageRule(css: string): void {
  const style = document.createElement('style');
  style.dataset['pageRule'] = '';
  style.textContent = css;
  document.head.append(style);
}

const direction = (el: Element | null | undefined) => (el ? getComputedStyle(el).direction : 'missing');

describe('a page rule setting direction: rtl', () => {
  for (const rule of [
    '* { direction: rtl }',
    'charla-widget { direction: rtl }',
    'charla-widget { direction: rtl !important }',
  ]) {
    it(`leaves the widget left to right: ${rule}`, async () => {
      document.documentElement.dir = 'rtl';
      pageRule(rule);
      const widget = await mountWidget(makeContext({ ui: { open: true, view: 'chat' } }));
      // The page's rule does apply around the widget.
      expect(direction(document.body)).toBe('rtl');
      const root = widget.shadowRoot!;
      const launcher = root.querySelector('[part=launcher]');
      const panel = root.querySelector('[part=panel]');
      const textarea = await waitFor(
        () => deep(widget, 'charla-chat', 'charla-composer', 'textarea'),
        'composer',
      );
      expect({
        host: direction(widget),
        launcher: direction(launcher),
        panel: direction(panel),
        composer: direction(textarea),
      }).toEqual({ host: 'ltr', launcher: 'ltr', panel: 'ltr', composer: 'ltr' });
    });
  }
});
