import { beforeEach } from 'vitest';
import { page } from 'vitest/browser';

/**
 * Vitest's tester page is `<html lang="en">`, and a widget without a
 * `language` option speaks its page's language (src/i18n/pick.ts). These
 * tests stand for the Spanish pages of the widget's default; the English
 * page has tests of its own (test/unit/widget/loader.test.ts, the e2e host pages).
 */
document.documentElement.lang = 'es';

/**
 * The files of a worker share one page (isolate: false in vitest.config.ts): each test starts at
 * Vitest's default viewport, whatever size the test before it left (a 320 × 225 zoom test, say).
 */
beforeEach(async () => {
  await page.viewport(414, 896);
});
