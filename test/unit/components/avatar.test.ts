/** Avatars: a picture that fails to load shows initials, as an unsafe address does, and is not asked for again. */
import { afterEach, describe, expect, it } from 'vitest';
import '../../../src/define.ts';
import { makeContext, settle } from './fixture.ts';
import { mountElement } from './mount.ts';

afterEach(() => document.body.replaceChildren());

const mount = async (tag: string, f: ReturnType<typeof makeContext>) => (await mountElement(tag, f)).el;

const avatarOf = (root: ShadowRoot, name: string) =>
  [...root.querySelectorAll('button')].find((b) => b.textContent?.includes(name))?.querySelector('.avatar');

describe('avatar', () => {
  it('initials are letters or digits: punctuation and markup in a name are passed over', async () => {
    const { initials } = await import('../../../src/components/shared/format.ts');
    expect(initials('Beto <img src=x onerror=alert(1)>')).toBe('BI');
    expect(initials('  «Ana»  (Gil) ')).toBe('AG');
    expect(initials('¡Óscar!')).toBe('Ó');
    expect(initials('李 小龙')).toBe('李小');
    expect(initials('-- ** !!')).toBe('?');
    expect(initials('')).toBe('?');
    // Words' letters before numbers: "Contacto 36" read "C3".
    expect(initials('Contacto 36')).toBe('C');
    expect(initials('Sala 7 Norte')).toBe('SN');
    expect(initials('36 12')).toBe('31');
    // A letter keeps its combining marks (decomposed accents, as some keyboards and systems write them).
    expect(initials('N\u0300gozi A\u0301lvarez')).toBe('\u01F8\u00C1');
    expect(initials('e\u0301rica')).toBe('\u00C9');
    // ...but not a virama, which would join the two initials into one conjunct.
    expect(initials('\u0915\u094D\u0937\u0924\u094D\u0930\u093F\u092F \u0926\u0947\u0935')).toBe(
      '\u0915\u0926\u0947',
    );
  });

  it('an https picture that fails to load shows the initials, and no <img> asks for it again', async () => {
    const f = makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });
    const broken = 'https://evil.example/av.png';
    f.stores.$contacts.set([
      { id: 'd', names: 'Dani Ruiz', avatar: broken },
      { id: 'e', names: 'Eva', avatar: 'https://cdn.example/eva.png' },
    ]);
    const home = await mount('charla-home-menu', f);
    const root = home.shadowRoot as ShadowRoot;
    const img = avatarOf(root, 'Dani')?.querySelector('img');
    expect(img?.getAttribute('src')).toBe(broken);
    img?.dispatchEvent(new Event('error'));
    await settle(home);
    expect(avatarOf(root, 'Dani')?.querySelector('img')).toBeNull();
    expect(avatarOf(root, 'Dani')?.textContent?.trim()).toBe('DR');
    // Another contact's picture is not affected.
    expect(avatarOf(root, 'Eva')?.querySelector('img')?.getAttribute('src')).toBe(
      'https://cdn.example/eva.png',
    );
    // Rendered again (new contacts, another list): still initials, no request for the broken address.
    f.stores.$contacts.set([...f.stores.$contacts.get(), { id: 'f', names: 'Flor' }]);
    f.stores.$roomContacts.set([{ id: 'd', names: 'Dani Ruiz', avatar: broken }]);
    await settle(home);
    const roomContacts = await mount('charla-room-contacts', f);
    for (const root of [home.shadowRoot, roomContacts.shadowRoot])
      expect(root?.querySelector(`img[src="${broken}"]`)).toBeNull();
    expect(avatarOf(roomContacts.shadowRoot as ShadowRoot, 'Dani')?.textContent?.trim()).toBe('DR');
  });
});
