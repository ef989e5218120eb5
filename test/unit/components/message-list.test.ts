import { afterEach, describe, expect, it } from 'vitest';
import { within } from '@testing-library/dom';
import '../../../src/define.ts';
import { rowInfo, type CharlaMessageList } from '../../../src/components/message-list/message-list.ts';
import { namingIn, type Naming } from '../../../src/components/message-list/items.ts';
import { makeContext, msg, room, settle } from './fixture.ts';

async function mount(f = makeContext()) {
  const el = document.createElement('charla-message-list') as CharlaMessageList;
  el.context = f.context;
  document.body.append(el);
  await settle(el);
  const shadow = el.shadowRoot!;
  const log = () => shadow.querySelector('[role=log]')!;
  const scroller = () => shadow.querySelector('.scroller')!;
  const visible = (first: number, last: number) =>
    scroller().dispatchEvent(Object.assign(new Event('visibilityChanged'), { first, last }));
  return { el, shadow, q: within(shadow as unknown as HTMLElement), log, scroller, visible, ...f };
}

afterEach(() => document.body.replaceChildren());

describe('rowInfo', () => {
  it('puts a date separator above the first message of each day and groups runs of one sender', () => {
    const day1 = Date.UTC(2026, 0, 10, 12);
    const day2 = Date.UTC(2026, 0, 11, 12);
    const messages = [
      msg({ timestamp: day1, senderId: 'a', senderNames: 'Ana' }),
      msg({ timestamp: day1 + 1000, senderId: 'a', senderNames: 'Ana' }),
      msg({ timestamp: day1 + 2000, senderId: 'me', by: 'user' }),
      msg({
        timestamp: day1 + 3000,
        type: 'EVENT',
        senderId: 'me',
        by: 'user',
        slug: 'x',
        description: 'x',
        eventPayload: {},
      }),
      msg({ timestamp: day1 + 4000, senderId: 'me', by: 'user' }),
      msg({ timestamp: day2, senderId: 'me', by: 'user' }),
    ];
    const flags = messages.map((_, i) => {
      const r = rowInfo(messages, i, 'me', 'everyone');
      return `${r.newDay ? 'day|' : ''}${r.own ? 'own' : 'other'}${r.grouped ? '+' : ''}${r.showSender ? '@' : ''}`;
    });
    expect(flags).toEqual(['day|other@', 'other+', 'own', 'own', 'own', 'day|own']);
  });

  it('takes a post of the business that names a member or the user as its sender for neither', () => {
    const messages = [
      msg({ senderId: 'ana', by: 'user', senderNames: 'Ana' }),
      // A room post (by: charla) naming Ana: not grouped under her bubbles, its own sender line.
      msg({ senderId: 'ana', by: 'charla' }),
      msg({ senderId: 'me', by: 'user' }),
      // Naming the user: not theirs (no "own" side, ticks or grouping with their messages).
      msg({ senderId: 'me', by: 'charla' }),
      msg({ senderId: 'me', by: 'company' }),
    ];
    const flags = messages.map((_, i) => {
      const r = rowInfo(messages, i, 'me', 'everyone');
      return `${r.own ? 'own' : 'other'}${r.grouped ? '+' : ''}${r.showSender ? '@' : ''}`;
    });
    expect(flags).toEqual(['other@', 'other@', 'own', 'other@', 'other@']);
  });

  it('names everyone in a group room; in a room of two, all but its counterpart (a business or other bot post)', () => {
    const messages = [
      msg({ senderId: 'bot-1', by: 'bot', senderNames: 'Asistente' }),
      // An operator's post (the service's), then another bot of the company: not the room's bot.
      msg({ senderId: 'agent-7', by: 'charla' }),
      msg({ senderId: 'bot-2', by: 'bot', senderNames: 'Ventas' }),
      msg({ senderId: 'bot-1', by: 'bot', senderNames: 'Asistente' }),
      // A post of the business naming the room's bot is the business's, not the bot's.
      msg({ senderId: 'bot-1', by: 'charla' }),
      msg({ senderId: 'me', by: 'user' }),
    ];
    const flags = (naming: Naming) =>
      messages.map((_, i) => (rowInfo(messages, i, 'me', naming).showSender ? '@' : '-')).join('');
    const botRoom = room({ members: ['me', 'bot-1'], bot: { id: 'bot-1', name: 'Asistente', type: 'bot' } });
    expect(flags(namingIn(botRoom, 'me'))).toBe('-@@-@-');
    expect(flags(namingIn(room({ type: 'group', members: ['me', 'bot-1'] }), 'me'))).toBe('@@@@@-');
    expect(flags(namingIn(room({ members: ['me', 'a', 'b'] }), 'me'))).toBe('@@@@@-');
    // A room of two people: the other one is the room's name, their messages need none.
    const pair = [
      msg({ senderId: 'ana', by: 'user', senderNames: 'Ana' }),
      msg({ senderId: 'x', by: 'company' }),
    ];
    const pairFlags = pair.map(
      (_, i) =>
        rowInfo(pair, i, 'me', namingIn(room({ members: ['me', 'ana'], bot: null }), 'me')).showSender,
    );
    expect(pairFlags).toEqual([false, true]);
    expect(flags(namingIn(undefined, 'me'))).toBe('------');
  });
});

