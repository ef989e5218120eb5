/** Several users of one widget at once, each with an open session. */
import { randomUUID } from 'node:crypto';
import type { LiveHarness } from './live.ts';

/** A user of the test's widget: the id (`<name>-<uuid>`), the session token and the bot room. */
export interface Person {
  id: string;
  token: string;
  botRoomId: string;
}

/** New users of the widget of `apiKey`, one per name (given as their names), in order. */
export async function people<N extends string[]>(
  h: LiveHarness,
  apiKey: string,
  ...names: N
): Promise<{ [K in keyof N]: Person }> {
  const made = await Promise.all(
    names.map(async (name) => {
      const s = await h.session(apiKey, `${name}-${randomUUID()}`, { userNames: name });
      return { id: s.user.id, token: s.token, botRoomId: s.botRoomId };
    }),
  );
  return made as { [K in keyof N]: Person };
}
