import { describe, expect, it } from 'vitest';
import { isAnswered } from '../../../src/components/message-list/items.ts';
import type { Message } from '../../../types/index.ts';
import { msg } from './fixture.ts';

const request = (id: string) => msg({ id, text: '¿Tus datos?', interactive: { kind: 'contact_info_request' } });
const answer = (replyTo: string) =>
  ({
    ...msg({ id: `a-${replyTo}`, by: 'user', senderId: 'me' }),
    type: 'POSTBACK',
    text: 'Ana · ana@example.com',
    payload: { type: 'contact_info', replyTo, name: 'Ana', phone: '', email: 'ana@example.com' },
  }) as unknown as Message;

describe('isAnswered (contact_info_request rows)', () => {
  it('is true once a POSTBACK answering that request follows it, and stays true', () => {
    const messages: Message[] = [msg({ id: 'm1' }), request('r1'), msg({ id: 'm2' })];
    expect(isAnswered(messages, 1)).toBe(false);
    messages.push(answer('r1'));
    expect(isAnswered(messages, 1)).toBe(true);
    // Later messages do not undo it.
    expect(isAnswered([...messages, msg({ id: 'm3' })], 1)).toBe(true);
  });

  it('ignores answers to another request and rows that are not requests', () => {
    const messages: Message[] = [request('r1'), request('r2'), answer('r2')];
    expect(isAnswered(messages, 0)).toBe(false);
    expect(isAnswered(messages, 1)).toBe(true);
    expect(isAnswered(messages, 2)).toBe(false);
  });
});
