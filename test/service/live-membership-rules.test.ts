/**
 * Who may come back into a room, and what a direct room stays: a member taken
 * out by another member cannot let themselves back in (only a member can),
 * and a direct room holds its pair only, so one who left it is not handed a
 * room with someone else in it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath, type ErrorBody, type Message, type Room } from '../../types/index.ts';
import { emitAck, sendText, startLive, waitFor, type LiveHarness } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';
import { people, type Person } from './helpers/people.ts';

/** Widget calls of one person on a service. */
function as(h: LiveHarness, p: Person) {
  const post = (route: string, roomId: string, body: unknown) =>
    h.call('POST', routePath(route, { roomId }), { token: p.token, body });
  return {
    join: (roomId: string, userId = p.id) => post(ROUTES.widgetRoomJoin, roomId, { userId }),
    leave: (roomId: string, userId = p.id) => post(ROUTES.widgetRoomLeave, roomId, { userId }),
    add: (roomId: string, userId: string) => post(ROUTES.widgetRoomMembers, roomId, { member: userId }),
    addMany: (roomId: string, userId: string) =>
      post(ROUTES.widgetRoomMembersBulk, roomId, { members: [{ referenceId: userId }] }),
    async direct(userId: string): Promise<Room> {
      const res = await h.call('POST', ROUTES.widgetDirectRoom, { token: p.token, body: { id: userId } });
      expect(res.status).toBe(200);
      return (await res.json()) as Room;
    },
    async room(roomId: string): Promise<Room> {
      const res = await h.call('GET', routePath(ROUTES.widgetRoom, { roomId }), { token: p.token });
      expect(res.status).toBe(200);
      return (await res.json()) as Room;
    },
    async texts(roomId: string): Promise<{ status: number; texts: string[] }> {
      const res = await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId }), { token: p.token });
      const body = (await res.json()) as { messages?: Message[] };
      return {
        status: res.status,
        texts: (body.messages ?? []).map((m) => (m as { text?: string }).text ?? ''),
      };
    },
  };
}

async function say(h: LiveHarness, p: Person, roomId: string, text: string): Promise<void> {
  const socket = await h.connect(p.token);
  expect((await sendText(socket, roomId, text)).ok).toBe(true);
  socket.close();
}

/** Ana's direct room with Beto made a group by Carla. */
async function group(h: LiveHarness, apiKey: string) {
  const [ana, beto, carla] = await people(h, apiKey, 'Ana', 'Beto', 'Carla');
  const a = as(h, ana);
  const room = await a.direct(beto.id);
  expect((await a.add(room.id, carla.id)).status).toBe(200);
  expect((await a.room(room.id)).type).toBe('group');
  return { ana, beto, carla, room };
}

const live = liveWidgets({ widget: { type: 'group' } });

async function expectRemovedRefusal(res: Response): Promise<void> {
  expect(res.status).toBe(403);
  const body = (await res.json()) as ErrorBody;
  expect(body.error.key).toBe('FORBIDDEN');
  expect(String(body.message)).toMatch(/removed from this room; a member can add you back/);
}

describe('a member removed from a group by another member', () => {
  it('cannot join it again by themselves, and reads nothing said meanwhile, until a member adds them back', async () => {
    const { h, apiKey } = live;
    const { ana, beto, carla, room } = await group(h, apiKey);
    const a = as(h, ana);
    const b = as(h, beto);
    const c = as(h, carla);
    const members = async () => [...(await a.room(room.id)).members].sort();
    const removeCarla = async () => {
      expect((await a.leave(room.id, carla.id)).status).toBe(200);
      expect(await members()).not.toContain(carla.id);
    };

    await removeCarla();
    await say(h, ana, room.id, 'dicho sin Carla');
    await expectRemovedRefusal(await c.join(room.id));
    expect(await members()).not.toContain(carla.id);
    expect((await c.texts(room.id)).status).toBe(403);

    // Each way a member adds her back lifts it: joinRoom for her, addMember, addMembers.
    const byMember = [
      () => b.join(room.id, carla.id),
      () => b.add(room.id, carla.id),
      () => a.addMany(room.id, carla.id),
    ];
    for (const addBack of byMember) {
      expect((await addBack()).status).toBe(200);
      expect(await members()).toContain(carla.id);
      expect((await c.texts(room.id)).status).toBe(200);
      await removeCarla();
      await expectRemovedRefusal(await c.join(room.id));
    }

    // Leaving by herself leaves no such mark: she may come back by herself.
    expect((await b.add(room.id, carla.id)).status).toBe(200);
    expect((await c.leave(room.id)).status).toBe(200);
    expect((await c.join(room.id)).status).toBe(200);
    expect(await members()).toContain(carla.id);
  });
});

