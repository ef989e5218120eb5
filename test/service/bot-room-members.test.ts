/**
 * A person added to someone's bot room (an operator taking over) is a member
 * like in any other room: a member may take them out and they may leave; then
 * they lose the room (its socket channel, reads, sends) and the room is told
 * (`member:left`). Only the room's own user and its bot stay (403 FORBIDDEN).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath, type ApiResponse, type Member } from '../../types/index.ts';
import { collect, sendText, startLive, waitFor, type LiveHarness } from './helpers/live.ts';

let h: LiveHarness;
let apiKey: string;

beforeAll(async () => {
  h = await startLive();
  ({ apiKey } = await h.createWidget());
});
afterAll(async () => {
  await h?.close();
});

const leave = (token: string, roomId: string, userId: string) =>
  h.call('POST', routePath(ROUTES.widgetRoomLeave, { roomId }), { token, body: { userId } });
const add = (token: string, roomId: string, member: string) =>
  h.call('POST', routePath(ROUTES.widgetRoomMembers, { roomId }), { token, body: { member } });
const memberIds = async (token: string, roomId: string) => {
  const res = await h.call('GET', routePath(ROUTES.widgetRoomMembers, { roomId }), { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { members: Member[] }).members.map((m) => m.referenceId).sort();
};

describe('a person added to a bot room', () => {
  it('can be removed by the room’s user and loses the room; its user and bot still cannot', async () => {
    const a = await h.session(apiKey, `ba-${randomUUID()}`, { userNames: 'Alicia' });
    const c = await h.session(apiKey, `bc-${randomUUID()}`, { userNames: 'Carla' });
    const roomId = a.botRoomId;
    const sa = await h.connect(a.token);
    const sc = await h.connect(c.token);
    const left: string[] = [];
    const toldC: string[] = [];
    sa.on('member:left', (e) => e.roomId === roomId && left.push(e.member.referenceId));
    // C's widget learns it too (its removedFromRoom, type me).
    sc.on('member:left', (e) => e.roomId === roomId && toldC.push(e.member.referenceId));
    const gotC = collect(sc);

    expect((await add(a.token, roomId, c.user.id)).status).toBe(200);
    await waitFor(() => (sc as unknown as { connected: boolean }).connected, 3000, 'socket');
    expect((await sendText(sc, roomId, 'hola, soy Carla')).ok).toBe(true);

    // C (not the room's user) cannot take A or the bot out either.
    for (const id of [a.user.id, a.bot.id]) {
      const res = await leave(c.token, roomId, id);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { key: string } }).error.key).toBe('FORBIDDEN');
    }

    const out = await leave(a.token, roomId, c.user.id);
    expect(out.status).toBe(200);
    expect(((await out.json()) as ApiResponse).message).toEqual([`${c.user.id} was removed`]);
    await waitFor(() => left.includes(c.user.id) && toldC.includes(c.user.id), 3000, 'member:left');
    expect(await memberIds(a.token, roomId)).toEqual([a.user.id, a.bot.id].sort());

    // C has lost the room: no reads, no sends, nothing live.
    expect((await h.call('GET', routePath(ROUTES.widgetRoom, { roomId }), { token: c.token })).status).toBe(
      403,
    );
    expect(
      (await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId }), { token: c.token })).status,
    ).toBe(403);
    expect((await sendText(sc, roomId, 'sigo aquí?')).ok).toBe(false);
    const seen = gotC.length;
    expect((await sendText(sa, roomId, 'solo para el bot')).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(gotC.slice(seen).some((m) => m.roomId === roomId)).toBe(false);
    // Nor can C come back by themselves (a bot room is no group).
    const rejoin = await h.call('POST', routePath(ROUTES.widgetRoomJoin, { roomId }), {
      token: c.token,
      body: { userId: c.user.id },
    });
    expect(rejoin.status).toBe(403);
    sa.close();
    sc.close();
  });

  it('can leave by themselves, and be removed by another added member', async () => {
    const a = await h.session(apiKey, `ba-${randomUUID()}`);
    const c = await h.session(apiKey, `bc-${randomUUID()}`);
    const d = await h.session(apiKey, `bd-${randomUUID()}`);
    const roomId = a.botRoomId;
    expect((await add(a.token, roomId, c.user.id)).status).toBe(200);
    expect((await add(a.token, roomId, d.user.id)).status).toBe(200);

    const self = await leave(c.token, roomId, c.user.id);
    expect(self.status).toBe(200);
    expect(((await self.json()) as ApiResponse).message).toEqual([`${c.user.id} left`]);
    expect((await leave(d.token, roomId, d.user.id)).status).toBe(200);
    expect((await add(a.token, roomId, d.user.id)).status).toBe(200);
    expect((await add(d.token, roomId, c.user.id)).status).toBe(200);
    expect((await leave(d.token, roomId, c.user.id)).status).toBe(200);
    expect(await memberIds(a.token, roomId)).toEqual([a.user.id, a.bot.id, d.user.id].sort());

    // The room's user stays its user, the next session included.
    expect((await leave(a.token, roomId, a.user.id)).status).toBe(403);
    const again = await h.session(apiKey, a.user.id);
    expect(again.botRoomId).toBe(roomId);
    expect(await memberIds(a.token, roomId)).toEqual([a.user.id, a.bot.id, d.user.id].sort());
  });
});
