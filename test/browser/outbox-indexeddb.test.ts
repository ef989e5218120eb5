import { describe, expect, it } from 'vitest';
import { Outbox } from '../../src/transport/outbox.ts';
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
});
