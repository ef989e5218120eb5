/**
 * The live side: messaging (app.charla.messaging), widget sessions and the
 * widget API, the socket gateway, and the bot's flow runner.
 */
import type { FastifyInstance } from 'fastify';
import { Hub } from './hub.ts';
import { Rooms } from './rooms.ts';
import { createMessaging, type LiveMessaging } from './messaging.ts';

export interface Live {
  hub: Hub;
  messaging: LiveMessaging;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The live side's parts, for tests and benchmarks (e.g. `app.charlaLive.hub.io`). */
    charlaLive: Live;
  }
}

export async function livePlugin(app: FastifyInstance): Promise<void> {
  const { db } = app.charla;
  const hub = new Hub();
  const rooms = new Rooms(db, hub);
  const messaging = createMessaging(db, hub, rooms);
  app.charla.messaging = messaging;
  const live: Live = { hub, messaging };
  if (!app.hasDecorator('charlaLive')) app.decorate('charlaLive', live);
}
