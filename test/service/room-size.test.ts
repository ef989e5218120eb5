/**
 * A room holds at most ROOM_MEMBERS_MAX members (each member added, and each message, costs the
 * service once per member: a room grown to 2,000 by one client held every other request for
 * 5 s at each addMembers call). Past it addMember(s) and joinRoom are 400 naming the field, and
 * nobody is added.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ROOM_MEMBERS_MAX, ROUTES, type ErrorBody } from '../../types/index.ts';
import { liveWidgets } from './helpers/widgets.ts';
import { people } from './helpers/people.ts';

const live = liveWidgets();

async function call(token: string, path: string, body: unknown) {
  const res = await fetch(live.h.baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as ErrorBody & { id?: string } };
}

const members = async (roomId: string) =>
  Number(
    (
      await live.h.app.charla.db.query<{ n: string | number }>(
        'SELECT count(*) AS n FROM room_members WHERE room_id = $1',
        [roomId],
      )
    ).rows[0]!.n,
  );

describe(`a room of ${ROOM_MEMBERS_MAX} members`, () => {
  it('takes members up to the limit, then refuses more with 400 naming the field, adding nobody', async () => {
    const [ana, beto] = await people(live.h, live.apiKey, 'Ana', 'Beto');
    const room = await call(ana.token, ROUTES.widgetDirectRoom, { id: beto.id });
    expect(room.status).toBe(200);
    const roomId = room.body.id!;
    const path = (p: string) => p.replace(':roomId', roomId);
    const made = (n: number) => Array.from({ length: n }, () => ({ referenceId: `m-${randomUUID()}` }));
    expect((await call(ana.token, path(ROUTES.widgetRoomMembersBulk), { members: made(100) })).status).toBe(
      200,
    );
    const rest = ROOM_MEMBERS_MAX - (await members(roomId));
    // One list that would pass the limit by one adds nobody.
    const over = await call(ana.token, path(ROUTES.widgetRoomMembersBulk), { members: made(rest + 1) });
    expect(over.status).toBe(400);
    expect(Object.keys(over.body.validationError ?? {})).toEqual(['/members']);
    expect(await members(roomId)).toBe(ROOM_MEMBERS_MAX - rest);
    // Exactly to the limit.
    expect((await call(ana.token, path(ROUTES.widgetRoomMembersBulk), { members: made(rest) })).status).toBe(
      200,
    );
    expect(await members(roomId)).toBe(ROOM_MEMBERS_MAX);
    const one = await call(ana.token, path(ROUTES.widgetRoomMembers), { member: `m-${randomUUID()}` });
    expect(one.status).toBe(400);
    expect(Object.keys(one.body.validationError ?? {})).toEqual(['/member']);
    const join = await call(ana.token, path(ROUTES.widgetRoomJoin), { userId: `m-${randomUUID()}` });
    expect(join.status).toBe(400);
    expect(Object.keys(join.body.validationError ?? {})).toEqual(['/userId']);
    expect(await members(roomId)).toBe(ROOM_MEMBERS_MAX);
    // A member again is no newcomer: still 200.
    expect((await call(ana.token, path(ROUTES.widgetRoomMembers), { member: beto.id })).status).toBe(200);
  });

  it('holds when adds come at once: two lists that fit one at a time but not together, and single adds racing', async () => {
    const [ana, beto] = await people(live.h, live.apiKey, 'Ana', 'Beto');
    const room = await call(ana.token, ROUTES.widgetDirectRoom, { id: beto.id });
    const roomId = room.body.id!;
    const path = (p: string) => p.replace(':roomId', roomId);
    const made = (n: number) => Array.from({ length: n }, () => ({ referenceId: `m-${randomUUID()}` }));
    expect((await call(ana.token, path(ROUTES.widgetRoomMembersBulk), { members: made(100) })).status).toBe(
      200,
    );
    expect(await members(roomId)).toBe(102);
    // 102 + 60 fits, 102 + 60 + 60 does not: one list goes whole, the other adds nobody.
    const lists = await Promise.all(
      [made(60), made(60)].map((list) =>
        call(ana.token, path(ROUTES.widgetRoomMembersBulk), { members: list }),
      ),
    );
    expect(lists.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(await members(roomId)).toBe(162);
    // 38 places left, 45 single adds and joins at once: exactly 38 get in.
    const singles = await Promise.all(
      Array.from({ length: 45 }, (_, i) =>
        i % 3 === 0
          ? call(ana.token, path(ROUTES.widgetRoomJoin), { userId: `m-${randomUUID()}` })
          : call(ana.token, path(ROUTES.widgetRoomMembers), { member: `m-${randomUUID()}` }),
      ),
    );
    expect(singles.filter((r) => r.status === 200)).toHaveLength(ROOM_MEMBERS_MAX - 162);
    expect(singles.filter((r) => r.status === 400)).toHaveLength(45 - (ROOM_MEMBERS_MAX - 162));
    expect(await members(roomId)).toBe(ROOM_MEMBERS_MAX);
  });
});
