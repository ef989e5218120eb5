/** A document message sent into a room: by a person on the socket, or by the business (a room post). */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { ROUTES, routePath } from '../../../types/index.ts';
import { BASIC, emitAck, type LiveHarness } from './live.ts';
import type { Person } from './people.ts';

/** `p` sends a DOCUMENT of `mediaUrl` into the room, which must store it. */
export async function sendDocument(
  h: LiveHarness,
  p: Person,
  roomId: string,
  mediaUrl: string,
): Promise<void> {
  const socket = await h.connect(p.token);
  const ack = await emitAck(socket, 'message:send', { id: randomUUID(), roomId, type: 'DOCUMENT', mediaUrl });
  expect(ack.ok, JSON.stringify(ack)).toBe(true);
  socket.close();
}

/** A room post (a server-side operation) of a document, which must be stored. */
export async function postDocument(h: LiveHarness, roomId: string, mediaUrl: string): Promise<void> {
  const post = await fetch(h.baseUrl + routePath(ROUTES.roomMessage, { roomId }), {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({
      senderId: 'sistema',
      messages: [{ id: randomUUID(), type: 'DOCUMENT', mediaUrl }],
    }),
  });
  expect(post.status).toBe(200);
}
