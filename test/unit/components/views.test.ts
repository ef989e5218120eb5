import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../../src/define.ts';
import { makeContext, msg, room, settle } from './fixture.ts';
import { mountElement as mount } from './mount.ts';
import { LOST_NOTICE_MS } from '../../../src/components/chat/chat.ts';

afterEach(() => document.body.replaceChildren());

function member(id: string, names: string | null) {
  return {
    id: `m-${id}`,
    names,
    referenceId: id,
    roomId: 'r1',
    botId: null,
    companyId: 'c',
    socketId: null,
    createdAt: '',
    memberType: 'Client' as const,
  };
}

/** A direct room made a group by addMember: no name of its own. */
const unnamedGroup = (members = [member('me', 'Me'), member('b', 'Bob'), member('c', 'Carol')]) =>
  room({
    id: 'g1',
    type: 'group',
    name: '',
    members: members.map((m) => m.referenceId),
    membersInfo: members,
  });

describe('<charla-home-menu>', () => {
  it('lists rooms with name, last message and unread count; choosing one selects it', async () => {
    const f = makeContext({ ui: { view: 'home' } });
    f.stores.$rooms.set([
      room({ id: 'r1', name: 'Soporte', lastMessage: msg({ text: 'Te ayudamos' }) }),
      room({ id: 'r2', name: 'Ventas' }),
    ]);
    f.stores.$unreadByRoom.set({ r1: 2 });
    const { q, callsOf } = await mount('charla-home-menu', f);
    const soporte = q.getByRole('button', { name: /^Soporte/ });
    expect(soporte.textContent).toContain('Te ayudamos');
    expect(soporte.textContent).toContain('2 sin leer');
    q.getByRole('button', { name: /^Ventas/ }).click();
    expect(callsOf('selectRoom')[0]!.args).toEqual(['r2']);
  });

  it('is headed by the widget’s name, without direction controls (one of spaces and controls only is none)', async () => {
    const named = await mount(
      'charla-home-menu',
      makeContext({
        ui: { view: 'home' },
        config: { properties: { type: 'group', name: 'Soporte\u202Efdp.exe' } },
      }),
    );
    expect(named.q.getByRole('heading', { level: 2 }).textContent!.trim()).toBe('Soportefdp.exe');
    document.body.replaceChildren();
    const blank = await mount(
      'charla-home-menu',
      makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group', name: ' \u202E ' } } }),
    );
    expect(blank.q.getByRole('heading', { level: 2 }).textContent!.trim()).toBe('Conversaciones');
  });

  it('shows contacts only for group widgets, with the loader; choosing one opens a room with that user', async () => {
    const normal = await mount('charla-home-menu');
    expect(normal.q.queryByText('Contactos')).toBeNull();
    document.body.replaceChildren();

    const f = makeContext({ config: { properties: { type: 'group' } } });
    f.stores.$contactsLoading.set(true);
    const { el, q, stores, callsOf } = await mount('charla-home-menu', f);
    expect(q.getByRole('status').textContent).toContain('Cargando');
    const ana = { id: 'u2', names: 'Ana Pérez' };
    stores.$contacts.set([ana]);
    stores.$contactsLoading.set(false);
    await settle(el);
    expect(q.queryByRole('status')).toBeNull();
    q.getByRole('button', { name: 'Conversar con Ana Pérez' }).click();
    expect(callsOf('openRoomWithUser')[0]!.args).toEqual([ana]);
  });

  it('names an unnamed room after its other members, the avatar after that name', async () => {
    const f = makeContext({ ui: { view: 'home' } });
    f.stores.$rooms.set([unnamedGroup()]);
    const { q } = await mount('charla-home-menu', f);
    const button = q.getByRole('button', { name: /^Bob, Carol/ });
    expect(button.querySelector('.item__name bdi')!.textContent).toBe('Bob, Carol');
    // A group: a group glyph, not the initials of a name (which read as a chat with one person),
    // and its name says so to screen readers.
    expect(button.querySelector('.avatar--group svg')).toBeTruthy();
    expect(button.querySelector('.item__name')!.textContent).toBe('Bob, Carol, Conversación de grupo');
  });

  it('names an unnamed room without member names from the catalogue', async () => {
    const f = makeContext({ ui: { view: 'home' } });
    f.stores.$rooms.set([
      unnamedGroup([member('me', 'Me'), member('x', null), member('y', '  ')]),
      room({ id: 'd1', type: 'direct', name: '  ', membersInfo: [] }),
    ]);
    const { el, q, stores } = await mount('charla-home-menu', f);
    expect(q.getByRole('button', { name: /^Conversación de grupo/ })).toBeTruthy();
    expect(q.getByRole('button', { name: /^Conversación$/ })).toBeTruthy();
    stores.$language.set('en');
    await settle(el);
    // Named after being a group already: said once.
    const group = q.getByRole('button', { name: /^Group conversation/ });
    expect(group.querySelector('.item__name')!.textContent).toBe('Group conversation');
    expect(group.querySelector('.avatar--group svg')).toBeTruthy();
    expect(q.getByRole('button', { name: /^Conversation$/ })).toBeTruthy();
  });

  it('room, member and contact names lose their directional controls and are isolated', async () => {
    const f = makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });
    f.stores.$rooms.set([
      room({
        id: 'r1',
        name: '\u202EEvil',
        lastMessage: msg({ type: 'DOCUMENT', caption: 'a\u202Efdp.exe' }),
      }),
      unnamedGroup([member('me', 'Me'), member('b', '\u2067Bob\u2069'), member('c', '\u200FCarol')]),
    ]);
    f.stores.$contacts.set([{ id: 'u1', names: '\u202ELuis' }]);
    const { el, q } = await mount('charla-home-menu', f);
    const names = [...el.shadowRoot!.querySelectorAll('[part=room] .item__name')];
    expect(names.map((n) => n.textContent)).toEqual(['Evil', 'Bob, Carol, Conversación de grupo']);
    // Isolated (<bdi>): each takes its own direction, aligned with its row as the contacts' names are.
    expect(names.map((n) => n.querySelector('bdi')?.textContent)).toEqual(['Evil', 'Bob, Carol']);
    expect(el.shadowRoot!.querySelector('[part=room] .item__secondary bdi')!.textContent).toBe('afdp.exe');
    expect(el.shadowRoot!.querySelector('[part=room] .avatar')!.textContent!.trim()).toBe('E');
    const contact = q.getByRole('button', { name: 'Conversar con Luis' });
    expect(contact.querySelector('bdi')!.textContent).toBe('Luis');
  });

  it("previews a contacts message by its cards' names in the widget's words, without direction controls", async () => {
    for (const [language, word] of [
      ['es', 'Contacto'],
      ['en', 'Contact'],
    ] as const) {
      const f = makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });
      f.stores.$language.set(language);
      const contacts = [
        { name: { formatted_name: 'invoice\u202Efdp.exe' } },
        { phones: [{ phone: '+34600111222', type: 'WORK' }] },
        {},
      ];
      // The stored text is the service's own summary, in Spanish: the preview is the widget's.
      const lastMessage = msg({
        text: 'invoice\u202Efdp.exe, +34600111222, Contacto',
        interactive: { kind: 'contacts', contacts },
      });
      f.stores.$rooms.set([room({ id: 'r1', name: 'Bot', lastMessage })]);
      const { el } = await mount('charla-home-menu', f);
      expect(el.shadowRoot!.querySelector('[part=room] .item__secondary bdi')!.textContent, language).toBe(
        `invoicefdp.exe, +34600111222, ${word}`,
      );
      document.body.replaceChildren();
    }
  });

  it('closes from its header', async () => {
    const { q, callsOf } = await mount('charla-home-menu');
    q.getByRole('button', { name: 'Cerrar chat' }).click();
    expect(callsOf('close')).toHaveLength(1);
  });
});