describe('a member removed from a direct room by the other', () => {
  it('is let back in by the other’s openRoomWithUser, not his own, and cannot join by himself once the room became a group', async () => {
    const { h, apiKey } = live;
    const [ana, beto, carla] = await people(h, apiKey, 'Ana', 'Beto', 'Carla');
    const a = as(h, ana);
    const b = as(h, beto);
    const room = await a.direct(beto.id);

    // Taken out by Ana, Beto does not let himself back in by opening the room (as with joinRoom).
    expect((await a.leave(room.id, beto.id)).status).toBe(200);
    await expectRemovedRefusal(
      await h.call('POST', ROUTES.widgetDirectRoom, { token: beto.token, body: { id: ana.id } }),
    );
    expect((await a.room(room.id)).members).not.toContain(beto.id);
    // Ana opening their room brings him back, as for one who left; then his own opening finds it.
    expect((await a.direct(beto.id)).id).toBe(room.id);
    expect((await a.room(room.id)).members).toContain(beto.id);
    expect((await b.direct(ana.id)).id).toBe(room.id);
    // One who left by himself comes back by opening it.
    expect((await b.leave(room.id)).status).toBe(200);
    expect((await b.direct(ana.id)).id).toBe(room.id);

    // Taken out again, and Carla added: a group he may not let himself into.
    expect((await a.leave(room.id, beto.id)).status).toBe(200);
    expect((await a.add(room.id, carla.id)).status).toBe(200);
    expect((await a.room(room.id)).type).toBe('group');
    await expectRemovedRefusal(await b.join(room.id));
    expect((await a.room(room.id)).members).not.toContain(beto.id);
  });
});

describe('the removal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'charla-removal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('survives a restart', async () => {
    const storage = { databaseUrl: undefined, dataDir: dir };
    const first = await startLive(storage);
    let apiKey: string;
    let made: Awaited<ReturnType<typeof group>>;
    try {
      ({ apiKey } = await first.createWidget({ type: 'group' }));
      made = await group(first, apiKey);
      expect((await as(first, made.ana).leave(made.room.id, made.carla.id)).status).toBe(200);
    } finally {
      await first.close();
    }
    const second = await startLive(storage);
    try {
      await expectRemovedRefusal(await as(second, made.carla).join(made.room.id));
    } finally {
      await second.close();
    }
  });
});

describe('a direct room one of the pair left', () => {
  it('stays the pair’s when the partner is added back, and becomes a group when someone else is', async () => {
    const { h, apiKey } = live;
    const [ana, beto, carla] = await people(h, apiKey, 'Ana', 'Beto', 'Carla');
    const a = as(h, ana);
    const b = as(h, beto);
    const c = as(h, carla);
    const room = await a.direct(beto.id);
    await say(h, ana, room.id, 'solo Ana y Beto');

    // The partner back in: still their direct room.
    expect((await b.leave(room.id)).status).toBe(200);
    expect((await a.add(room.id, beto.id)).status).toBe(200);
    expect((await a.room(room.id)).type).toBe('direct');
    expect((await b.direct(ana.id)).id).toBe(room.id);

    // Someone else beside the one who stayed: a group, as with a third member.
    expect((await b.leave(room.id)).status).toBe(200);
    const anaSocket = await h.connect(ana.token);
    const updates: Room[] = [];
    anaSocket.on('room:updated', (r) => updates.push(r));
    expect((await a.add(room.id, carla.id)).status).toBe(200);
    expect((await a.room(room.id)).type).toBe('group');
    await waitFor(
      () => updates.some((r) => r.id === room.id && r.type === 'group'),
      5000,
      'Ana’s room:updated',
    );
    // Carla sees nothing the pair said.
    expect((await c.texts(room.id)).texts).toEqual([]);

    // The pair's next openRoomWithUser makes their new direct room, of the two of them only.
    const fresh = await b.direct(ana.id);
    expect(fresh.id).not.toBe(room.id);
    expect(fresh.type).toBe('direct');
    expect([...fresh.members].sort()).toEqual([ana.id, beto.id].sort());
    expect((await a.direct(beto.id)).id).toBe(fresh.id);
    // And Beto is not in the group.
    expect((await a.room(room.id)).members).not.toContain(beto.id);
  });

  it('stored before this rule with someone else in it, becomes a group when the pair opens their room', async () => {
    const { h, apiKey } = live;
    const [ana, beto, carla] = await people(h, apiKey, 'Ana', 'Beto', 'Carla');
    const a = as(h, ana);
    const room = await a.direct(beto.id);
    expect((await as(h, beto).leave(room.id)).status).toBe(200);
    // What adding Carla used to leave: a `direct` room of Ana and Carla under Ana and Beto's key.
    await h.app.charla.db.query(
      `INSERT INTO room_members (room_id, user_id, id, company_id) VALUES ($1, $2, $3, $4)`,
      [room.id, carla.id, randomUUID(), h.app.charla.config.companyId],
    );
    expect((await a.room(room.id)).type).toBe('direct');

    const fresh = await as(h, beto).direct(ana.id);
    expect(fresh.id).not.toBe(room.id);
    expect([...fresh.members].sort()).toEqual([ana.id, beto.id].sort());
    expect((await a.room(room.id)).type).toBe('group');
    expect((await as(h, carla).direct(ana.id)).id).not.toBe(room.id);
  });
});

