/** Which language the widget speaks: the option, else the page's <html lang>, else Spanish. */
import { afterEach, describe, expect, it } from 'vitest';
import { pickLanguage } from '../../../src/i18n/pick.ts';

afterEach(() => {
  document.documentElement.lang = '';
});

describe('pickLanguage', () => {
  it('takes the option first: `en` or `en-<region>`, in any case, is English; anything else Spanish', () => {
    document.documentElement.lang = 'en';
    expect(['en', 'EN', 'en-GB', 'en_US', 'es', 'es-MX', 'fr', '', 'english'].map(pickLanguage)).toEqual([
      'en',
      'en',
      'en',
      'es',
      'es',
      'es',
      'es',
      'es',
      'es',
    ]);
  });

  it("without an option reads the page's <html lang>", () => {
    const read = (lang: string) => {
      document.documentElement.lang = lang;
      return pickLanguage(undefined);
    };
    expect(['en', 'en-US', 'En-au', 'es', 'es-419', 'de', 'eng', ''].map(read)).toEqual([
      'en',
      'en',
      'en',
      'es',
      'es',
      'es',
      'es',
      'es',
    ]);
  });
});
