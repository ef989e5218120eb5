import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../../types/index.ts';
import { Outbox } from '../../../src/transport/outbox.ts';
import { createOutboxStorage } from '../../../src/transport/outbox-storage.ts';

const text = (t: string): OutgoingMessage => ({ id: randomUUID(), roomId: 'r1', type: 'TEXT', text: t });

describe('outbox', () => {
  it('keeps entries in send order and in storage until removed (localStorage where IndexedDB is missing)', async () => {
    const ns = `ns-${randomUUID()}`;
    const box = new Outbox(ns);
    expect(box.storage.kind).toBe(typeof indexedDB === 'undefined' ? 'localstorage' : 'indexeddb');
    await box.ready();
    const a = box.add(text('a'));
    const b = box.add(text('b'));
    const c = box.add(text('c'));
    expect(box.list().map((e) => e.message)).toEqual([a.message, b.message, c.message]);
    await box.remove(String(b.message.id));
    await box.settled();
    // A new page (same namespace) finds what is left, in order.
    const next = new Outbox(ns);
    await next.ready();
    expect(next.list().map((e) => (e.message as { text: string }).text)).toEqual(['a', 'c']);
  });

  it('sends what a page writes after what an earlier page left, whatever the clocks said', async () => {
    const ns = `ns-${randomUUID()}`;
    const realNow = Date.now;
    try {
      // The earlier page's clock ran two hours fast.
      Date.now = () => realNow() + 2 * 3_600_000;
      const first = new Outbox(ns);
      await first.ready();
      first.add(text('A'));
      first.add(text('B'));
      await first.settled();
      Date.now = realNow;
      // Corrected: written after the load, and before it.
      const later = new Outbox(ns);
      await later.ready();
      later.add(text('C'));
      expect(later.list().map((e) => (e.message as { text: string }).text)).toEqual(['A', 'B', 'C']);
      await later.settled();
      const early = new Outbox(ns);
      early.add(text('D'));
      await early.ready();
      expect(early.list().map((e) => (e.message as { text: string }).text)).toEqual(['A', 'B', 'C', 'D']);
      await early.settled();
      const again = new Outbox(ns);
      await again.ready();
      expect(again.list().map((e) => (e.message as { text: string }).text)).toEqual(['A', 'B', 'C', 'D']);
    } finally {
      Date.now = realNow;
    }
  });

  it('goes on without IndexedDB when reading it throws (site data blocked) or its open never answers', async () => {
    const had = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB');
    try {
      Object.defineProperty(globalThis, 'indexedDB', {
        configurable: true,
        get() {
          throw new DOMException('The operation is insecure.', 'SecurityError');
        },
      });
      expect(createOutboxStorage(`ns-${randomUUID()}`).kind).toBe('localstorage');
      // An open whose request never fires success or error.
      let opens = 0;
      Object.defineProperty(globalThis, 'indexedDB', {
        configurable: true,
        value: { open: () => (opens++, {}) },
      });
      const box = new Outbox(`ns-${randomUUID()}`);
      expect(box.storage.kind).toBe('indexeddb');
      // It settles (the test's own timeout would catch a hang): the open is given up, not awaited.
      await box.ready();
      expect(opens).toBe(1);
      expect(box.storage.kind).toBe('localstorage');
      box.add(text('sigue'));
      await box.settled();
      const next = new Outbox(`x`, box.storage);
      await next.ready();
      expect(next.list().map((e) => (e.message as { text: string }).text)).toEqual(['sigue']);
    } finally {
      if (had) Object.defineProperty(globalThis, 'indexedDB', had);
      else delete (globalThis as { indexedDB?: unknown }).indexedDB;
    }
  });

  it('adding the same id twice keeps one entry', async () => {
    const box = new Outbox(`ns-${randomUUID()}`, 'memory');
    const m = text('x');
    box.add(m);
    box.add({ ...m });
    expect(box.size).toBe(1);
  });

  it('keeps namespaces apart', async () => {
    const one = new Outbox(`one-${randomUUID()}`, 'localstorage');
    const twoNs = `two-${randomUUID()}`;
    const two = new Outbox(twoNs, 'localstorage');
    one.add(text('only in one'));
    await one.settled();
    await two.ready();
    expect(two.size).toBe(0);
    expect(await createOutboxStorage(twoNs, 'localstorage').load()).toEqual([]);
  });

  it('a removal never overtakes its own write', async () => {
    const ns = `ns-${randomUUID()}`;
    const box = new Outbox(ns, 'localstorage');
    const m = text('quick');
    box.add(m);
    void box.remove(String(m.id));
    await box.settled();
    expect(await createOutboxStorage(ns, 'localstorage').load()).toEqual([]);
  });

  it('skips what is not an entry in storage (another version, another script) and loads the rest', async () => {
    const ns = `ns-${randomUUID()}`;
    const good = text('kept');
    localStorage.setItem(
      `charla-outbox:${ns}`,
      JSON.stringify({
        a: null,
        b: { message: null },
        c: 'text',
        d: { message: good, order: 1, createdAt: 1 },
      }),
    );
    const box = new Outbox(ns, 'localstorage');
    await expect(box.ready()).resolves.toBeUndefined();
    expect(box.list().map((e) => e.message)).toEqual([good]);
  });

  it('memory storage survives a new Outbox in the same page (the last fallback)', async () => {
    const ns = `mem-${randomUUID()}`;
    const box = new Outbox(ns, 'memory');
    box.add(text('m'));
    await box.settled();
    const again = new Outbox(ns, 'memory');
    await again.ready();
    expect(again.size).toBe(1);
  });
});
