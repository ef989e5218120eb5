/**
 * A page's right-to-left rule does not flip the widget: its languages read
 * left to right, whatever `direction` the page gives every element or the
 * <charla-widget> element itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { deep, listOf, makeContext, mountWidget, msg, waitFor } from './helpers.ts';

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

describe('a bot’s options in Arabic', () => {
  it('start at the right, as the options’ title above them; a Spanish one at the left', async () => {
    const f = makeContext({ ui: { open: true, view: 'chat' } });
    const option = (title: string, order: number) => ({
      type: 'postback' as const,
      title,
      payload: { payload: `p${order}`, title },
      order,
    });
    f.stores.$currentMessages.set([
      msg({
        text: 'اختر',
        options: [option('نعم، ادفع', 0), option('Sí, pagar', 1)],
        interactive: { kind: 'options', buttonText: 'خيارات' },
      }),
    ]);
    const widget = await mountWidget(f);
    const { rows } = listOf(widget);
    const row = await waitFor(() => rows()[0]);
    const [arabic, spanish] = await waitFor(() => {
      const found = [...(row.shadowRoot ?? row).querySelectorAll<HTMLElement>('.option')];
      return found.length === 2 ? found : undefined;
    });
    // Where the title's words are inside the option (the title itself fills its width).
    const inside = (button: HTMLElement) => {
      const box = button.getBoundingClientRect();
      const title = button.querySelector('.option__title')!;
      const range = document.createRange();
      range.selectNodeContents(title);
      const words = range.getBoundingClientRect();
      return { left: words.left - box.left, right: box.right - words.right, dir: direction(title) };
    };
    const a = inside(arabic!);
    expect(a.dir).toBe('rtl');
    expect(a.right).toBeLessThan(a.left);
    const s = inside(spanish!);
    expect(s.dir).toBe('ltr');
    expect(s.left).toBeLessThan(s.right);
  });
});
