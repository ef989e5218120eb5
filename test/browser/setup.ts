/**
 * Vitest's tester page is `<html lang="en">`, and a widget without a
 * `language` option speaks its page's language (src/i18n/pick.ts). These
 * tests stand for the Spanish pages of the widget's default; the English
 * page has tests of its own (test/unit/widget/loader.test.ts, the e2e host pages).
 */
document.documentElement.lang = 'es';
