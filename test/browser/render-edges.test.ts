/**
 * Valid but extreme content from a business backend, laid out in real Chromium at 320 px and
 * 1280 px: nothing may reach past its message row (the panel would scroll sideways or clip it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { listOf, makeContext, mountWidget, msg, nextFrame, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

/** Elements of every rendered row whose box reaches past the row's own box, by class. */
function overflowing(rows: Element[]): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const box = row.getBoundingClientRect();
    for (const el of row.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width && (r.right > box.right + 1 || r.left < box.left - 1))
        out.push(el.getAttribute('class') ?? el.tagName);
    }
  }
  return out;
}

/** Unbreakable runs of the interface's maximum lengths (24 for a title or button text, 72 for a description). */
const word = (n: number) => 'W'.repeat(n);

describe('the bot’s rich variants with the longest unbreakable content', () => {
  for (const width of [320, 1280]) {
    it(`stay inside their row at ${width} px`, async () => {
      await page.viewport(width, 800);
      const f = makeContext({ ui: { open: true } });
      f.stores.$currentMessages.set([
        msg({
          text: 'Elige',
          options: Array.from({ length: 3 }, (_, i) => ({
            type: 'postback',
            title: word(24),
            description: i ? word(72) : undefined,
            payload: {},
            order: i,
          })),
          interactive: { kind: 'options', buttonText: word(24), title: word(60) },
        }),
        msg({ text: 'Llama', interactive: { kind: 'voice_call', header: word(80), displayText: word(90) } }),
        msg({ text: 'Elige', QuickReplies: [{ title: word(40), payload: {}, contentType: 'text' }] }),
      ]);
      const widget = await mountWidget(f);
      const { rows } = listOf(widget);
      await waitFor(() => rows().length === 3, 'three rows');
      await nextFrame();
      expect(overflowing(rows())).toEqual([]);
    });
  }
});
