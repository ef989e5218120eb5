/** The live side: widget sessions, widget API, socket gateway, messaging, flows. (Filled in by the live work.) */
import type { FastifyInstance } from 'fastify';

export async function livePlugin(_app: FastifyInstance): Promise<void> {}
