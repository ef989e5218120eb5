/**
 * The script-tag entry, served at `/charla.js`:
 *
 *   <script src="https://SERVICE/charla.js" data-api-key="KEY" data-init="true"></script>
 *
 * It stays small (no Lit, no socket.io, no nanostores): it sets up
 * `window.Charla`, shows a launcher, and loads the full bundle
 * (`charla.iife.js` next to this script) on first interaction or idle time.
 * See src/widget/boot.ts for the handshake.
 */
import { boot, ownScript, scriptLoader } from './widget/boot.ts';
import { version } from './version.ts';

const script = ownScript('charla.js');
const src = new URL('charla.iife.js', script?.src || location.href).href;
boot(script, scriptLoader(src, script?.nonce || undefined), version);
