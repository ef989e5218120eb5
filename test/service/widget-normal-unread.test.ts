/**
 * A `normal` widget is its user's conversation with its bot: its launcher counts the unread
 * messages of the rooms the user can open from it (that conversation, the current room), not
 * those of another bot's conversation with the same user (users and rooms are the company's), until
 * the host shows the home menu, where every room can be opened. The host's $unreadTotal counts
 * every room. Real service, real widget core, real storage.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ROUTES, routePath } from '../../types/index.ts';
import { BASIC, waitFor } from './helpers/live.ts';
import { liveWidgets } from './helpers/widgets.ts';

const live = liveWidgets();

async function botSays(botId: string, userId: string, text: string): Promise<void> {
  const res = await fetch(live.h.baseUrl + routePath(ROUTES.botMessages, { botId }), {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'text', userId, text }),
  });
  expect(res.status).toBe(200);
}

describe("a normal widget's launcher count", () => {
  it("leaves out another bot's conversation until the home menu shows, and counts its own", async () => {
    await live.h.insertBot('other-bot', 'Otra tienda');
    const userId = `nu-${randomUUID()}`;
    const widget = live.widget({ userId });
    await widget.connect();
    const read = widget.core.stores.read;
    const ownRoom = widget.stores.$currentRoomId.get()!;
    expect(ownRoom).toBeTruthy();

    await botSays('other-bot', userId, 'Tu pedido de la otra tienda salió');
    await waitFor(() => widget.stores.$unreadTotal.get() === 1, 10_000, "the other bot's message");
    const otherRoom = Object.keys(widget.stores.$unreadByRoom.get()).find((id) => id !== ownRoom)!;
    expect(otherRoom).toBeTruthy();
    expect(read.$launcherUnread.get()).toBe(0);

    await botSays(live.botId, userId, 'Hola desde tu tienda');
    await waitFor(() => widget.stores.$unreadTotal.get() === 2, 10_000, "the widget's own bot's message");
    expect(read.$launcherUnread.get()).toBe(1);

    // The host opens the other room (setCurrentRoom): it can be read here now, so it counts.
    await widget.setCurrentRoom(otherRoom);
    expect(read.$launcherUnread.get()).toBe(widget.stores.$unreadTotal.get());
    await widget.setCurrentRoom(ownRoom);
    expect(read.$launcherUnread.get()).toBe(widget.stores.$unreadByRoom.get()[ownRoom] ?? 0);

    // Once the host shows the home menu, every room can be opened from the widget.
    widget.showHomeMenu();
    expect(read.$launcherUnread.get()).toBe(widget.stores.$unreadTotal.get());
    expect(read.$launcherUnread.get()).toBeGreaterThan(0);
  });

  it('counts every room on a group widget', async () => {
    const { apiKey } = await live.h.createWidget({ botId: 'other-bot', type: 'group' });
    const userId = `nu-${randomUUID()}`;
    const widget = live.widget({ userId, apiKey });
    await widget.connect();
    await botSays(live.botId, userId, 'Hola');
    await waitFor(() => widget.stores.$unreadTotal.get() === 1, 10_000, 'the message');
    expect(widget.core.stores.read.$launcherUnread.get()).toBe(1);
  });
});
