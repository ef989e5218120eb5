import { describe, expect, it } from 'vitest';
import { answerOf } from '../../../src/components/message-list/items.ts';
import type { Message } from '../../../types/index.ts';
import { msg } from './fixture.ts';

const request = (id: string) =>
  msg({ id, text: '¿Tus datos?', interactive: { kind: 'contact_info_request' } });
const answer = (replyTo: string) =>
  ({
    ...msg({ id: `a-${replyTo}`, by: 'user', senderId: 'me' }),
    type: 'POSTBACK',
    text: 'Ana · ana@example.com',
    payload: { type: 'contact_info', replyTo, name: 'Ana', phone: '', email: 'ana@example.com' },
  }) as unknown as Message;

describe('answerOf (rows that ask for an answer)', () => {
  it('is the POSTBACK answering a request once one follows it, and stays so', () => {
    const messages: Message[] = [msg({ id: 'm1' }), request('r1'), msg({ id: 'm2' })];
    expect(answerOf(messages, 1)).toBeUndefined();
    const a = answer('r1');
    messages.push(a);
    expect(answerOf(messages, 1)).toBe(a);
    // Later messages do not undo it.
    expect(answerOf([...messages, msg({ id: 'm3' })], 1)).toBe(a);
  });

  it('ignores answers to another request and rows that are not requests', () => {
    const messages: Message[] = [request('r1'), request('r2'), answer('r2')];
    expect(answerOf(messages, 0)).toBeUndefined();
    expect(answerOf(messages, 1)).toBe(messages[2]);
    expect(answerOf(messages, 2)).toBeUndefined();
  });

  it('finds the answer of options, quick replies and a call button; a message that asks nothing has none', () => {
    const options = msg({
      id: 'o1',
      text: '¿Confirmas?',
      options: [{ type: 'postback', title: 'Sí', payload: {}, order: 0 }],
    });
    const replies = msg({
      id: 'q1',
      text: '¿Algo más?',
      QuickReplies: [{ title: 'No', payload: {}, contentType: 'text' }],
    });
    const call = msg({
      id: 'c1',
      text: 'Llámanos',
      interactive: { kind: 'voice_call', displayText: 'Llamar' },
    });
    const plain = msg({ id: 't1', text: 'Hola' });
    const messages: Message[] = [
      options,
      replies,
      call,
      plain,
      answer('o1'),
      answer('q1'),
      answer('c1'),
      answer('t1'),
    ];
    expect([0, 1, 2, 3].map((i) => answerOf(messages, i)?.id)).toEqual(['a-o1', 'a-q1', 'a-c1', undefined]);
  });
});
