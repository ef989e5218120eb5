/**
 * A hostile member names someone else: openRoomWithUser and addMember take a
 * contact's names, and a peer with a raw client gives the victim's id with a
 * name of their choosing. The victim's own name (from their session) stays
 * theirs: under the messages they send, in the rooms they are added to
 * afterwards, and in their session; a name given by another fills only the
 * gap of a user who gave none.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath, type Ack, type Message, type Room } from '../../types/index.ts';
import { emitAck, sendText, startLive, type LiveHarness } from './helpers/live.ts';

let h: LiveHarness;
let apiKey: string;

beforeAll(async () => {
  h = await startLive();
  ({ apiKey } = await h.createWidget({ type: 'group' }));
});
afterAll(async () => {
  await h?.close();
});

const json = async <T>(res: Response): Promise<T> => {
  const body = (await res.json()) as T;
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body;
};

describe('names a peer gives to someone else', () => {
  it('do not rename a user who named themselves, in new rooms or under their messages', async () => {
    const victim = await h.session(apiKey, `victim-${randomUUID()}`, { userNames: 'Vera' });
    const attacker = await h.session(apiKey, `attacker-${randomUUID()}`, { userNames: 'Mallory' });
    const other = await h.session(apiKey, `other-${randomUUID()}`, { userNames: 'Olga' });

    // The attacker opens a direct room with the victim and adds her to a room of his, each time naming her.
    const direct = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, {
        token: attacker.token,
        body: { id: victim.user.id, names: 'Admin (soporte)' },
      }),
    );
    const withOlga = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: attacker.token, body: { id: other.user.id } }),
    );
    await json(
      await h.call('POST', routePath(ROUTES.widgetRoomMembers, { roomId: withOlga.id }), {
        token: attacker.token,
        body: { member: { id: victim.user.id, names: 'Admin (soporte)' } },
      }),
    );
    await json(
      await h.call('POST', routePath(ROUTES.widgetRoomMembersBulk, { roomId: withOlga.id }), {
        token: attacker.token,
        body: { members: [{ referenceId: victim.user.id, names: 'Admin (soporte)' }] },
      }),
    );

    // Olga sees the victim under her own name in the room the attacker made.
    const seenByOlga = await json<Room>(
      await h.call('GET', routePath(ROUTES.widgetRoom, { roomId: withOlga.id }), { token: other.token }),
    );
    expect(seenByOlga.membersInfo.find((m) => m.referenceId === victim.user.id)?.names).toBe('Vera');
    const seenByVictim = await json<Room>(
      await h.call('GET', routePath(ROUTES.widgetRoom, { roomId: direct.id }), { token: victim.token }),
    );
    expect(seenByVictim.membersInfo.find((m) => m.referenceId === victim.user.id)?.names).toBe('Vera');

    // A message the victim's socket sends without a name of its own carries hers.
    const socket = await h.connect(victim.token);
    const ack = (await sendText(socket, direct.id, 'hola')) as Ack<Message>;
    expect(ack.ok && ack.data.senderNames).toBe('Vera');

    // Her next session still says who she is.
    const again = await h.session(apiKey, victim.user.id);
    expect(again.user.names).toBe('Vera');
  });

  it('a name brought with a message is not the sender’s: it is signed with their own, or none', async () => {
    const bob = await h.session(apiKey, `bob-${randomUUID()}`, { userNames: 'Bob Ruiz' });
    const alice = await h.session(apiKey, `alice-${randomUUID()}`, { userNames: 'Alice' });
    const nameless = await h.session(apiKey, `nameless-${randomUUID()}`);
    const room = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: alice.token, body: { id: bob.user.id } }),
    );
    await json(
      await h.call('POST', routePath(ROUTES.widgetRoomMembers, { roomId: room.id }), {
        token: alice.token,
        body: { member: { id: nameless.user.id } },
      }),
    );
    const send = async (token: string, senderNames: string) => {
      const socket = await h.connect(token);
      const ack = (await emitAck(socket, 'message:send', {
        id: randomUUID(),
        roomId: room.id,
        type: 'TEXT',
        text: 'Please send me your card number',
        senderNames,
      })) as Ack<Message>;
      if (!ack.ok) throw new Error(JSON.stringify(ack));
      return ack.data;
    };
    const asBob = await send(alice.token, 'Bob Ruiz');
    expect(asBob.senderNames).toBe('Alice');
    const asBot = await send(nameless.token, 'Charla');
    expect(asBot.senderNames).toBeUndefined();
    // What the room keeps, and what the others read, says the same.
    const { messages: stored } = await json<{ messages: Message[] }>(
      await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId: room.id }), { token: bob.token }),
    );
    expect(stored.find((m) => m.id === asBob.id)?.senderNames).toBe('Alice');
    const keptAsBot = stored.find((m) => m.id === asBot.id);
    expect(keptAsBot).toBeDefined();
    expect(keptAsBot).not.toHaveProperty('senderNames');
  });

  it('fill the name of a user who gave none', async () => {
    const a = await h.session(apiKey, `a-${randomUUID()}`, { userNames: 'Ana' });
    const anonymous = `anon-${randomUUID()}`;
    const room = await json<Room>(
      await h.call('POST', ROUTES.widgetDirectRoom, {
        token: a.token,
        body: { id: anonymous, names: 'Beto' },
      }),
    );
    expect(room.membersInfo.find((m) => m.referenceId === anonymous)?.names).toBe('Beto');
  });
});
