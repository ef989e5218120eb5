import { describe, expect, it } from 'vitest';
import { Outbox } from '../../src/transport/outbox.ts';
import { createWidget } from '../../src/widget/create-widget.ts';
import { createOutboxStorage } from '../../src/transport/outbox-storage.ts';
import type { OutgoingMessage } from '../../types/index.ts';

// happy-dom has no IndexedDB: the outbox's real persistence is checked here, in Chromium.

const text = (n: number, roomId: string): OutgoingMessage => ({
  id: crypto.randomUUID(),
  roomId,
  type: 'TEXT',
  text: `mensaje ${n} — ñandú`,
});

describe('the outbox in IndexedDB', () => {
  it('uses IndexedDB when the browser has it', () => {
    expect(createOutboxStorage(`kind-${crypto.randomUUID()}`).kind).toBe('indexeddb');
  });

  it('keeps unsent messages for the next page (a new Outbox on the same namespace), in send order', async () => {
    const namespace = `reload-${crypto.randomUUID()}`;
    const before = new Outbox(namespace);
    await before.ready();
    const sent = [text(1, 'r1'), text(2, 'r1'), text(3, 'r2')];
    for (const m of sent) before.add(m);
    await before.settled();

    // What a reloaded page does: a fresh Outbox reading the same database.
    const after = new Outbox(namespace);
    await after.ready();
    expect(after.storage.kind).toBe('indexeddb');
    expect(after.list().map((e) => e.message)).toEqual(sent);
  });

  it('forgets an acknowledged message for good', async () => {
    const namespace = `ack-${crypto.randomUUID()}`;
    const outbox = new Outbox(namespace);
    await outbox.ready();
    const [a, b] = [text(1, 'r'), text(2, 'r')];
    outbox.add(a);
    outbox.add(b);
    await outbox.remove(a.id);
    await outbox.settled();

    const reloaded = new Outbox(namespace);
    await reloaded.ready();
    expect(reloaded.list().map((e) => e.message.id)).toEqual([b.id]);
  });

  it('keeps namespaces apart (two widgets on one page)', async () => {
    const [nsOne, nsTwo] = [`one-${crypto.randomUUID()}`, `two-${crypto.randomUUID()}`];
    const one = new Outbox(nsOne);
    const two = new Outbox(nsTwo);
    await Promise.all([one.ready(), two.ready()]);
    const m = text(1, 'r');
    one.add(m);
    await one.settled();

    const [oneAgain, twoAgain] = [new Outbox(nsOne), new Outbox(nsTwo)];
    await Promise.all([oneAgain.ready(), twoAgain.ready()]);
    expect(oneAgain.list().map((e) => e.message.id)).toEqual([m.id]);
    expect(twoAgain.size).toBe(0);
  });

  it('lets go of its database once closed, after writing what was added just before', async () => {
    const namespace = `close-${crypto.randomUUID()}`;
    const outbox = new Outbox(namespace);
    await outbox.ready();
    const m = text(1, 'r');
    outbox.add(m);
    await outbox.close();
    // Kept for the next page: written before the connection went.
    const next = new Outbox(namespace);
    await next.ready();
    expect(next.list().map((e) => e.message)).toEqual([m]);
    await next.close();
    // Nothing holds the database: a logout deleting it is not blocked.
    expect(await deleteDatabase(`charla-outbox:${namespace}`)).toBe('deleted');
  });

  it('gives way to a page deleting its database while in use, and opens it again when next needed', async () => {
    const namespace = `yield-${crypto.randomUUID()}`;
    const outbox = new Outbox(namespace);
    await outbox.ready();
    outbox.add(text(1, 'r'));
    await outbox.settled();
    expect(await deleteDatabase(`charla-outbox:${namespace}`)).toBe('deleted');
    // Still in IndexedDB (not moved to a fallback): the next write opens a new database.
    const later = text(2, 'r');
    outbox.add(later);
    await outbox.settled();
    expect(outbox.storage.kind).toBe('indexeddb');
    const reloaded = new Outbox(namespace);
    await reloaded.ready();
    expect(reloaded.list().map((e) => e.message)).toEqual([later]);
    await Promise.all([outbox.close(), reloaded.close()]);
  });

  it('a destroyed widget leaves no connection to its outbox database', async () => {
    const userId = `gone-${crypto.randomUUID()}`;
    const apiKey = 'k'.repeat(24);
    for (let i = 0; i < 3; i++) {
      const w = createWidget({ apiKey, userId, baseUrl: 'http://127.0.0.1:9', container: null });
      await w.core.outbox.ready();
      w.destroy();
    }
    expect(await deleteDatabase(`charla-outbox:${apiKey}:${userId}`)).toBe('deleted');
  });
});

/** Deletes a database: `deleted`, or `blocked` when a connection holds it (after 2 s of waiting). */
function deleteDatabase(name: string): Promise<'deleted' | 'blocked'> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    let timer: ReturnType<typeof setTimeout> | undefined;
    request.onblocked = () => {
      timer = setTimeout(() => resolve('blocked'), 2000);
    };
    request.onsuccess = () => {
      clearTimeout(timer);
      resolve('deleted');
    };
    request.onerror = () => reject(request.error);
  });
}
