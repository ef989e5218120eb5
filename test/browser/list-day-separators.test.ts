import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { axNodes, listOf, makeContext, mountWidget, msg, waitFor } from './helpers.ts';

// A fixed day in 2026: a date of another year is named with its year ("3 de marzo de 2026").
// Only Date is faked; timers and animation frames stay real for the widget's rendering.
beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: new Date(2026, 10, 22, 12) }));
afterEach(() => {
  vi.useRealTimers();
  document.body.replaceChildren();
});

describe('<charla-message-list> date separators', () => {
  for (const [language, today] of [
    ['es', 'Hoy'],
    ['en', 'Today'],
  ] as const) {
    it(`are separators named after their day (${language})`, async () => {
      const f = makeContext();
      f.stores.$language.set(language);
      f.stores.$currentMessages.set([
        msg({ id: 'old', text: 'Antes', timestamp: new Date(2026, 2, 3, 12).getTime() }),
        msg({ id: 'new', text: 'Ahora', timestamp: Date.now() }),
      ]);
      const widget = await mountWidget(f);
      const { rows } = listOf(widget);
      await waitFor(() => rows().length === 2, 'rows');
      const separators = (await axNodes())
        .filter((n) => !n.ignored && n.role?.value === 'separator')
        .map((n) => n.name?.value ?? '');
      expect(separators).toEqual([language === 'es' ? '3 de marzo' : 'March 3', today]);
    });
  }
});
