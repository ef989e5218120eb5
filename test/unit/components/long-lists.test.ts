/**
 * Long lists of the home menu and the room contacts: a page of 50 at a time with a "show more"
 * button, and a search field past ten contacts (5,000 contacts rendered whole took the panel
 * 2.5 s to open in Chromium, with 125,000 elements).
 */
import { afterEach, describe, expect, it } from 'vitest';
import '../../../src/define.ts';
import { makeContext, room, settle } from './fixture.ts';
import { mountElement as mount } from './mount.ts';

afterEach(() => document.body.replaceChildren());

const people = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `u${i}`, names: `Persona ${i}` }));
const group = () => makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });

// Role queries over a hundred buttons take happy-dom seconds on a busy machine (6.8 s once in CI).
describe('<charla-home-menu> with many contacts and rooms', { timeout: 30_000 }, () => {
  it('shows 50 contacts, then 50 more each time "show more" is chosen, saying how many are left', async () => {
    const f = group();
    f.stores.$contacts.set(people(120));
    const { el, q } = await mount('charla-home-menu', f);
    expect(q.getAllByRole('button', { name: /^Conversar con/ })).toHaveLength(50);
    const more = q.getByRole('button', { name: 'Mostrar más (70 restantes)' });
    more.focus();
    more.click();
    await settle(el);
    expect(q.getAllByRole('button', { name: /^Conversar con/ })).toHaveLength(100);
    // Focus goes on to the first contact the page added, not past the list.
    expect(el.shadowRoot!.activeElement?.textContent).toContain('Persona 50');
    q.getByRole('button', { name: 'Mostrar más (20 restantes)' }).click();
    await settle(el);
    expect(q.getAllByRole('button', { name: /^Conversar con/ })).toHaveLength(120);
    expect(q.queryByRole('button', { name: /^Mostrar más/ })).toBeNull();
  });

  it('pages the rooms the same way', async () => {
    const f = group();
    f.stores.$rooms.set(Array.from({ length: 51 }, (_, i) => room({ id: `r${i}`, name: `Sala ${i}` })));
    const { el, q } = await mount('charla-home-menu', f);
    expect(el.shadowRoot!.querySelectorAll('[part=room]')).toHaveLength(50);
    q.getByRole('button', { name: 'Mostrar más (1 restante)' }).click();
    await settle(el);
    expect(el.shadowRoot!.querySelectorAll('[part=room]')).toHaveLength(51);
  });

  it('shows the current room however far down the list it is (Back puts focus on it)', async () => {
    const f = group();
    f.stores.$rooms.set(Array.from({ length: 80 }, (_, i) => room({ id: `r${i}`, name: `Sala ${i}` })));
    f.stores.$currentRoomId.set('r72');
    const { el, q } = await mount('charla-home-menu', f);
    expect(el.shadowRoot!.querySelectorAll('[part=room]')).toHaveLength(73);
    el.focus();
    expect(el.shadowRoot!.activeElement?.textContent).toContain('Sala 72');
    expect(q.getByRole('button', { name: 'Mostrar más (7 restantes)' })).toBeTruthy();
  });

  it('finds contacts by name in any case and without accents, and says how many it found', async () => {
    const f = group();
    f.stores.$contacts.set([...people(60), { id: 'a', names: 'Ángela Núñez' }, { id: 'b', names: 'ANGEL' }]);
    const { el, q } = await mount('charla-home-menu', f);
    const search = q.getByRole('searchbox', { name: 'Buscar contactos' }) as HTMLInputElement;
    search.value = 'angel';
    search.dispatchEvent(new Event('input'));
    await settle(el);
    expect(q.getAllByRole('button', { name: /^Conversar con/ }).map((b) => b.textContent?.trim())).toEqual([
      expect.stringContaining('Ángela Núñez'),
      expect.stringContaining('ANGEL'),
    ]);
    expect(q.getByRole('status').textContent).toContain('2 contactos');
    search.value = 'nadie así';
    search.dispatchEvent(new Event('input'));
    await settle(el);
    expect(q.queryAllByRole('button', { name: /^Conversar con/ })).toHaveLength(0);
    // Said on screen, and to a screen reader by the status line.
    expect([...el.shadowRoot!.querySelectorAll('.empty')].map((e) => e.textContent)).toContain(
      'Ningún contacto coincide con «nadie así».',
    );
    expect(q.getByRole('status').textContent!.trim()).toBe('Ningún contacto coincide con «nadie así».');
    // Emptied, the whole list is back, from its first page.
    search.value = '';
    search.dispatchEvent(new Event('input'));
    await settle(el);
    expect(q.getAllByRole('button', { name: /^Conversar con/ })).toHaveLength(50);
  });

  it('Esc in the search field empties it first (the panel keeps it), and on an empty field is the panel’s', async () => {
    const f = group();
    f.stores.$contacts.set([...people(60), { id: 'a', names: 'Ángela Núñez' }]);
    const { el, q } = await mount('charla-home-menu', f);
    const search = q.getByRole('searchbox', { name: 'Buscar contactos' }) as HTMLInputElement;
    search.value = 'angela';
    search.dispatchEvent(new Event('input'));
    await settle(el);
    expect(q.getAllByRole('button', { name: /^Conversar con/ })).toHaveLength(1);
    const esc = () => {
      const event = new KeyboardEvent('keydown', {
        key: 'Escape',
        bubbles: true,
        composed: true,
        cancelable: true,
      });
      search.dispatchEvent(event);
      return event.defaultPrevented;
    };
    // Taken by the field (the panel closes only on an Esc nobody took: widget.ts).
    expect(esc()).toBe(true);
    await settle(el);
    expect(search.value).toBe('');
    expect(q.getAllByRole('button', { name: /^Conversar con/ })).toHaveLength(50);
    expect(esc()).toBe(false);
  });

  it('has no search field for ten contacts or fewer', async () => {
    const f = group();
    f.stores.$contacts.set(people(10));
    const { q } = await mount('charla-home-menu', f);
    expect(q.queryByRole('searchbox')).toBeNull();
    expect(q.getAllByRole('button', { name: /^Conversar con/ })).toHaveLength(10);
  });
});

describe('<charla-room-contacts> with many contacts', { timeout: 30_000 }, () => {
  it('pages and searches the contacts that can be added', async () => {
    const f = makeContext({ ui: { view: 'room-contacts' } });
    f.stores.$roomContacts.set([...people(75), { id: 'z', names: 'Zoë Ortiz' }]);
    const { el, q, callsOf } = await mount('charla-room-contacts', f);
    expect(q.getAllByRole('button', { name: /^Añadir a / })).toHaveLength(50);
    q.getByRole('button', { name: 'Mostrar más (26 restantes)' }).click();
    await settle(el);
    expect(q.getAllByRole('button', { name: /^Añadir a / })).toHaveLength(76);
    const search = q.getByRole('searchbox', { name: 'Buscar contactos' }) as HTMLInputElement;
    search.value = 'zoe';
    search.dispatchEvent(new Event('input'));
    await settle(el);
    q.getByRole('button', { name: 'Añadir a Zoë Ortiz' }).click();
    expect(callsOf('addMember')[0]!.args).toEqual([{ id: 'z', names: 'Zoë Ortiz' }, 'r1']);
  });
});
