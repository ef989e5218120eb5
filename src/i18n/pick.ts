/**
 * Which of the widget's languages to use: the `language` option (or the
 * script tag's `data-language`) when given, else the page's `<html lang>`.
 * A tag that starts `en` (`en`, `en-GB`, `en_US`, `EN`) is English; anything else,
 * Spanish (the default, and the widget's only other language). No imports:
 * the loader (3,200 B budget) uses it too.
 */
export function pickLanguage(option: unknown): 'es' | 'en' {
  return isEnglish(option) ? 'en' : 'es';
}

/** pickLanguage(option) === 'en', in fewer of the loader's bytes. */
export function isEnglish(option: unknown): boolean {
  return /^en(?![a-z])/i.test(String(option ?? globalThis.document?.documentElement.lang));
}
