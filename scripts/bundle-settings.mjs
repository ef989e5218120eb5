/**
 * Settings shared by the bundles of scripts/build.mjs and the in-memory
 * rebuilds of bench/size.mjs, so the size bench measures what is shipped.
 */
import { minifyTemplates } from './minify-templates.mjs';

/** Plugins of every browser bundle: Lit's css``/html`` templates lose their source formatting. */
export function browserPlugins() {
  return [minifyTemplates()];
}

/**
 * Output settings of the script-tag (IIFE) bundles. They add to `window.Charla`
 * instead of replacing what the loader put there (`extend`), and are plain
 * ASCII (`charset: 'ascii'` writes `\u00E1` for "á"), so a page that serves
 * or includes the script without a UTF-8 charset still shows "más", not "mÃ¡s".
 */
export const SCRIPT_TAG_OUTPUT = { extend: true, charset: 'ascii' };

/**
 * Rolldown options of the script-tag bundles: imported constants are inlined
 * where they are used, not only in conditions (measured: about 70 B gzip less).
 */
export const SCRIPT_TAG_ROLLDOWN = { optimization: { inlineConst: { mode: 'all', pass: 2 } } };