describe('leaving and paging back, as a newcomer or someone already out', () => {
  it('a leave repeated by the user who left (or of a room never joined, or that does not exist) succeeds, saying so', async () => {
    const { h, apiKey } = live;
    const { carla, room } = await group(h, apiKey);
    const c = as(h, carla);
    const first = await c.leave(room.id);
    expect(first.status).toBe(200);
    for (const roomId of [room.id, randomUUID()]) {
      const again = await c.leave(roomId);
      expect(again.status, roomId).toBe(200);
      const body = (await again.json()) as { message: string[]; status: boolean };
      expect(body).toMatchObject({ status: true, message: [`${carla.id} was not a member`] });
    }
    // Taking someone else out still needs membership.
    const outsider = await c.leave(room.id, randomUUID());
    expect(outsider.status).toBe(403);
  });

  it('an id of a message said before the newcomer joined pages like an unknown one (404), not as an empty page', async () => {
    const { h, apiKey } = live;
    const [ana, beto, carla] = await people(h, apiKey, 'Ana', 'Beto', 'Carla');
    const a = as(h, ana);
    const room = await a.direct(beto.id);
    await say(h, ana, room.id, 'solo entre Ana y Beto');
    const said = await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId: room.id }), {
      token: ana.token,
    });
    const privateId = String(((await said.json()) as { messages: Message[] }).messages.at(-1)!.id);
    expect((await a.add(room.id, carla.id)).status).toBe(200);
    const page = (id: string, token: string) =>
      h.call('GET', `${routePath(ROUTES.widgetRoomMessages, { roomId: room.id })}?id=${id}`, { token });
    expect((await page(privateId, carla.token)).status).toBe(404);
    expect((await page(randomUUID(), carla.token)).status).toBe(404);
    // Those who were there page from it as before.
    expect((await page(privateId, ana.token)).status).toBe(200);
  });

  it('a newcomer hears nothing of the pair’s messages’ status, and cannot mark them seen', async () => {
    const { h, apiKey } = live;
    const [ana, beto, carla] = await people(h, apiKey, 'Ana', 'Beto', 'Carla');
    const a = as(h, ana);
    const room = await a.direct(beto.id);
    const [sa, sb, sc] = await Promise.all([ana, beto, carla].map((p) => h.connect(p.token)));
    const first = await sendText(sb!, room.id, 'primero, solo para Ana');
    const second = await sendText(sb!, room.id, 'segundo, solo para Ana');
    const [p1, p2] = [first, second].map((ack) => String((ack as { data: Message }).data.id));
    expect((await a.add(room.id, carla.id)).status).toBe(200);
    const heard: { by: string; id: string; status: string }[] = [];
    for (const [by, socket] of [
      ['beto', sb],
      ['carla', sc],
    ] as const)
      socket!.on('message:status', (c) => heard.push({ by, id: c.id, status: c.status }));

    // Ana's widget shows the first: Beto hears of it, Carla does not.
    expect(await emitAck(sa!, 'messages:seen', { roomId: room.id, ids: [p1!] })).toEqual({
      ok: true,
      data: { updated: 1 },
    });
    await waitFor(() => heard.some((c) => c.by === 'beto' && c.id === p1), 5000, 'Beto hears');
    // Carla marking the second (an id she was never shown) changes nothing.
    expect(await emitAck(sc!, 'messages:seen', { roomId: room.id, ids: [p2!] })).toEqual({
      ok: true,
      data: { updated: 0 },
    });
    // What Carla says after joining is hers to hear about, as anyone's.
    const third = await sendText(sb!, room.id, 'tercero, para los tres');
    const p3 = String((third as { data: Message }).data.id);
    expect(await emitAck(sa!, 'messages:seen', { roomId: room.id, ids: [p3] })).toMatchObject({ ok: true });
    await waitFor(() => heard.some((c) => c.by === 'carla' && c.id === p3), 5000, 'Carla hears of the third');
    expect(heard.filter((c) => c.by === 'carla').map((c) => c.id)).toEqual([p3]);
    const res = await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId: room.id }), {
      token: beto.token,
    });
    const statuses = Object.fromEntries(
      ((await res.json()) as { messages: Message[] }).messages.map((m) => [String(m.id), m.status]),
    );
    expect(statuses[p1!]).toBe('DELIVERED_USER');
    expect(statuses[p2!]).not.toBe('DELIVERED_USER');
    for (const s of [sa, sb, sc]) s!.close();
  });
});