describe('<charla-room-contacts>', () => {
  it('lists room contacts with the loader; choosing one adds the member', async () => {
    const f = makeContext({ ui: { view: 'room-contacts' } });
    f.stores.$roomContactsLoading.set(true);
    const { el, q, stores, callsOf } = await mount('charla-room-contacts', f);
    // The loader is a status line; so is the view's own (empty until someone is added).
    expect(q.getAllByRole('status').some((s) => /Cargando/.test(s.textContent ?? ''))).toBe(true);
    const luis = { id: 7, names: 'Luis' };
    stores.$roomContacts.set([luis]);
    stores.$roomContactsLoading.set(false);
    await settle(el);
    q.getByRole('button', { name: 'Añadir a Luis' }).click();
    expect(callsOf('addMember')[0]!.args).toEqual([luis, 'r1']);
    // Once added, the view says so in its status line.
    await settle(el);
    await new Promise((r) => setTimeout(r, 0));
    await settle(el);
    expect(q.getByText('Luis está en la conversación.')).toBeTruthy();
  });

  it('offers only who is not in the current room yet', async () => {
    const f = makeContext({ ui: { view: 'room-contacts' } });
    f.stores.$rooms.set([room({ id: 'r1', type: 'group', members: ['me', 'b'] })]);
    f.stores.$currentRoomId.set('r1');
    f.stores.$roomContacts.set([
      { id: 'b', names: 'Beto' },
      { id: 'g', names: 'Gabi' },
    ]);
    const { q, stores, el } = await mount('charla-room-contacts', f);
    expect(q.queryByRole('button', { name: 'Añadir a Beto' })).toBeNull();
    expect(q.getByRole('button', { name: 'Añadir a Gabi' })).toBeTruthy();
    // Gabi joins (room:updated): she leaves the list.
    stores.$rooms.set([room({ id: 'r1', type: 'group', members: ['me', 'b', 'g'] })]);
    await settle(el);
    expect(q.queryByRole('button', { name: 'Añadir a Gabi' })).toBeNull();
    expect(q.getByText('No hay contactos.')).toBeTruthy();
  });

  it('is for the room it was opened for: when the current room changes under it (the user taken out), it goes back to the chat, and a choice still names that room', async () => {
    const f = makeContext({ ui: { view: 'room-contacts' } });
    f.stores.$roomContacts.set([{ id: 'z', names: 'Zed' }]);
    const { q, stores, el, callsOf } = await mount('charla-room-contacts', f);
    expect(callsOf('hideHomeMenu')).toHaveLength(0);
    stores.$currentRoomId.set('bot-room');
    await settle(el);
    expect(callsOf('hideHomeMenu')).toHaveLength(1);
    // A click that lands before the view goes adds to the room it was for (refused there), never to the bot room.
    q.getByRole('button', { name: 'Añadir a Zed' }).click();
    expect(callsOf('addMember')[0]!.args).toEqual([{ id: 'z', names: 'Zed' }, 'r1']);
  });

  it('goes back to the chat', async () => {
    const { q, callsOf } = await mount('charla-room-contacts');
    q.getByRole('button', { name: 'Volver' }).click();
    expect(callsOf('hideHomeMenu')).toHaveLength(1);
  });

  it('says when there are no contacts', async () => {
    const { q } = await mount('charla-room-contacts');
    expect(q.getByText('No hay contactos.')).toBeTruthy();
  });
});

