/**
 * The contact lists (home menu, room contacts): a choice the service refuses is said in the view;
 * a contact's colour is its initials' background; its avatar stands for the direct room with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import '../../../src/define.ts';
import { CharlaError } from '../../../src/transport/errors.ts';
import { errorBody, type Member } from '../../../types/index.ts';
import { makeContext, room, settle } from './fixture.ts';
import { mountElement } from './mount.ts';

afterEach(() => document.body.replaceChildren());

const group = () => makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });
const refused = () => Promise.reject(new CharlaError(errorBody('VALIDATION_ERROR', { message: 'no' }), 400));
const member = (referenceId: string, names: string) =>
  ({ id: `m-${referenceId}`, referenceId, names }) as Member;

describe('<charla-home-menu> contacts', () => {
  it('says so in the view when the chat with a chosen contact cannot be opened, and clears it on the next choice', async () => {
    const f = group();
    f.stores.$contacts.set([{ id: 'me' }, { id: 'beto', names: 'Beto Ruiz' }]);
    let answer = refused;
    f.context.actions.openRoomWithUser = () => answer() as never;
    const { el, q } = await mountElement('charla-home-menu', f);
    expect(q.queryByRole('alert')).toBeNull();

    q.getByRole('button', { name: 'Conversar con Beto Ruiz' }).click();
    await settle(el);
    expect(q.getByRole('alert').textContent?.trim()).toBe('No se pudo abrir la conversación con Beto Ruiz.');

    // A contact without a name is named by its id.
    q.getByRole('button', { name: 'Conversar con me' }).click();
    await settle(el);
    expect(q.getByRole('alert').textContent?.trim()).toBe('No se pudo abrir la conversación con me.');

    answer = () => Promise.resolve(room()) as never;
    q.getByRole('button', { name: 'Conversar con Beto Ruiz' }).click();
    await settle(el);
    expect(q.queryByRole('alert')).toBeNull();

    answer = refused;
    f.stores.$language.set('en');
    await settle(el);
    q.getByRole('button', { name: 'Chat with Beto Ruiz' }).click();
    await settle(el);
    expect(q.getByRole('alert').textContent?.trim()).toBe('Could not open a chat with Beto Ruiz.');
  });

  it('shows a contact’s colour behind its initials, with black or white text (4.5:1), and ignores anything but #rgb / #rrggbb', async () => {
    const f = group();
    f.stores.$contacts.set([
      { id: 'a', names: 'Ana', color: '#1d4ed8' },
      { id: 'b', names: 'Beto', color: '#FD0' },
      { id: 'c', names: 'Carla', color: 'red; background: url(https://evil.example/x)' },
      { id: 'd', names: 'Dani' },
    ]);
    const { el, q } = await mountElement('charla-home-menu', f);
    const tint = (name: string) => {
      const style = (
        q.getByRole('button', { name: `Conversar con ${name}` }).querySelector('.avatar') as HTMLElement
      ).style;
      return [
        style.getPropertyValue('--charla-color-avatar'),
        style.getPropertyValue('--charla-color-avatar-text'),
      ];
    };
    expect(tint('Ana')).toEqual(['#1d4ed8', '#ffffff']);
    expect(tint('Beto')).toEqual(['#fd0', '#000000']);
    expect(tint('Carla')).toEqual(['', '']);
    expect(tint('Dani')).toEqual(['', '']);

    // The same button for a contact whose colour goes: the theme's colours again.
    f.stores.$contacts.set([{ id: 'a', names: 'Ana' }]);
    await settle(el);
    expect(tint('Ana')).toEqual(['', '']);
  });

  it('a direct room without a picture shows the avatar its other person has as a contact; other rooms keep theirs', async () => {
    const f = group();
    const beto = 'https://cdn.example/beto.png';
    f.stores.$contacts.set([
      { id: 'beto', names: 'Beto', avatar: beto },
      { id: 'carla', names: 'Carla', avatar: 'https://cdn.example/carla.png' },
    ]);
    f.stores.$rooms.set([
      room({ id: 'd1', type: 'direct', name: '', membersInfo: [member('me', 'Me'), member('beto', 'Beto')] }),
      room({
        id: 'd2',
        type: 'direct',
        name: '',
        avatarUrl: 'https://cdn.example/own.png',
        membersInfo: [member('me', 'Me'), member('carla', 'Carla')],
      }),
      room({
        id: 'g1',
        type: 'group',
        name: 'Equipo',
        membersInfo: [member('me', 'Me'), member('beto', 'Beto'), member('carla', 'Carla')],
      }),
    ]);
    const { el } = await mountElement('charla-home-menu', f);
    const pictures = [...(el.shadowRoot as ShadowRoot).querySelectorAll('[part=room] .avatar')].map(
      (a) => a.querySelector('img')?.getAttribute('src') ?? null,
    );
    expect(pictures).toEqual([beto, 'https://cdn.example/own.png', null]);

    // The chat's header too.
    f.stores.$currentRoomId.set('d1');
    f.stores.$ui.set({ ...f.stores.$ui.get(), view: 'chat' });
    const chat = await mountElement('charla-chat', f);
    expect(chat.el.shadowRoot?.querySelector('header .avatar img')?.getAttribute('src')).toBe(beto);
  });
});

describe('<charla-room-contacts>', () => {
  it('says so in the view when a chosen contact cannot be added, and keeps the contact on offer', async () => {
    const f = makeContext({ ui: { view: 'room-contacts' }, config: { properties: { type: 'group' } } });
    f.stores.$roomContacts.set([{ id: 'bot1', names: 'Asistente' }]);
    f.context.actions.addMember = refused as never;
    const { el, q } = await mountElement('charla-room-contacts', f);
    q.getByRole('button', { name: 'Añadir a Asistente' }).click();
    await settle(el);
    expect(q.getByRole('alert').textContent?.trim()).toBe('No se pudo añadir a Asistente a la conversación.');
    expect(q.getByRole('button', { name: 'Añadir a Asistente' })).not.toBeNull();
    expect(q.getByRole('status').textContent?.trim()).toBe('');
  });
});
