/** Contacts in the home menu and the room contacts: named in the widget's language only. */
import { afterEach, describe, expect, it } from 'vitest';
import '../../../src/define.ts';
import { makeContext } from './fixture.ts';
import { mountElement } from './mount.ts';

afterEach(() => document.body.replaceChildren());

const mount = async (tag: string, f: ReturnType<typeof makeContext>) => (await mountElement(tag, f)).q;

describe('contact buttons', () => {
  it('leave out the host’s raw contact type, on screen and in their names', async () => {
    const f = makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });
    const contacts = [
      { id: 'u1', names: 'Bob Ruiz', type: 'user' },
      { id: 'u2', names: 'Ana', type: 'agent' },
    ];
    f.stores.$contacts.set(contacts);
    f.stores.$roomContacts.set(contacts);
    const home = await mount('charla-home-menu', f);
    // queryByRole: its name is the button's content (the unseen verb and the name), avatar aside.
    expect(home.queryByRole('button', { name: 'Conversar con Bob Ruiz' })).not.toBeNull();
    expect(home.queryByRole('button', { name: 'Conversar con Ana' })).not.toBeNull();
    expect(home.queryByText('user')).toBeNull();
    const roomContacts = await mount('charla-room-contacts', f);
    expect(roomContacts.queryByRole('button', { name: 'Añadir a Ana' })).not.toBeNull();
    expect(roomContacts.queryByText('agent')).toBeNull();
  });

  it('name a contact in one line as it is sent, and by its id when its name shows nothing', async () => {
    const f = makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });
    f.stores.$contacts.set([
      { id: 'u1', names: 'Línea\nDos\t' },
      { id: 'u2', names: '\u200b\u2800' },
    ]);
    const home = await mount('charla-home-menu', f);
    expect(home.queryByRole('button', { name: 'Conversar con Línea Dos' })).not.toBeNull();
    expect(home.queryByRole('button', { name: 'Conversar con u2' })).not.toBeNull();
  });
});
