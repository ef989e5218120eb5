/**
 * `npm start`'s first step: the environment's configuration checked before the build (which takes
 * a while), so a mistyped variable is said at once, in the words the start itself would use
 * (server/main.ts), and nothing is built. Prints nothing when the configuration is good.
 */
import { configFromEnv } from './config.ts';

try {
  configFromEnv();
} catch (err) {
  console.error(`Charla cannot start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
