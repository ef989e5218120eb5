import { afterEach, describe, expect, it, vi } from 'vitest';
import { within } from '@testing-library/dom';
import '../../../src/define.ts';
import type { CharlaWidget } from '../../../src/components/widget/widget.ts';
import { makeContext, room, settle } from './fixture.ts';
import type { LastError } from '../../../src/widget/context.ts';

async function mount(options: Parameters<typeof makeContext>[0] = {}) {
  const f = makeContext(options);
  f.stores.$rooms.set([room()]);
  const el = document.createElement('charla-widget') as CharlaWidget;
  el.context = f.context;
  document.body.append(el);
  await settle(el);
  return { el, ...f, root: () => within(el.shadowRoot as unknown as HTMLElement) };
}

afterEach(() => document.body.replaceChildren());

describe('<charla-widget>', () => {
  it('shows a launcher that opens the panel', async () => {
    const { el, root, callsOf } = await mount({ ui: { open: false } });
    const launcher = root().getByRole('button', { name: 'Abrir chat' });
    expect(el.shadowRoot!.querySelector('.panel')!.hasAttribute('hidden')).toBe(true);
    launcher.click();
    await settle(el);
    expect(callsOf('open')).toHaveLength(1);
    expect(el.shadowRoot!.querySelector('.panel')!.hasAttribute('hidden')).toBe(false);
    expect(el.shadowRoot!.querySelector('charla-chat')).not.toBeNull();
  });

  it('shows the unread count on the launcher badge and in its name', async () => {
    const { el, root, stores } = await mount({ ui: { open: false } });
    stores.$launcherUnread.set(3);
    await settle(el);
    expect(root().getByRole('button', { name: 'Abrir chat, 3 mensajes sin leer' })).toBeTruthy();
    expect(el.shadowRoot!.querySelector('[part=badge]')!.textContent!.trim()).toBe('3');
    stores.$launcherUnread.set(250);
    await settle(el);
    expect(el.shadowRoot!.querySelector('[part=badge]')!.textContent!.trim()).toBe('99+');
    // What the badge shows, so the name holds the visible text (WCAG 2.5.3).
    expect(root().getByRole('button', { name: 'Abrir chat, 99+ mensajes sin leer' })).toBeTruthy();
  });

  it('says one unread message in the singular and more in the plural, in Spanish and English', async () => {
    const { el, root, stores } = await mount({ ui: { open: false } });
    const names: string[] = [];
    for (const language of ['es', 'en'] as const) {
      stores.$language.set(language);
      for (const n of [1, 2]) {
        stores.$launcherUnread.set(n);
        await settle(el);
        names.push(root().getByRole('button').getAttribute('aria-label')!);
      }
    }
    expect(names).toEqual([
      'Abrir chat, 1 mensaje sin leer',
      'Abrir chat, 2 mensajes sin leer',
      'Open chat, 1 unread message',
      'Open chat, 2 unread messages',
    ]);
  });

  it('keeps the unread count the badge shows in the name of the disabled launcher', async () => {
    const { el, root, context, stores } = await mount({ ui: { open: false } });
    stores.$launcherUnread.set(2);
    context.actions.close(true);
    await settle(el);
    const launcher = root().getByRole('button', { name: 'Chat no disponible, 2 mensajes sin leer' });
    expect(launcher.getAttribute('aria-disabled')).toBe('true');
    expect(launcher.querySelector('[part=badge]')!.textContent!.trim()).toBe('2');
    stores.$launcherUnread.set(1);
    stores.$language.set('en');
    await settle(el);
    expect(root().getByRole('button', { name: 'Chat unavailable, 1 unread message' })).toBeTruthy();
  });

  it('says when a visitor held by the new-visitor allowance can start, as a time of day, in Spanish and English', async () => {
    const { el, stores } = await mount({ ui: { open: true } });
    stores.$config.set(null);
    stores.$connection.set('error');
    const at = new Date(2026, 11, 7, 21, 15);
    const held = (retryAt: number) =>
      stores.$lastError.set({
        message: 'Too many requests.',
        key: 'RATE_LIMITED',
        code: 'E0429',
        transient: true,
        retryAt,
      });
    vi.useFakeTimers({ now: new Date(2026, 11, 7, 20, 55), toFake: ['Date'] });
    try {
      held(at.getTime());
      await settle(el);
      const words = () => el.shadowRoot!.querySelector('[part=unavailable] p')!.textContent!.trim();
      expect(words()).toBe(
        'Hay muchas conversaciones nuevas desde tu red. Podrás empezar a chatear a las 21:15.',
      );
      stores.$language.set('en');
      await settle(el);
      expect(words()).toBe(
        'Many new chats are starting from your network. You can start chatting at 9:15 PM.',
      );
      // Under a minute away: no time of day that is already now.
      held(Date.now() + 20_000);
      await settle(el);
      expect(words()).toBe(
        'Many new chats are starting from your network. You can start chatting in a few seconds.',
      );
      // Another passing failure, with no wait named, is said as before.
      stores.$lastError.set({ message: 'Timed out', key: 'TIMEOUT', transient: true });
      await settle(el);
      expect(words()).toBe('We could not connect to the chat.');
    } finally {
      vi.useRealTimers();
    }
  });

  it('disables the launcher after close(true) and enables it again', async () => {
    const { el, root, context } = await mount({ ui: { open: true } });
    context.actions.close(true);
    await settle(el);
    const launcher = root().getByRole('button', { name: 'Chat no disponible' }) as HTMLButtonElement;
    // aria-disabled, not disabled: it keeps focus and its place in the Tab order, and a click does nothing.
    expect(launcher.getAttribute('aria-disabled')).toBe('true');
    expect(launcher.disabled).toBe(false);
    // Said on screen too, as the pointer rests on it (it was for screen readers only).
    expect(launcher.title).toBe('Chat no disponible');
    launcher.click();
    await settle(el);
    expect(context.stores.$ui.get().open).toBe(false);
    context.actions.open();
    await settle(el);
    expect(root().getByRole('button', { name: 'Cerrar chat' }).hasAttribute('aria-disabled')).toBe(false);
    expect(root().getByRole('button', { name: 'Cerrar chat' }).hasAttribute('title')).toBe(false);
  });

  it('closes on Escape and returns focus to the launcher', async () => {
    const { el, callsOf } = await mount({ ui: { open: true } });
    const panel = el.shadowRoot!.querySelector('.panel')!;
    panel.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await settle(el);
    expect(callsOf('close')).toHaveLength(1);
    expect(panel.hasAttribute('hidden')).toBe(true);
    expect(el.shadowRoot!.activeElement).toBe(el.shadowRoot!.querySelector('.launcher'));
  });

  it('keeps the keys typed in its fields to itself (a page shortcut saw this element, not a text field); keys on its buttons reach the page', async () => {
    const { el, callsOf } = await mount({ ui: { open: true } });
    const seen: string[] = [];
    const page = (e: Event) => seen.push(`${e.type} ${(e as KeyboardEvent).key}`);
    for (const type of ['keydown', 'keypress', 'keyup']) document.addEventListener(type, page);
    const key = (at: Element, type: string, k: string) =>
      at.dispatchEvent(new KeyboardEvent(type, { key: k, bubbles: true, composed: true }));
    // The widget's own Esc (it closes the panel) is not also the page's (a dialog the widget sits in).
    key(el.shadowRoot!.querySelector('.panel')!, 'keydown', 'Escape');
    await settle(el);
    expect(callsOf('close')).toHaveLength(1);
    // A text field of the panel (the composer's, in its own shadow root, is one like it).
    const field = el.shadowRoot!.querySelector('.panel')!.appendChild(document.createElement('textarea'));
    for (const type of ['keydown', 'keypress', 'keyup']) key(field, type, ' ');
    key(el.shadowRoot!.querySelector('.launcher')!, 'keydown', 'k');
    // Keys on the page itself reach its listeners as before.
    key(document.body, 'keyup', 'k');
    for (const type of ['keydown', 'keypress', 'keyup']) document.removeEventListener(type, page);
    expect(seen).toEqual(['keydown k', 'keyup k']);
  });

  it('draws nothing without a widget behind it (a copy of the element cloned with a page), and such copies go when the widget joins them', async () => {
    const { el } = await mount({ ui: { open: false } });
    const copy = el.cloneNode(true) as CharlaWidget;
    document.body.append(copy);
    await settle(copy);
    expect(copy.shadowRoot!.querySelectorAll('button, .panel')).toHaveLength(0);
    expect(el.shadowRoot!.querySelectorAll('.launcher')).toHaveLength(1);
    // The widget put back (a router's history restored the copy and the page appends the widget):
    // the copy goes, so the page's querySelector finds the widget.
    document.body.append(el);
    expect([...document.querySelectorAll('charla-widget')]).toEqual([el]);
  });

  it('closes on Escape on the launcher too, when focus left the open panel for it; closed, Escape there does nothing', async () => {
    const { el, callsOf } = await mount({ ui: { open: true } });
    const launcher = el.shadowRoot!.querySelector('.launcher') as HTMLButtonElement;
    launcher.focus();
    launcher.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await settle(el);
    expect(callsOf('close')).toHaveLength(1);
    expect(el.shadowRoot!.querySelector('.panel')!.hasAttribute('hidden')).toBe(true);
    expect(el.shadowRoot!.activeElement).toBe(launcher);
    launcher.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await settle(el);
    expect(callsOf('close')).toHaveLength(1);
  });

  it('switches views with the ui store', async () => {
    const { el, stores } = await mount({
      ui: { open: true, view: 'home' },
      config: { properties: { type: 'group' } },
    });
    expect(el.shadowRoot!.querySelector('charla-home-menu')).not.toBeNull();
    stores.$ui.set({ ...stores.$ui.get(), view: 'room-contacts' });
    await settle(el);
    expect(el.shadowRoot!.querySelector('charla-room-contacts')).not.toBeNull();
    stores.$ui.set({ ...stores.$ui.get(), view: 'chat' });
    await settle(el);
    expect(el.shadowRoot!.querySelector('charla-chat')).not.toBeNull();
  });

  it("keeps a theme's Google font in the page head while a widget uses it, and takes it away with the last", async () => {
    const font = { name: 'Roboto Slab', googlefont: true };
    const links = () => document.head.querySelectorAll('link[data-charla-font="Roboto Slab"]');
    const one = await mount();
    const two = await mount();
    for (const w of [one, two]) {
      w.stores.$config.set({ ...w.stores.$config.get()!, theme: { font } });
      await settle(w.el);
    }
    expect(links()).toHaveLength(1);
    one.el.remove();
    expect(links()).toHaveLength(1);
    // A theme without it lets it go too.
    two.stores.$config.set({ ...two.stores.$config.get()!, theme: { font: { name: 'Inter' } } });
    await settle(two.el);
    expect(links()).toHaveLength(0);
    two.stores.$config.set({ ...two.stores.$config.get()!, theme: { font } });
    await settle(two.el);
    expect(links()).toHaveLength(1);
    two.el.remove();
    expect(links()).toHaveLength(0);
  });

  it('places itself by theme.position, codes included', async () => {
    const { el, stores } = await mount();
    expect(el.getAttribute('position')).toBe('bottom-right');
    for (const [value, expected] of [
      ['tl', 'top-left'],
      ['bottom-left', 'bottom-left'],
      ['tr', 'top-right'],
      ['nonsense', 'bottom-right'],
    ]) {
      stores.$config.set({ ...stores.$config.get()!, theme: { position: value } });
      await settle(el);
      expect(el.getAttribute('position')).toBe(expected);
    }
  });

  it('sets brand colour and font from the theme as custom properties of :host, ignoring unsafe values', async () => {
    const { el, stores } = await mount();
    const root = el.shadowRoot!;
    /** The theme's :host rule: the last stylesheet of the shadow root (the element's own style stays the page's). */
    const themed = (name: string) => {
      const sheet = root.adoptedStyleSheets[root.adoptedStyleSheets.length - 1];
      const rule = sheet?.cssRules[0] as CSSStyleRule | undefined;
      return rule?.selectorText === ':host' ? rule.style.getPropertyValue(name).trim() : '';
    };
    stores.$config.set({
      ...stores.$config.get()!,
      theme: { primaryColor: '#ffcc00', font: { name: 'Inter' } },
    });
    await settle(el);
    expect(themed('--charla-color-primary')).toBe('#ffcc00');
    // A light brand colour gets dark text for contrast.
    expect(themed('--charla-color-on-primary')).toBe('#000000');
    expect(themed('--charla-font-family')).toContain("'Inter'");
    expect(el.getAttribute('style') ?? '').not.toContain('--charla-color-primary');
    stores.$config.set({
      ...stores.$config.get()!,
      theme: { primaryColor: 'red; background: url(https://evil.example/x)', font: { name: "x'); @import" } },
    });
    await settle(el);
    expect(themed('--charla-color-primary')).toBe('');
    expect(themed('--charla-font-family')).toBe('');
  });

  it('speaks English when the language store says so', async () => {
    const { el, root, stores } = await mount({ ui: { open: false } });
    stores.$language.set('en');
    await settle(el);
    expect(root().getByRole('button', { name: 'Open chat' })).toBeTruthy();
  });

  /** The widget's session failed with `error`: no configuration, connection 'error'. */
  function couldNotStart(stores: Awaited<ReturnType<typeof mount>>['stores'], error: LastError) {
    stores.$config.set(null);
    stores.$connection.set('error');
    stores.$lastError.set(error);
  }

  it('says the chat is not available on this site when the service refused the origin, with no retry', async () => {
    const { el, root, stores } = await mount({ ui: { open: true } });
    couldNotStart(stores, {
      message: 'Origin https://x.example is not allowed.',
      code: 'E0431',
      key: 'ORIGIN_NOT_ALLOWED',
      transient: false,
    });
    await settle(el);
    expect(root().getByRole('alert').textContent).toContain('Este chat no está disponible en este sitio.');
    expect(root().queryByRole('button', { name: 'Reintentar' })).toBeNull();
    expect(el.shadowRoot!.querySelector('charla-chat, charla-home-menu')).toBeNull();
  });

  it('says the chat is not available (not blaming the site) when the key or the identity was refused', async () => {
    const { el, root, stores } = await mount({ ui: { open: true } });
    couldNotStart(stores, {
      message: 'userHash does not match userId.',
      code: 'E0401',
      key: 'UNAUTHORIZED',
      transient: false,
    });
    await settle(el);
    expect(root().getByRole('alert').textContent).toContain('Este chat no está disponible ahora.');
    expect(root().queryByRole('button', { name: 'Reintentar' })).toBeNull();
  });

  it('offers a retry when the widget could not reach the service, and shows the view once it starts', async () => {
    const { el, root, stores, callsOf } = await mount({ ui: { open: true } });
    const config = stores.$config.get();
    couldNotStart(stores, {
      message: 'The service could not be reached.',
      code: 'E0001',
      key: 'NETWORK_ERROR',
      transient: true,
    });
    await settle(el);
    expect(root().getByRole('alert').textContent).toContain('No pudimos conectar con el chat.');
    root().getByRole('button', { name: 'Reintentar' }).click();
    expect(callsOf('reconnect')).toHaveLength(1);
    stores.$config.set(config);
    stores.$connection.set('connected');
    await settle(el);
    expect(root().queryByRole('alert')).toBeNull();
    expect(el.shadowRoot!.querySelector('charla-chat')).not.toBeNull();
  });
});