describe('<charla-chat>', () => {
  it('shows the room name, avatar and members in its header', async () => {
    const f = makeContext({ config: { properties: { type: 'group' } } });
    f.stores.$rooms.set([
      room({
        name: 'Equipo',
        type: 'group',
        members: ['a', 'b', 'c'],
        membersInfo: [member('a', 'Ana'), member('b', 'Luis'), member('c', 'Eva')] as never,
      }),
    ]);
    const { q, el } = await mount('charla-chat', f);
    expect(q.getByRole('heading', { name: 'Equipo' })).toBeTruthy();
    expect(q.getByText('Ana, Luis, Eva')).toBeTruthy();
    expect(el.shadowRoot!.querySelector('charla-message-list')).not.toBeNull();
    expect(el.shadowRoot!.querySelector('charla-composer')).not.toBeNull();
  });

  it('names an unnamed room after its other members in its header', async () => {
    const f = makeContext({ config: { properties: { type: 'group' } } });
    f.stores.$rooms.set([unnamedGroup()]);
    f.stores.$currentRoomId.set('g1');
    const { q, el } = await mount('charla-chat', f);
    expect(q.getByRole('heading', { name: 'Bob, Carol' })).toBeTruthy();
    expect(el.shadowRoot!.querySelector('.header .avatar--group svg')).toBeTruthy();
  });

  it('shows names in its header without directional controls, isolated', async () => {
    const f = makeContext();
    f.stores.$rooms.set([
      room({
        name: '\u202EEquipo',
        type: 'group',
        membersInfo: [member('a', '\u202EAna'), member('b', 'Luis'), member('c', 'Eva\u202D')],
      }),
    ]);
    const { el } = await mount('charla-chat', f);
    const title = el.shadowRoot!.querySelector('h2')!;
    expect(title.textContent).toBe('Equipo');
    expect(title.getAttribute('dir')).toBe('auto');
    const sub = el.shadowRoot!.querySelector('.header__sub')!;
    expect(sub.textContent).toBe('Ana, Luis, Eva');
    expect(sub.getAttribute('dir')).toBe('auto');
  });

  it('offers back and add-people for group widgets only', async () => {
    const normal = await mount('charla-chat');
    expect(normal.q.queryByRole('button', { name: 'Volver' })).toBeNull();
    document.body.replaceChildren();
    const { q, callsOf } = await mount(
      'charla-chat',
      makeContext({ config: { properties: { type: 'group' } } }),
    );
    q.getByRole('button', { name: 'Añadir personas' }).click();
    q.getByRole('button', { name: 'Volver' }).click();
    expect(callsOf('showRoomContacts')).toHaveLength(1);
    expect(callsOf('showHomeMenu')).toHaveLength(1);
  });

  it('shows the connection state when theme.status is on', async () => {
    const f = makeContext({ config: { theme: { status: true } } });
    f.stores.$rooms.set([room()]);
    f.stores.$connection.set('reconnecting');
    const { q } = await mount('charla-chat', f);
    expect(q.getByText('Reconectando…')).toBeTruthy();
  });

  /** Timers faked after mounting: `later(ms)` lets ms pass, then the element render. */
  async function lostNotice(f: ReturnType<typeof makeContext>) {
    const mounted = await mount('charla-chat', f);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const later = async (ms = 0) => {
      await vi.advanceTimersByTimeAsync(ms);
      await (mounted.el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
    };
    return { ...mounted, later };
  }

  it('says, after 2 s of a lost connection, that messages will go when it is back (theme.status off)', async () => {
    try {
      const f = makeContext();
      f.stores.$rooms.set([room()]);
      f.stores.$connection.set('connected');
      const { q, later } = await lostNotice(f);
      const notice = () => q.getByRole('status');
      // The region is there from the start, empty: its words are read when they come.
      expect(notice().textContent).toBe('');
      f.stores.$connection.set('reconnecting');
      await later(LOST_NOTICE_MS - 100);
      expect(notice().textContent, 'a blip is not news').toBe('');
      // Back within the 2 s: nothing said, and the count starts again at the next loss (a timer
      // of the first loss left running would speak 100 ms into the second).
      f.stores.$connection.set('connected');
      await later(50);
      f.stores.$connection.set('offline');
      await later(LOST_NOTICE_MS - 100);
      expect(notice().textContent).toBe('');
      await later(200);
      expect(notice().textContent).toBe('Sin conexión. Tus mensajes se enviarán cuando vuelva.');
      f.stores.$connection.set('reconnecting');
      await later(5_000);
      expect(notice().textContent).toBe('Sin conexión. Tus mensajes se enviarán cuando vuelva.');
      f.stores.$connection.set('connected');
      await later();
      expect(notice().textContent).toBe('');
    } finally {
      vi.useRealTimers();
    }
  });

  it('says, after 2 s of the service unable to store, that messages wait for it (with or without theme.status)', async () => {
    for (const status of [false, true]) {
      try {
        const f = makeContext({ config: { theme: { status } } });
        f.stores.$connection.set('connected');
        const { q, later } = await lostNotice(f);
        const notice = () => q.getAllByRole('status').at(-1)!;
        f.stores.$serviceBusy.set(true);
        await later(1_900);
        expect(notice().textContent).toBe('');
        await later(100);
        expect(notice().textContent).toBe(
          'El servicio no responde ahora. Tus mensajes se enviarán en cuanto vuelva.',
        );
        // The connection lost meanwhile (the core lets the service's state go with it): the notice
        // says that now (the header does with theme.status).
        f.stores.$serviceBusy.set(false);
        f.stores.$connection.set('reconnecting');
        await later();
        expect(notice().textContent).toBe(
          status ? '' : 'Sin conexión. Tus mensajes se enviarán cuando vuelva.',
        );
        // Reconnected, and the catch-up refused by the service (still `reconnecting` until it
        // goes through): the service's words, whatever the connection's state says.
        f.stores.$serviceBusy.set(true);
        await later();
        expect(notice().textContent).toBe(
          'El servicio no responde ahora. Tus mensajes se enviarán en cuanto vuelva.',
        );
        f.stores.$connection.set('connected');
        await later();
        expect(notice().textContent, 'connected again, the service not yet back').toBe(
          'El servicio no responde ahora. Tus mensajes se enviarán en cuanto vuelva.',
        );
        f.stores.$serviceBusy.set(false);
        await later(3_000);
        expect(notice().textContent).toBe('');
      } finally {
        vi.useRealTimers();
        document.body.replaceChildren();
      }
    }
  });

  it('leaves the connection to the header when theme.status is on, and says it in English', async () => {
    try {
      const on = makeContext({ config: { theme: { status: true } } });
      const first = await lostNotice(on);
      on.stores.$connection.set('offline');
      await first.later(3_000);
      expect(first.q.getAllByRole('status').map((s) => s.textContent)).toEqual(['Sin conexión', '']);
      vi.useRealTimers();
      document.body.replaceChildren();
      const en = makeContext();
      en.stores.$language.set('en');
      const second = await lostNotice(en);
      en.stores.$connection.set('offline');
      await second.later(2_000);
      expect(second.q.getByRole('status').textContent).toBe(
        'No connection. Your messages will be sent when it is back.',
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows the last error and dismisses it', async () => {
    const f = makeContext();
    f.stores.$lastError.set({ message: 'No se pudo enviar el mensaje' });
    const { el, q, callsOf } = await mount('charla-chat', f);
    expect(q.getByRole('alert').textContent).toContain('No se pudo enviar el mensaje');
    q.getByRole('button', { name: 'Cerrar aviso' }).click();
    await settle(el);
    expect(callsOf('dismissError')).toHaveLength(1);
    expect(q.queryByRole('alert')).toBeNull();
  });

  it('says an error aloud once: the chat made again (the panel reopened) shows it without the alert role', async () => {
    const f = makeContext();
    f.stores.$lastError.set({ message: 'Revisa los datos enviados.' });
    const first = await mount('charla-chat', f);
    expect(first.q.getByRole('alert').textContent).toContain('Revisa los datos enviados.');
    // Rendered again while it shows (a message, the connection): still the alert it was.
    (first.el as unknown as { requestUpdate(): void }).requestUpdate();
    await settle(first.el);
    expect(first.q.getByRole('alert').textContent).toContain('Revisa los datos enviados.');
    first.el.remove();
    const again = await mount('charla-chat', f);
    expect(again.q.queryByRole('alert')).toBeNull();
    expect(again.q.getByText('Revisa los datos enviados.')).toBeTruthy();
    // A new error is news, even in the same words: a new element, inserted with the alert role.
    const before = again.el.shadowRoot!.querySelector('.error');
    f.stores.$lastError.set({ message: 'Revisa los datos enviados.' });
    await settle(again.el);
    expect(again.q.getByRole('alert').textContent).toContain('Revisa los datos enviados.');
    expect(again.el.shadowRoot!.querySelector('.error')).not.toBe(before);
  });
});
