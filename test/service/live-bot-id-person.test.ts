/**
 * A bot's id is never a person's. The bot is a member of each of its rooms
 * under its own id, and that id is public (every session answer names it):
 * a visitor, contact, member or recipient by that id would be in every
 * conversation of the bot, reading and writing them. Each way of naming a
 * person refuses it with 400 VALIDATION_ERROR naming the field, and stores
 * nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath } from '../../types/routes.ts';
import { liveOf } from '../../server/live/index.ts';
import { call } from './helpers/http.ts';
import { collect, sendText, startLive, waitFor, type LiveHarness } from './helpers/live.ts';
import { people, type Person } from './helpers/people.ts';

let h: LiveHarness;
let widget: Awaited<ReturnType<LiveHarness['createWidget']>>;
let other: Awaited<ReturnType<LiveHarness['createWidget']>>;
let alice: Person;
let bob: Person;

beforeAll(async () => {
  h = await startLive();
  widget = await h.createWidget({ type: 'group' });
  other = await h.createWidget();
  [alice, bob] = await people(h, widget.apiKey, 'Alice', 'Bob');
});
afterAll(async () => {
  await h?.close();
});

type Answer = { status: number; body: { error?: { key: string }; validationError?: Record<string, string> } };

/** Status, error key and the fields named, of a widget call's Response or a business call's answer. */
async function refusal(res: Response | Answer): Promise<{ status: number; key?: string; fields: string[] }> {
  const { status, body } =
    res instanceof Response ? { status: res.status, body: (await res.json()) as Answer['body'] } : res;
  return { status, key: body.error?.key, fields: Object.keys(body.validationError ?? {}).sort() };
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await h.app.charla.db.query<{ n: string }>(sql, params);
  return Number(rows[0]?.n);
}

describe('a session', () => {
  it('is refused for the widget’s own bot id and another widget’s bot id, and writes no user', async () => {
    for (const botId of [widget.botId, other.botId]) {
      const res = await h.call('POST', ROUTES.widgetSession, {
        body: { apiKey: widget.apiKey, userId: botId },
      });
      expect(await refusal(res)).toEqual({ status: 400, key: 'VALIDATION_ERROR', fields: ['/userId'] });
      expect(await count('SELECT count(*) AS n FROM live_users WHERE id = $1', [botId])).toBe(0);
    }
    // The bot's room with Alice still has its two members only.
    const members = await h.call('GET', routePath(ROUTES.widgetRoomMembers, { roomId: alice.botRoomId }), {
      token: alice.token,
    });
    const ids = ((await members.json()) as { members: { referenceId: string }[] }).members.map(
      (m) => m.referenceId,
    );
    expect(ids.sort()).toEqual([alice.id, widget.botId].sort());
  });

  it('issued to the bot’s id before the rule (a token naming it) is refused: 401 on calls and the socket', async () => {
    const { sessions } = liveOf(h.app);
    const access = await sessions.accessByKey(widget.apiKey);
    const { token } = sessions.issue(access, widget.botId);
    const rooms = await h.call('GET', ROUTES.widgetRooms, { token });
    expect(rooms.status).toBe(401);
    // Another widget's bot, named on this widget: refused alike.
    const forOther = sessions.issue(access, other.botId);
    expect((await h.call('GET', ROUTES.widgetRooms, { token: forOther.token })).status).toBe(401);
    const read = await h.call('GET', routePath(ROUTES.widgetRoomMessages, { roomId: alice.botRoomId }), {
      token,
    });
    expect(read.status).toBe(401);
    const err = (await h.connect(token).catch((e: unknown) => e)) as { data?: { error: { key: string } } };
    expect(err.data?.error.key).toBe('UNAUTHORIZED');
    // A session of a person on the same widget still works.
    expect((await h.call('GET', ROUTES.widgetRooms, { token: alice.token })).status).toBe(200);
  });
});