describe('<charla-message-list>', () => {
  it('is a labelled, focusable scrolling region', async () => {
    const { q } = await mount();
    expect(q.getByRole('region', { name: 'Mensajes' }).getAttribute('tabindex')).toBe('0');
  });

  it('announces each incoming message once in a log region, never the history already there', async () => {
    const f = makeContext();
    f.stores.$currentMessages.set([msg({ text: 'viejo 1' }), msg({ text: 'viejo 2' })]);
    const { el, log, stores } = await mount(f);
    expect(log().getAttribute('aria-live')).toBe('polite');
    expect(log().textContent!.trim()).toBe('');
    const incoming = msg({ text: 'Hola, ¿en qué te ayudo?', senderNames: 'Bot', timestamp: Date.now() });
    stores.$currentMessages.set([...stores.$currentMessages.get(), incoming]);
    await settle(el);
    expect(log().querySelectorAll('p')).toHaveLength(1);
    expect(log().textContent).toContain('Nuevo mensaje de Bot: Hola, ¿en qué te ayudo?');
    // A status change of the same message (new object, same id) is not announced again.
    stores.$currentMessages.set(
      stores.$currentMessages.get().map((m) => ({ ...m, status: 'DELIVERED_USER' }) as typeof m),
    );
    await settle(el);
    expect(log().querySelectorAll('p')).toHaveLength(1);
  });

  it('announces what a message shows and asks: a contact card by its names, options, quick replies, a call button, a form', async () => {
    const { el, log, stores } = await mount();
    const now = Date.now();
    stores.$currentMessages.set([
      msg({
        text: 'Equipo de soporte',
        senderNames: 'Bot',
        timestamp: now,
        interactive: {
          kind: 'contacts',
          contacts: [
            { name: { formatted_name: 'Ana Ruiz' } },
            { name: { first_name: 'Luis', last_name: 'Gil' } },
          ],
        },
      }),
      msg({
        text: '¿Qué prefieres?',
        senderNames: 'Bot',
        timestamp: now,
        options: [{ title: 'Uno' }, { title: 'Dos' }],
        interactive: { kind: 'options', buttonText: 'Ver' },
      }),
      msg({
        text: '¿Otro?',
        senderNames: 'Bot',
        timestamp: now,
        QuickReplies: [{ title: 'Sí' }, { title: 'No' }, { title: 'Quizá' }],
      }),
      msg({
        text: 'Un agente te atiende',
        senderNames: 'Bot',
        timestamp: now,
        interactive: { kind: 'voice_call', displayText: 'Llamar ahora' },
      }),
      msg({
        text: 'Déjanos tus datos',
        senderNames: 'Bot',
        timestamp: now,
        interactive: { kind: 'contact_info_request' },
      }),
    ]);
    await settle(el);
    const said = [...log().querySelectorAll('p')].map((p) => p.textContent!.trim());
    expect(said).toEqual([
      'Nuevo mensaje de Bot: Tarjeta de contacto: Ana Ruiz, Luis Gil',
      'Nuevo mensaje de Bot: ¿Qué prefieres? Opciones para elegir: 2',
      'Nuevo mensaje de Bot: ¿Otro? Respuestas rápidas: 3',
      'Nuevo mensaje de Bot: Un agente te atiende. Botón: Llamar ahora',
      'Nuevo mensaje de Bot: Déjanos tus datos. Formulario para tus datos',
    ]);
    // The card's summary text, which the card replaces on screen, is not said.
    expect(log().textContent).not.toContain('Equipo de soporte');
  });

  it('announces a sender name without directional controls, so it cannot flip the announcement', async () => {
    const { el, log, stores } = await mount();
    stores.$currentMessages.set([msg({ text: 'hola', senderNames: '\u202EEvil', timestamp: Date.now() })]);
    await settle(el);
    expect(log().textContent).toContain('Nuevo mensaje de Evil: hola');
  });

  it("announces a message without a sender's name from its sender: the bot by name, a business post as its company", async () => {
    const f = makeContext();
    f.stores.$rooms.set([
      room({ id: 'r1', name: 'Sala de pedidos', company: { id: 'c1', name: 'Panadería La Espiga' } }),
    ]);
    f.stores.$currentRoomId.set('r1');
    const { el, log, stores } = await mount(f);
    stores.$currentMessages.set([
      msg({ text: 'Tu pedido está listo', timestamp: Date.now() }),
      msg({ text: 'Envío en camino', by: 'charla', senderId: 'ops-1', timestamp: Date.now() }),
    ]);
    await settle(el);
    expect(log().textContent).toContain('Nuevo mensaje de Asistente: Tu pedido está listo');
    expect(log().textContent).toContain('Nuevo mensaje de Panadería La Espiga: Envío en camino');
    // Never the room's own name.
    expect(log().textContent).not.toContain('Sala de pedidos');
  });

  it('does not announce the user’s own messages nor backfilled history', async () => {
    const f = makeContext();
    const current = msg({ text: 'actual' });
    f.stores.$currentMessages.set([current]);
    const { el, log, stores } = await mount(f);
    stores.$currentMessages.set([
      msg({ text: 'historia' }),
      current,
      msg({ text: 'mío', senderId: 'me', by: 'user', timestamp: Date.now() }),
    ]);
    await settle(el);
    expect(log().textContent!.trim()).toBe('');
  });

  it('announces what a catch-up puts above the user’s own messages sent meanwhile (offline, or not yet stored)', async () => {
    const f = makeContext();
    const before = msg({ text: 'antes' });
    f.stores.$currentMessages.set([before]);
    const { el, log, stores } = await mount(f);
    const mine = [1, 2].map((n) =>
      msg({ text: `mío ${n}`, senderId: 'me', by: 'user', status: 'CREATED', timestamp: Date.now() }),
    );
    stores.$currentMessages.set([before, ...mine]);
    await settle(el);
    expect(log().textContent!.trim()).toBe('');
    // The catch-up: Beto's three, stored before the user's, sort above them.
    const caught = [1, 2, 3].map((n) =>
      msg({ text: `mientras ${n}`, senderNames: 'Beto', senderId: 'beto', timestamp: Date.now() }),
    );
    stores.$currentMessages.set([before, ...caught, ...mine]);
    await settle(el);
    expect([...log().querySelectorAll('p')].map((p) => p.textContent)).toEqual([
      'Nuevo mensaje de Beto: mientras 1',
      'Nuevo mensaje de Beto: mientras 2',
      'Nuevo mensaje de Beto: mientras 3',
    ]);
    // Each once: the user's being stored afterwards announces nothing more.
    stores.$currentMessages.set([
      before,
      ...caught,
      ...mine.map((m) => ({ ...m, status: 'DELIVERED' }) as typeof m),
    ]);
    await settle(el);
    expect(log().querySelectorAll('p')).toHaveLength(3);
  });

  it('does not announce history present when the room opened, even below the user’s own last message', async () => {
    const f = makeContext();
    const page = [
      msg({ text: 'de Beto, ya leído', senderNames: 'Beto', senderId: 'beto' }),
      msg({ text: 'mío de antes', senderId: 'me', by: 'user' }),
    ];
    f.stores.$currentMessages.set(page);
    const { el, log, stores } = await mount(f);
    stores.$currentMessages.set([...page, msg({ text: 'mío nuevo', senderId: 'me', by: 'user' })]);
    await settle(el);
    stores.$currentMessages.set(stores.$currentMessages.get().map((m) => ({ ...m }) as typeof m));
    await settle(el);
    expect(log().textContent!.trim()).toBe('');
  });

  it('does not announce a room’s first page of history arriving after the room opened, however recent', async () => {
    const f = makeContext();
    // The core's word: the first page is history (a reload a moment after chatting), what follows is news.
    const page = [
      msg({ text: 'hace un momento', timestamp: Date.now() - 5_000 }),
      msg({ text: 'recién', timestamp: Date.now() }),
    ];
    f.context.actions.isNews = (m) => !page.includes(m);
    const { el, log, stores } = await mount(f);
    // The store starts empty; the first page comes from the service a moment later, as a "tail".
    stores.$currentMessages.set(page);
    await settle(el);
    expect(log().textContent!.trim()).toBe('');
    stores.$currentMessages.set([
      ...stores.$currentMessages.get(),
      msg({ text: 'ahora', timestamp: Date.now() }),
    ]);
    await settle(el);
    expect(log().querySelectorAll('p')).toHaveLength(1);
  });

  it('starts afresh when the room changes', async () => {
    const f = makeContext();
    const { el, log, stores } = await mount(f);
    stores.$currentMessages.set([msg({ text: 'nuevo', timestamp: Date.now() })]);
    await settle(el);
    expect(log().querySelectorAll('p')).toHaveLength(1);
    const history = msg({ roomId: 'r2', text: 'historia de r2' });
    f.context.actions.isNews = (m) => m !== history;
    stores.$currentRoomId.set('r2');
    stores.$currentMessages.set([history]);
    await settle(el);
    expect(log().querySelectorAll('p')).toHaveLength(0);
  });

  it('marks incoming messages on screen as seen, once, only while open', async () => {
    const f = makeContext({ ui: { open: false } });
    const a = msg({ text: 'a' });
    const b = msg({ text: 'b', senderId: 'me', by: 'user' });
    const c = msg({ text: 'c' });
    f.stores.$currentMessages.set([a, b, c]);
    const { el, visible, stores, callsOf } = await mount(f);
    visible(0, 3);
    expect(callsOf('markSeen')).toHaveLength(0);
    stores.$ui.set({ ...stores.$ui.get(), open: true });
    await settle(el);
    expect(callsOf('markSeen').map((x) => x.args)).toEqual([['r1', [String(a.id), String(c.id)]]]);
    visible(0, 3);
    expect(callsOf('markSeen')).toHaveLength(1);
  });

  it('marks what arrived while the page was hidden as seen once the page shows again', async () => {
    const f = makeContext();
    const a = msg({ text: 'a' });
    f.stores.$currentMessages.set([a]);
    const { el, visible, stores, callsOf } = await mount(f);
    const hide = (hidden: boolean) => {
      Object.defineProperty(document, 'visibilityState', {
        configurable: true,
        get: () => (hidden ? 'hidden' : 'visible'),
      });
      document.dispatchEvent(new Event('visibilitychange'));
    };
    try {
      visible(0, 0);
      expect(callsOf('markSeen').map((x) => x.args)).toEqual([['r1', [String(a.id)]]]);
      hide(true);
      const b = msg({ text: 'b' });
      stores.$currentMessages.set([a, b]);
      await settle(el);
      visible(0, 1);
      // Hidden (another tab, the phone's home screen): nobody saw it.
      expect(callsOf('markSeen')).toHaveLength(1);
      hide(false);
      expect(callsOf('markSeen').map((x) => x.args)).toEqual([
        ['r1', [String(a.id)]],
        ['r1', [String(b.id)]],
      ]);
    } finally {
      delete (document as { visibilityState?: unknown }).visibilityState;
    }
  });

  it('asks for older history when scrolled to the top, not lower down', async () => {
    const f = makeContext();
    f.stores.$currentMessages.set([msg(), msg(), msg(), msg(), msg(), msg()]);
    const { visible, callsOf, stores, el, q } = await mount(f);
    stores.$currentHistory.set({ loading: false, hasMore: true });
    await settle(el);
    visible(3, 6);
    expect(callsOf('loadOlder')).toHaveLength(0);
    visible(2, 3);
    expect(callsOf('loadOlder')).toHaveLength(1);
    stores.$currentHistory.set({ loading: true, hasMore: true });
    await settle(el);
    expect(q.getByRole('status').textContent).toContain('Cargando mensajes anteriores');
    visible(0, 3);
    expect(callsOf('loadOlder')).toHaveLength(1);
  });

  it('says what it loads: a room’s first messages, or earlier ones above those shown', async () => {
    const f = makeContext();
    f.stores.$currentMessages.set([]);
    const { stores, el, q } = await mount(f);
    stores.$currentHistory.set({ loading: true, hasMore: true });
    await settle(el);
    expect(q.getByRole('status').textContent?.trim()).toBe('Cargando mensajes…');
    stores.$currentMessages.set([msg(), msg()]);
    await settle(el);
    expect(q.getByRole('status').textContent?.trim()).toBe('Cargando mensajes anteriores…');
  });

  it('does not ask for history when the first message is held', async () => {
    const f = makeContext();
    f.stores.$currentHistory.set({ loading: false, hasMore: false });
    f.stores.$currentMessages.set([msg(), msg()]);
    const { visible, callsOf } = await mount(f);
    visible(0, 2);
    expect(callsOf('loadOlder')).toHaveLength(0);
  });

  it('offers a "new messages" button when scrolled up and messages arrive', async () => {
    const f = makeContext();
    f.stores.$rooms.set([room()]);
    f.stores.$currentMessages.set([msg()]);
    const { el, q, scroller, stores } = await mount(f);
    scroller().dispatchEvent(new Event('unpinned'));
    await settle(el);
    expect(q.queryByRole('button', { name: /Mensajes nuevos/ })).toBeNull();
    stores.$currentMessages.set([
      ...stores.$currentMessages.get(),
      msg({ timestamp: Date.now() }),
      msg({ timestamp: Date.now() }),
    ]);
    await settle(el);
    const jump = q.getByRole('button', { name: 'Mensajes nuevos (2)' });
    jump.click();
    await settle(el);
    expect(q.queryByRole('button', { name: /Mensajes nuevos/ })).toBeNull();
  });
});
