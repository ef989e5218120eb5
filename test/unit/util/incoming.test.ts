/**
 * Messages from the network are kept only in a shape the widget can show: a field of the wrong
 * kind makes the message an UNSUPPORTED placeholder that keeps its id, room, sender and time.
 */
import { describe, expect, it } from 'vitest';
import { usableMessage, usableMessages, usableRoom } from '../../../src/util/incoming.ts';
import { upsertRooms } from '../../../src/stores/rooms.ts';
import type { Room } from '../../../types/index.ts';
import { rawMessage } from '../../raw-message.ts';

const base = rawMessage('m1', 'r1', { seq: 4 });

describe('usableMessage', () => {
  it('keeps well-formed messages of every kind as they are (the same object)', () => {
    const good = [
      { ...base, type: 'TEXT', text: 'Hola', senderNames: 'Charla' },
      {
        ...base,
        type: 'TEXT',
        text: '¿Qué quieres hacer?',
        options: [{ type: 'postback', title: 'Sí', payload: { payload: 'yes' }, order: 0, description: 'd' }],
        interactive: { kind: 'options', buttonText: 'Opciones' },
      },
      { ...base, type: 'TEXT', text: 'x', QuickReplies: [{ title: 'Ok', payload: {}, contentType: 'text' }] },
      { ...base, type: 'TEXT', text: 'Ana', interactive: { kind: 'contacts', contacts: [] } },
      { ...base, type: 'IMAGE', mediaUrl: 'https://cdn.example/a.png', caption: 'Foto' },
      { ...base, type: 'AUDIO', mediaUrl: 'https://cdn.example/a.ogg' },
      { ...base, type: 'VIDEO', mediaUrl: 'https://cdn.example/a.mp4' },
      { ...base, type: 'DOCUMENT', mediaUrl: 'https://cdn.example/a.pdf' },
      { ...base, type: 'FILE', mediaUrl: 'https://cdn.example/a.zip' },
      { ...base, type: 'LOCATION', lat: '40.4', lng: '-3.7' },
      { ...base, type: 'LOCATION', lat: 40.4, lng: -3.7 },
      { ...base, type: 'POSTBACK', text: 'Sí', payload: { replyTo: 'm0' } },
      { ...base, type: 'EVENT', slug: 'joined', description: 'Ana se unió', eventPayload: {} },
      {
        ...base,
        type: 'TEXT',
        text: 'Ana',
        interactive: {
          kind: 'contacts',
          contacts: [
            {
              name: { formatted_name: 'Ana Ruiz', first_name: 'Ana' },
              phones: [{ phone: '+34600111222', type: 'CELL', wa_id: '34600111222' }],
              emails: [{ email: 'ana@example.com' }],
              addresses: [{ street: 'Gran Vía 1', city: 'Madrid', country_code: 'ES', zip: null }],
            },
            {},
          ],
        },
      },
      { ...base, type: 'TEXT', text: 'Llámanos', interactive: { kind: 'voice_call', displayText: 'Llamar' } },
      { ...base, type: 'TEXT', text: 'Tus datos', interactive: { kind: 'contact_info_request' } },
      { ...base, type: 'TEXT', text: 'x', interactive: { kind: 'carousel', cards: 3 } },
      // A type this widget does not know yet stays itself: the renderer's placeholder is for it.
      { ...base, type: 'STICKER', sticker: { id: 1 } },
      // Named after what every object inherits: nothing it needs is looked up there.
      { ...base, type: '__proto__', text: 'x' },
      { ...base, type: 'constructor' },
      { ...base, type: 'toString' },
      // Fresh from the composer: no seq, CREATED.
      { id: 'local', roomId: 'r1', type: 'TEXT', text: 'hola', status: 'CREATED' },
    ];
    for (const m of good) expect(usableMessage(m), JSON.stringify(m)).toBe(m);
  });

  it('makes a message with a field of the wrong kind, or without its type’s own, a placeholder that keeps who and when', () => {
    const broken = [
      { ...base, type: 'TEXT', text: 12345 },
      { ...base, type: 'TEXT' },
      { ...base, type: 'TEXT', text: 'x', options: { title: 'a' } },
      { ...base, type: 'TEXT', text: 'x', options: [null] },
      { ...base, type: 'TEXT', text: 'x', options: [{ title: 5 }] },
      { ...base, type: 'TEXT', text: 'x', options: [{ title: 'a', payload: 'p' }] },
      { ...base, type: 'TEXT', text: 'x', QuickReplies: [null] },
      { ...base, type: 'TEXT', text: 'x', interactive: 'contacts' },
      { ...base, type: 'TEXT', text: 'x', interactive: {} },
      { ...base, type: 'TEXT', text: 'x', interactive: { kind: 'contacts', contacts: 'x' } },
      { ...base, type: 'TEXT', text: 'x', interactive: { kind: 'contacts', contacts: [null] } },
      { ...base, type: 'TEXT', text: 'x', interactive: { kind: 'contacts', contacts: [{ name: 'Ana' }] } },
      { ...base, type: 'TEXT', text: 'x', interactive: { kind: 'contacts', contacts: [{ phones: 'x' }] } },
      {
        ...base,
        type: 'TEXT',
        text: 'x',
        interactive: { kind: 'contacts', contacts: [{ emails: [{ email: 5 }] }] },
      },
      {
        ...base,
        type: 'TEXT',
        text: 'x',
        interactive: { kind: 'contacts', contacts: [{ addresses: [{ city: ['Madrid'] }] }] },
      },
      { ...base, type: 'TEXT', text: 'x', interactive: { kind: 'voice_call', displayText: 5 } },
      { ...base, type: 'TEXT', text: 'x', interactive: { kind: 'voice_call', displayText: 'a', header: {} } },
      { ...base, type: 'TEXT', text: 'x', interactive: { kind: 'options', buttonText: 7 } },
      { ...base, type: 'IMAGE', mediaUrl: { href: 'https://x' } },
      { ...base, type: 'IMAGE', mediaUrl: 'https://x/a.png', caption: ['a'] },
      { ...base, type: 'POSTBACK', text: null, payload: {} },
      { ...base, type: 'POSTBACK', text: 'x', payload: 'p' },
      { ...base, type: 'EVENT', slug: 's', description: {} },
      { ...base, type: 'LOCATION', lat: { v: 1 }, lng: '0' },
      { ...base, type: 'LOCATION', lat: '1' },
      { ...base, type: 'TEXT', text: 'x', timestamp: Number.NaN },
      { ...base, type: 5, text: 'x' },
    ];
    for (const m of broken) {
      const kept = usableMessage(m) as unknown as Record<string, unknown>;
      expect(kept, JSON.stringify(m)).not.toBe(m);
      expect(kept['type']).toBe('UNSUPPORTED');
      expect(kept).toMatchObject({
        id: 'm1',
        roomId: 'r1',
        senderId: 'bot-1',
        createdAt: base.createdAt,
        seq: 4,
      });
      for (const field of ['text', 'options', 'QuickReplies', 'interactive', 'mediaUrl', 'payload', 'lat'])
        expect(kept).not.toHaveProperty(field);
    }
  });

  it('drops what has not even an id and a room', () => {
    expect(usableMessages([null, 'x', 7, [], { id: 'a' }, { roomId: 'r' }, { id: {}, roomId: 'r' }])).toEqual(
      [],
    );
    expect(usableMessages({ messages: [] })).toEqual([]);
    expect(usableMessages([{ id: 3, roomId: 'r', type: 'TEXT', text: 'ok' }])).toHaveLength(1);
  });

  it('a room’s malformed last message becomes the placeholder in the rooms list', () => {
    const room = {
      id: 'r1',
      name: 'Sala',
      lastMessageAt: base.createdAt,
      lastMessage: { ...base, type: 'TEXT', text: { evil: true } },
    } as unknown as Room;
    const [kept] = upsertRooms([], [usableRoom(room)]);
    expect((kept?.lastMessage as unknown as { type: string }).type).toBe('UNSUPPORTED');
    const fine = { ...room, lastMessage: { ...base, type: 'TEXT', text: 'hola' } } as unknown as Room;
    expect(usableRoom(fine)).toBe(fine);
  });
});
