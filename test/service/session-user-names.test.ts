/**
 * A user's display name signs their messages to the other members (senderNames) and names them
 * in member lists and direct rooms: like a bot's name, it is one line of visible text. A session's
 * userNames with a control character, a line break, or nothing visible is 400 VALIDATION_ERROR
 * naming the field, and nothing is stored; so are such names given to someone else (a contact's
 * names in openRoomWithUser, addMember, addMembers), where an empty one still means none.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ROUTES, routePath, type Message } from '../../types/index.ts';
import { collect, sendText, waitFor } from './helpers/live.ts';
import { liveWidgets, rejection } from './helpers/widgets.ts';

const live = liveWidgets({ widget: { type: 'group' } });

const BAD_NAMES = [
  'Charla Bot\u202e\u0007\n',
  '\u200b ',
  '',
  '   ',
  'Ana\nBeto',
  'Ana\u2028Beto',
  '\u0085Ana',
  'Ana\u001b[31m',
  // Invisible only: tag characters, variation selectors.
  '\u{E0041}\u{E0042}',
  '\uFE0F\uFE0F',
];

async function expect400(res: Response, field: string): Promise<void> {
  const body = (await res.json()) as { error?: { key?: string }; validationError?: Record<string, string> };
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.error?.key).toBe('VALIDATION_ERROR');
  expect(Object.keys(body.validationError ?? {})).toContain(field);
}

const storedNames = async (userId: string) =>
  (
    await live.h.app.charla.db.query<{ names: string | null }>('SELECT names FROM live_users WHERE id = $1', [
      userId,
    ])
  ).rows.map((r) => r.names);

describe('a session’s userNames', () => {
  it('is refused when not one line of visible text, and nothing is stored', async () => {
    for (const userNames of BAD_NAMES) {
      const userId = `names-${randomUUID()}`;
      const res = await live.h.call('POST', ROUTES.widgetSession, {
        body: { apiKey: live.apiKey, userId, userNames },
      });
      await expect400(res, '/userNames');
      expect(await storedNames(userId), JSON.stringify(userNames)).toEqual([]);
    }
  });

  it('keeps a user’s name when a later session gives a bad one', async () => {
    const userId = `names-${randomUUID()}`;
    await live.h.session(live.apiKey, userId, { userNames: 'Vera' });
    const res = await live.h.call('POST', ROUTES.widgetSession, {
      body: { apiKey: live.apiKey, userId, userNames: 'Charla Bot\u0007\n' },
    });
    await expect400(res, '/userNames');
    expect(await storedNames(userId)).toEqual(['Vera']);
  });

  it('takes any visible one-line name, which signs the user’s messages', async () => {
    const a = await live.h.session(live.apiKey, `a-${randomUUID()}`, {
      userNames: 'María José 🌷 (Soporte)',
    });
    const b = await live.h.session(live.apiKey, `b-${randomUUID()}`, { userNames: 'Beto' });
    const room = (await (
      await live.h.call('POST', ROUTES.widgetDirectRoom, { token: a.token, body: { id: b.user.id } })
    ).json()) as { id: string };
    const sa = await live.h.connect(a.token);
    const sb = await live.h.connect(b.token);
    const got: Message[] = collect(sb);
    expect((await sendText(sa, room.id, 'hola')).ok).toBe(true);
    await waitFor(() => got.some((m) => m.roomId === room.id), 3000, 'message');
    expect(got.find((m) => m.roomId === room.id)?.senderNames).toBe('María José 🌷 (Soporte)');
    sa.close();
    sb.close();
  });
});

describe('names given to someone else', () => {
  it('are refused when not one line of visible text; an empty one is none', async () => {
    const a = await live.h.session(live.apiKey, `a-${randomUUID()}`, { userNames: 'Ana' });
    const roomId = a.botRoomId;
    for (const names of ['Charla Bot\u0007\n', '\u200b ', 'Ana\nBeto']) {
      const other = `o-${randomUUID()}`;
      await expect400(
        await live.h.call('POST', ROUTES.widgetDirectRoom, { token: a.token, body: { id: other, names } }),
        '/names',
      );
      await expect400(
        await live.h.call('POST', routePath(ROUTES.widgetRoomMembers, { roomId }), {
          token: a.token,
          body: { member: { id: other, names } },
        }),
        '/member/names',
      );
      await expect400(
        await live.h.call('POST', routePath(ROUTES.widgetRoomMembersBulk, { roomId }), {
          token: a.token,
          body: { members: [{ referenceId: other, names }] },
        }),
        '/members/0/names',
      );
      expect(await storedNames(other)).toEqual([]);
    }
    const other = `o-${randomUUID()}`;
    const direct = await live.h.call('POST', ROUTES.widgetDirectRoom, {
      token: a.token,
      body: { id: other, names: '' },
    });
    expect(direct.status).toBe(200);
    const room = (await direct.json()) as { membersInfo: { referenceId: string; names?: string | null }[] };
    expect(room.membersInfo.find((m) => m.referenceId === other)?.names ?? null).toBeNull();
  });
});

describe('a contact the page lists with such a name', () => {
  it('is opened and added all the same: the widget sends its name as one line of at most 1,024 characters', async () => {
    const w = live.widget({ userId: `w-${randomUUID()}`, userNames: 'Vera' });
    await w.connect();
    // Copied from a CRM: a line break, a tab, a bell; one too long; one with nothing visible.
    const contacts = [
      { id: `c-${randomUUID()}`, names: 'Línea\nDos' },
      { id: `c-${randomUUID()}`, names: 'Tab\tName\u0007' },
      { id: `c-${randomUUID()}`, names: 'é'.repeat(1030) },
      { id: `c-${randomUUID()}`, names: '\u200b\n' },
    ];
    w.setContacts(contacts);
    const named = [];
    for (const contact of contacts) {
      const room = await w.openRoomWithUser(contact);
      named.push(room.membersInfo.find((m) => m.referenceId === contact.id)?.names ?? null);
    }
    expect(named).toEqual(['Línea Dos', 'Tab Name', 'é'.repeat(1024), null]);
    // Added to a room, the same.
    const other = { id: `c-${randomUUID()}`, names: 'Ana\r\nRuiz' };
    const room = await w.openRoomWithUser(contacts[0]!);
    await w.addMember(other, room.id);
    expect(await storedNames(other.id)).toEqual(['Ana Ruiz']);
  });
});

describe('the widget given such a name', () => {
  it('fails connect() with the VALIDATION_ERROR and fires error, without hanging', async () => {
    const w = live.widget({ userId: `w-${randomUUID()}`, userNames: 'Charla Bot\u202e\u0007\n' });
    const errors: { key: string; operation: string }[] = [];
    w.on('error', (e) => errors.push({ key: e.error.key, operation: e.operation }));
    const e = await rejection(w.connect());
    expect(e.key).toBe('VALIDATION_ERROR');
    // Said in its message (the console's "Charla cannot start: …"); the panel shows it unavailable.
    expect(e.message).toContain('/userNames');
    expect(w.stores.$connection.get()).toBe('error');
    expect(errors).toContainEqual({ key: 'VALIDATION_ERROR', operation: 'connect' });
  });
});
