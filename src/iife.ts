/**
 * The self-contained bundle (`charla.iife.js`): the whole widget in one file.
 * Loaded by the small loader, it registers itself as `window.__charlaFull`
 * and the loader hands over to it. Used directly in a script tag (with the
 * same data-* attributes as the loader), it boots by itself.
 */
// First: a page's enumerable Object.prototype properties must not reach the bundle's evaluation.
import { restorePrototype } from './prototype-guard.ts';
import './define.ts';
import { bootFull, ownScript } from './widget/boot.ts';
import { scriptTagApi as full } from './widget/handle.ts';
import { version } from './version.ts';

window.__charlaFull = full;

const script = ownScript('charla.iife.js');
const loaderPresent = window.Charla !== undefined && !Array.isArray(window.Charla);
if (!loaderPresent || script?.dataset['apiKey']) bootFull(script, full, version);
restorePrototype();