describe('a person named by a visitor', () => {
  it('openRoomWithUser with the bot’s id: 400 naming /id, no room made', async () => {
    const before = await count('SELECT count(*) AS n FROM room_members WHERE user_id = $1', [widget.botId]);
    const res = await h.call('POST', ROUTES.widgetDirectRoom, {
      token: alice.token,
      body: { id: widget.botId },
    });
    expect(await refusal(res)).toEqual({ status: 400, key: 'VALIDATION_ERROR', fields: ['/id'] });
    expect(await count('SELECT count(*) AS n FROM room_members WHERE user_id = $1', [widget.botId])).toBe(
      before,
    );
  });

  it('addMember with the bot’s id, as an id or a contact: 400 naming the field', async () => {
    const direct = (await (
      await h.call('POST', ROUTES.widgetDirectRoom, { token: alice.token, body: { id: bob.id } })
    ).json()) as { id: string };
    const path = routePath(ROUTES.widgetRoomMembers, { roomId: direct.id });
    const asId = await h.call('POST', path, { token: alice.token, body: { member: other.botId } });
    expect(await refusal(asId)).toEqual({ status: 400, key: 'VALIDATION_ERROR', fields: ['/member'] });
    const asContact = await h.call('POST', path, {
      token: alice.token,
      body: { member: { id: widget.botId } },
    });
    expect(await refusal(asContact)).toEqual({
      status: 400,
      key: 'VALIDATION_ERROR',
      fields: ['/member/id'],
    });
    expect(await count('SELECT count(*) AS n FROM room_members WHERE room_id = $1', [direct.id])).toBe(2);
  });

  it('addMembers with a bot’s id among people: 400 naming it, and nobody is added', async () => {
    const direct = (await (
      await h.call('POST', ROUTES.widgetDirectRoom, { token: bob.token, body: { id: alice.id } })
    ).json()) as { id: string };
    const carol = `carol-${randomUUID()}`;
    const res = await h.call('POST', routePath(ROUTES.widgetRoomMembersBulk, { roomId: direct.id }), {
      token: bob.token,
      body: { members: [{ referenceId: carol }, { referenceId: widget.botId }] },
    });
    expect(await refusal(res)).toEqual({
      status: 400,
      key: 'VALIDATION_ERROR',
      fields: ['/members/1/referenceId'],
    });
    expect(await count('SELECT count(*) AS n FROM room_members WHERE room_id = $1', [direct.id])).toBe(2);
    expect(await count('SELECT count(*) AS n FROM room_members WHERE user_id = $1', [carol])).toBe(0);
  });

  it('joinRoom for the bot’s id by a member: 400 naming /userId', async () => {
    const direct = (await (
      await h.call('POST', ROUTES.widgetDirectRoom, { token: alice.token, body: { id: bob.id } })
    ).json()) as { id: string };
    const res = await h.call('POST', routePath(ROUTES.widgetRoomJoin, { roomId: direct.id }), {
      token: alice.token,
      body: { userId: widget.botId },
    });
    expect(await refusal(res)).toEqual({ status: 400, key: 'VALIDATION_ERROR', fields: ['/userId'] });
    expect(await count('SELECT count(*) AS n FROM room_members WHERE room_id = $1', [direct.id])).toBe(2);
  });
});

describe('a person named by the business', () => {
  it('a bot message to the bot’s own id: 400 naming /userId, nothing sent', async () => {
    const res = await call(h.baseUrl, 'POST', routePath(ROUTES.botMessages, { botId: widget.botId }), {
      body: { userId: widget.botId, type: 'text', text: 'Hola' },
    });
    expect(await refusal(res)).toEqual({ status: 400, key: 'VALIDATION_ERROR', fields: ['/userId'] });
    expect(
      await count("SELECT count(*) AS n FROM rooms WHERE room_key = 'bot:' || $1 || ':' || $1", [
        widget.botId,
      ]),
    ).toBe(0);
  });

  it('a campaign with a bot among its recipients: 400 naming that recipient, no campaign stored', async () => {
    const before = await count('SELECT count(*) AS n FROM campaigns', []);
    const res = await call(h.baseUrl, 'POST', ROUTES.createCampaign, {
      body: {
        name: 'Rebajas',
        elementName: 'bots',
        botId: widget.botId,
        recipients: [alice.id, other.botId, bob.id],
        message: { type: 'text', text: 'Hola' },
      },
    });
    expect(await refusal(res)).toEqual({ status: 400, key: 'VALIDATION_ERROR', fields: ['/recipients/1'] });
    expect(await count('SELECT count(*) AS n FROM campaigns', [])).toBe(before);
  });
});

describe('people are not affected', () => {
  it('a visitor still opens a session, a room with another person, and talks', async () => {
    const s = await h.session(widget.apiKey, `dana-${randomUUID()}`);
    const socket = await h.connect(s.token);
    const got = collect(socket);
    const ack = await sendText(socket, s.botRoomId, 'hola');
    expect(ack.ok).toBe(true);
    await waitFor(() => got.length > 0, 5000, 'own message echoed');
    const direct = await h.call('POST', ROUTES.widgetDirectRoom, { token: s.token, body: { id: alice.id } });
    expect(direct.status).toBe(200);
    socket.close();
  });
});
