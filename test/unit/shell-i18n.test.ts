/** The catalogues' count strings: one form for 1, another for any other count, in both languages. */
import { describe, expect, it } from 'vitest';
import { catalogue, translate, type CatalogueKey } from '../../src/i18n/index.ts';

describe('translate with a count', () => {
  it('picks the singular for 1 and the plural otherwise, in Spanish and English', () => {
    const say = (language: 'es' | 'en', key: CatalogueKey, count: number) =>
      translate(language, key, { count });
    expect([0, 1, 2].map((n) => say('es', 'members', n))).toEqual([
      '0 participantes',
      '1 participante',
      '2 participantes',
    ]);
    expect([0, 1, 2].map((n) => say('en', 'members', n))).toEqual(['0 members', '1 member', '2 members']);
    expect([1, 2].map((n) => say('es', 'openChatUnread', n))).toEqual([
      'Abrir chat, 1 mensaje sin leer',
      'Abrir chat, 2 mensajes sin leer',
    ]);
    expect([1, 2].map((n) => say('en', 'launcherDisabledUnread', n))).toEqual([
      'Chat unavailable, 1 unread message',
      'Chat unavailable, 2 unread messages',
    ]);
    // A count string with one form for every count stays as it is.
    expect([1, 2].map((n) => say('es', 'unread', n))).toEqual(['1 sin leer', '2 sin leer']);
  });

  it('every string with two forms counts, in both catalogues', () => {
    const es = catalogue('es');
    const en = catalogue('en');
    for (const key of Object.keys(es) as CatalogueKey[]) {
      for (const text of [es[key], en[key]]) {
        const forms = text.split('|');
        expect(forms.length, key).toBeLessThanOrEqual(2);
        if (forms.length === 2) for (const form of forms) expect(form, key).toContain('{count}');
      }
      expect(es[key].includes('{count}'), key).toBe(en[key].includes('{count}'));
    }
  });
});
