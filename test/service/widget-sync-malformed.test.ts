/**
 * The widget against a service that answers its catch-up with messages it cannot use (a null
 * entry, a TEXT whose text is a number): a stand-in socket.io server, the real widget library.
 * The sync completes, the widget connects, the usable message is kept and the malformed one is a
 * placeholder; before, the null entry threw in the sync loop and the widget retried for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBot } from '../../server/bot-message.ts';
import { usableMessage } from '../../src/util/incoming.ts';
import { startStandIn, type StandIn } from './helpers/stand-in.ts';
import { rawMessage } from '../raw-message.ts';

let service: StandIn;

const message = (id: string, extra: Record<string, unknown>) => rawMessage(id, 'bot-room', extra);
/** The rooms the stand-in's catch-up answers with (the live-events test sets its own). */
let syncRooms: unknown[] = [];

beforeAll(async () => {
  service = await startStandIn();
  service.io.on('connection', (socket) => {
    socket.on('messages:sync', (_req: unknown, ack: (res: unknown) => void) =>
      ack({
        ok: true,
        data: {
          rooms: syncRooms,
          messages: [
            null,
            message('bad', { seq: 1, type: 'TEXT', text: 12345 }),
            message('good', { seq: 2, type: 'TEXT', text: 'hola' }),
          ],
        },
      }),
    );
  });
});
afterAll(() => service.close());

describe('a catch-up with messages the widget cannot use', () => {
  it('completes: connected, the usable message kept, the malformed one a placeholder, the null one dropped', async () => {
    const w = service.widget();
    await w.connect();
    expect(w.stores.$connection.get()).toBe('connected');
    const held = w.core.stores.w.$messagesByRoom.get()['bot-room'] ?? [];
    expect(held.map((m) => [m.id, m.type])).toEqual([
      ['bad', 'UNSUPPORTED'],
      ['good', 'TEXT'],
    ]);
  });
});

describe('live events and rooms the widget cannot use', () => {
  it('are dropped: nothing throws in the page, good rooms and later events still count', async () => {
    const room = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      unread: 0,
      type: 'group',
      name: `Room ${id}`,
      bot: null,
      company: { id: 'c', name: 'C' },
      membersInfo: [{ id: 'm-u1', referenceId: 'u1', names: 'Ana' }],
      members: ['u1'],
      ...extra,
    });
    syncRooms = [
      null,
      7,
      { id: 5 },
      room('bad-name', { name: 123 }),
      room('bad-members', { membersInfo: [null] }),
      room('no-members', { members: undefined }),
      room('good'),
    ];
    const thrown: unknown[] = [];
    const keep = (error: unknown) => thrown.push(error);
    process.on('uncaughtException', keep);
    try {
      const w = service.widget();
      const added: string[] = [];
      w.on('addedToRoom', (e) => added.push(`${e.type}:${e.roomId}:${e.member.referenceId}`));
      await w.connect();
      expect(w.core.stores.w.$rooms.get().map((r) => r.id)).toEqual(['good']);
      const bad: [string, unknown][] = [];
      for (const payload of [
        null,
        1,
        'x',
        [],
        { roomId: 'good' },
        { roomId: 'good', member: null },
        { roomId: 'good', member: { names: 'x' } },
        { roomId: 'good', member: { referenceId: 'b', names: 7 } },
      ])
        bad.push(['member:joined', payload], ['member:left', payload]);
      for (const payload of [
        null,
        1,
        {},
        { id: 5 },
        room('r', { membersInfo: 'x' }),
        room('r', { unread: '3' }),
        room('r', { company: { name: 1 } }),
      ])
        bad.push(['room:updated', payload]);
      for (const payload of [
        null,
        {},
        { roomId: 'bot-room' },
        { roomId: 'bot-room', id: 'good', status: 5 },
        { roomId: 'bot-room', id: 'good', status: 'FAILED', error: 'x' },
      ])
        bad.push(['message:status', payload]);
      for (const [event, payload] of bad) service.io.emit(event, payload);
      // Then what a well-behaved service sends: it still counts.
      service.io.emit('member:joined', {
        roomId: 'good',
        member: { id: 'm-b', referenceId: 'b', names: 'Beto' },
      });
      service.io.emit('message:status', { roomId: 'bot-room', id: 'good', status: 'DELIVERED_USER' });
      service.io.emit('message:new', message('after', { seq: 3, type: 'TEXT', text: 'sigue' }));
      await expect
        .poll(() => (w.core.stores.w.$messagesByRoom.get()['bot-room'] ?? []).map((m) => m.id))
        .toContain('after');
      expect(thrown).toEqual([]);
      expect(added).toEqual(['other:good:b']);
      const good = w.core.stores.w.$rooms.get().find((r) => r.id === 'good');
      expect(good?.membersInfo?.map((m) => m.referenceId)).toEqual(['u1', 'b']);
      expect(
        (w.core.stores.w.$messagesByRoom.get()['bot-room'] ?? []).find((m) => m.id === 'good')?.status,
      ).toBe('DELIVERED_USER');
      expect(w.core.stores.w.$rooms.get().map((r) => r.id)).toEqual(['good']);
    } finally {
      process.off('uncaughtException', keep);
      syncRooms = [];
    }
  });
});

describe('what the service itself sends', () => {
  it('every bot message variant, as the service makes it, is usable as it is (never a placeholder)', () => {
    const contents = [
      { type: 'text', text: 'Hola' },
      {
        type: 'text',
        text: '¿Qué quieres hacer?',
        buttons: {
          title: 'Menú',
          buttonText: { text: 'Ver' },
          options: [{ title: 'Planes', description: 'Precios', payload: 'plans' }, { title: 'Soporte' }],
        },
      },
      {
        type: 'contacts',
        contacts: [
          {
            name: { formatted_name: 'Ana Ruiz', first_name: 'Ana' },
            phones: [{ phone: '+34600111222', type: 'CELL' }],
            emails: [{ email: 'ana@example.com', type: 'WORK' }],
            addresses: [{ street: 'Mayor 1', city: 'Madrid', type: 'WORK' }],
          },
        ],
      },
      {
        type: 'voice_call',
        text: 'Llámanos',
        header: 'Soporte',
        parameters: { display_text: 'Llamar', phone_number: '+34600111222' },
      },
      { type: 'video', mediaUrl: 'https://cdn.example.com/a.mp4', text: 'Mira' },
      { type: 'video', mediaUrl: 'https://cdn.example.com/a.mp4' },
      { type: 'contact_info_request', text: 'Déjanos tus datos' },
    ];
    for (const content of contents) {
      const stored = { ...message('m1', { seq: 1 }), ...fromBot(content as never, 'Charla') };
      expect(stored).toMatchObject({ type: expect.stringMatching(/^(TEXT|VIDEO)$/), senderNames: 'Charla' });
      expect(usableMessage(stored), JSON.stringify(content)).toBe(stored);
    }
  });
});
