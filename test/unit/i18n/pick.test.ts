/** Which language the widget speaks: the option, else the page's <html lang>, else Spanish. */
import { afterEach, describe, expect, it } from 'vitest';
import { pickLanguage } from '../../../src/i18n/pick.ts';

afterEach(() => {
  document.documentElement.lang = '';
});

/** What `pick` answers for each input, as `{ input: answer }`. */
const answers = (inputs: string[], pick: (input: string) => string) =>
  Object.fromEntries(inputs.map((input) => [input, pick(input)]));

describe('pickLanguage', () => {
  it('takes the option first: `en` or `en-<region>`, in any case, is English; anything else Spanish', () => {
    document.documentElement.lang = 'en';
    const options = ['en', 'EN', 'en-GB', 'en_US', 'es', 'es-MX', 'fr', '', 'english'];
    expect(answers(options, pickLanguage)).toEqual({
      en: 'en',
      EN: 'en',
      'en-GB': 'en',
      // The locale spelling of many sites (en_US), not BCP 47's, is English too.
      en_US: 'en',
      es: 'es',
      'es-MX': 'es',
      fr: 'es',
      '': 'es',
      english: 'es',
    });
  });

  it("without an option reads the page's <html lang>", () => {
    const read = (lang: string) => {
      document.documentElement.lang = lang;
      return pickLanguage(undefined);
    };
    expect(answers(['en', 'en-US', 'en_GB', 'En-au', 'es', 'es-419', 'de', 'eng', ''], read)).toEqual({
      en: 'en',
      'en-US': 'en',
      en_GB: 'en',
      'En-au': 'en',
      es: 'es',
      'es-419': 'es',
      de: 'es',
      eng: 'es',
      '': 'es',
    });
  });
});
