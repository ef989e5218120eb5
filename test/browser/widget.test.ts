import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import {
  axeViolations,
  deep,
  deepActive,
  drawnCharacters,
  listOf,
  makeContext,
  manyMessages,
  mountWidget,
  msg,
  nextFrame,
  room,
  waitFor,
} from './helpers.ts';
import { CharlaMessageEvent } from '../../src/events/index.ts';

afterEach(() => document.body.replaceChildren());

function launcherOf(widget: Element) {
  return widget.shadowRoot!.querySelector<HTMLButtonElement>('[part=launcher]')!;
}
function panelOf(widget: Element) {
  return widget.shadowRoot!.querySelector<HTMLElement>('[part=panel]')!;
}
describe('<charla-widget> focus and keyboard', () => {
  beforeEach(() => page.viewport(1280, 800));

  it('opens from the keyboard, moves focus into the panel, and Esc closes it with focus back on the launcher', async () => {
    const f = makeContext({ ui: { open: false } });
    const widget = await mountWidget(f);
    launcherOf(widget).focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => !panelOf(widget).hidden, 'panel open');
    await waitFor(() => deepActive()?.tagName === 'TEXTAREA', 'focus in composer');
    await userEvent.keyboard('{Escape}');
    await waitFor(() => panelOf(widget).hidden, 'panel closed');
    expect(f.callsOf('close')).toHaveLength(1);
    expect(deepActive()).toBe(launcherOf(widget));
  });

  it('close(true) with focus in the panel leaves focus on the disabled launcher, which Tab still reaches', async () => {
    const f = makeContext({ ui: { open: false } });
    const widget = await mountWidget(f);
    launcherOf(widget).focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => deepActive()?.tagName === 'TEXTAREA', 'focus in composer');
    f.context.actions.close(true);
    await waitFor(() => panelOf(widget).hidden, 'panel closed');
    await waitFor(() => deepActive() === launcherOf(widget), 'focus on the launcher');
    expect(launcherOf(widget).getAttribute('aria-label')).toBe('Chat no disponible');
    // Away and back with the keyboard: the disabled launcher is still a stop, and Enter opens nothing.
    const before = document.createElement('button');
    before.textContent = 'Antes';
    document.body.prepend(before);
    before.focus();
    await userEvent.tab();
    expect(deepActive()).toBe(launcherOf(widget));
    await userEvent.keyboard('{Enter}');
    expect(panelOf(widget).hidden).toBe(true);
  });

  it('reaches every control of the chat with Tab, each with a visible focus ring', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$currentMessages.set([
      msg({
        text: 'Hola https://example.com',
        options: [{ type: 'postback', title: 'Sí', payload: {}, order: 0 }],
      }),
    ]);
    const widget = await mountWidget(f);
    launcherOf(widget).focus();
    const seen: string[] = [];
    for (let i = 0; i < 14; i++) {
      await userEvent.tab();
      const el = deepActive() as HTMLElement | null;
      if (!el || el === document.body) break;
      const label = el.getAttribute('aria-label') || el.textContent?.trim() || el.tagName;
      seen.push(label);
      const style = getComputedStyle(el);
      expect(style.outlineStyle, `focus ring on ${label}`).not.toBe('none');
    }
    expect(seen).toEqual(
      expect.arrayContaining([
        'Cerrar chat',
        'Mensajes',
        'https://example.com',
        'Sí',
        'Mensaje',
        'Compartir ubicación',
      ]),
    );
  });

  it('Esc in the image viewer closes the viewer, not the panel', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$currentMessages.set([msg({ type: 'IMAGE', mediaUrl: 'http://localhost:1/none.png' })]);
    // The picture cannot load here; keep the refresh pending so the image (and its button) stays.
    f.context.actions.refreshMediaUrl = () => new Promise<string>(() => undefined);
    const widget = await mountWidget(f);
    const { rows } = listOf(widget);
    const row = await waitFor(() => rows()[0], 'row');
    const open = await waitFor(() => row.querySelector<HTMLButtonElement>('.image__open'), 'image button');
    open.click();
    const dialog = row.querySelector('dialog')!;
    expect(dialog.open).toBe(true);
    await userEvent.keyboard('{Escape}');
    await waitFor(() => !dialog.open, 'dialog closed');
    expect(panelOf(widget).hidden).toBe(false);
  });
});

describe('<charla-widget> language of its parts (WCAG 3.1.2)', () => {
  const pageLang = document.documentElement.lang;
  afterEach(() => (document.documentElement.lang = pageLang));

  it('reads in the widget’s language whatever the page’s, left to right, and follows a change', async () => {
    document.documentElement.lang = 'es';
    const f = makeContext({ ui: { open: true } });
    f.stores.$language.set('en');
    const widget = await mountWidget(f);
    const textarea = await waitFor(
      () => deep(widget, 'charla-chat', 'charla-composer', 'textarea'),
      'the composer',
    );
    for (const el of [textarea, launcherOf(widget), panelOf(widget)]) {
      expect(el.matches(':lang(en)'), el.localName).toBe(true);
      expect(el.matches(':dir(ltr)'), el.localName).toBe(true);
    }
    expect(widget.getAttribute('dir')).toBe('ltr');
    document.documentElement.lang = 'en';
    f.stores.$language.set('es');
    await widget.updateComplete;
    expect(textarea.matches(':lang(es)')).toBe(true);
    expect(launcherOf(widget).matches(':lang(es)')).toBe(true);
  });
});

describe('<charla-widget> announcements of messages off screen (WCAG 4.1.3)', () => {
  /** What the core does with a message from the service: into its room, then charla-message on the element. */
  function arrive(widget: Element, f: ReturnType<typeof makeContext>, fields: Record<string, unknown>) {
    const m = msg({
      senderId: 'u-bob',
      senderNames: 'Bob Ruiz',
      by: 'user',
      timestamp: Date.now(),
      ...fields,
    });
    if (m.roomId === f.stores.$currentRoomId.get())
      f.stores.$currentMessages.set([...f.stores.$currentMessages.get(), m]);
    widget.dispatchEvent(new CharlaMessageEvent({ roomId: m.roomId, message: m }));
  }
  /** Every text put in a live region under `root` from now on, in order, while it is in the page. */
  function heard(root: ShadowRoot, selector: string) {
    const region = root.querySelector(selector)!;
    const texts: string[] = [];
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of r.addedNodes)
          if (n instanceof HTMLElement && n.textContent && region.isConnected) texts.push(n.textContent);
    }).observe(region, { childList: true, subtree: true });
    return texts;
  }
  const quiet = () => new Promise((r) => setTimeout(r, 1500));

  it('with the panel closed: politely, once, several arriving together as one; never own messages', async () => {
    const f = makeContext({ ui: { open: false } });
    const widget = await mountWidget(f);
    // The region is there, empty, before anything is said.
    const region = widget.shadowRoot!.querySelector('[role=status]')!;
    expect(region.textContent!.trim()).toBe('');
    const texts = heard(widget.shadowRoot!, '[role=status]');
    arrive(widget, f, { roomId: 'r2' });
    await waitFor(() => texts.length === 1, 'the first announcement');
    for (const id of ['a', 'b', 'c']) arrive(widget, f, { id, roomId: 'r1', senderNames: undefined });
    await waitFor(() => texts.length === 2, 'the grouped announcement');
    arrive(widget, f, { senderId: 'me', by: 'user', senderNames: 'Me' });
    await quiet();
    f.stores.$language.set('en');
    arrive(widget, f, { roomId: 'r2' });
    await waitFor(() => texts.length === 3, 'the same news again');
    await quiet();
    expect(texts).toEqual(['Nuevo mensaje de Bob Ruiz', '3 mensajes nuevos', 'New message from Bob Ruiz']);
    expect(region.textContent!.trim()).toBe('New message from Bob Ruiz');
  });

  it('leaves the open room’s messages to its log (said once), and announces other rooms’ and the home menu’s', async () => {
    const f = makeContext({ ui: { open: true, view: 'chat' } });
    f.stores.$rooms.set([
      room(),
      room({
        id: 'r2',
        name: 'Ventas',
        bot: null,
        type: 'direct',
        membersInfo: [{ referenceId: 'bot9', names: 'Ventas' } as never],
      }),
    ]);
    const widget = await mountWidget(f);
    const { list } = listOf(widget);
    await waitFor(() => list?.shadowRoot?.querySelector('[role=log]'), 'the message list');
    const own = heard(widget.shadowRoot!, '[role=status]');
    const log = heard(list!.shadowRoot!, '[role=log]');
    arrive(widget, f, { text: 'Hola' });
    await waitFor(() => log.length === 1, 'the log’s announcement');
    await quiet();
    expect(log).toEqual(['Nuevo mensaje de Bob Ruiz: Hola']);
    expect(own).toEqual([]);
    // Another room while this one is open: the widget's region says it (a message without names: its sender as the room knows them).
    arrive(widget, f, { roomId: 'r2', senderId: 'bot9', senderNames: undefined, by: 'bot' });
    await waitFor(() => own.length === 1, 'the other room’s announcement');
    f.context.actions.showHomeMenu();
    await waitFor(() => deep(widget, 'charla-home-menu'), 'the home menu');
    arrive(widget, f, { roomId: 'r1' });
    await waitFor(() => own.length === 2, 'the announcement on the home menu');
    expect(own).toEqual(['Nuevo mensaje de Ventas', 'Nuevo mensaje de Bob Ruiz']);
    expect(log).toEqual(['Nuevo mensaje de Bob Ruiz: Hola']);
  });

  it('says nothing of a room the user cannot open from this widget (another bot’s, on a normal widget)', async () => {
    const f = makeContext({ ui: { open: false } });
    f.stores.$reachableRooms.set(new Set(['r1']));
    const widget = await mountWidget(f);
    const texts = heard(widget.shadowRoot!, '[role=status]');
    arrive(widget, f, { roomId: 'r9', senderNames: 'Otra tienda', by: 'bot' });
    await quiet();
    expect(texts).toEqual([]);
    arrive(widget, f, { roomId: 'r1' });
    await waitFor(() => texts.length === 1, 'the announcement of its own room');
    // Every room reachable (the host showed the home menu): the other bot's room is news too.
    f.stores.$reachableRooms.set('all');
    arrive(widget, f, { roomId: 'r9', senderNames: 'Otra tienda', by: 'bot' });
    await waitFor(() => texts.length === 2, 'the announcement of the other room');
    expect(texts).toEqual(['Nuevo mensaje de Bob Ruiz', 'Nuevo mensaje de Otra tienda']);
  });

  it('full screen (a modal panel, which hides what is outside it) the region is inside the panel and still says it', async () => {
    await page.viewport(320, 640);
    try {
      const f = makeContext({ ui: { open: true, view: 'home' } });
      f.stores.$rooms.set([room(), room({ id: 'r2', name: 'Ventas', bot: null, type: 'direct' })]);
      const widget = await mountWidget(f);
      const panel = widget.shadowRoot!.querySelector('[part=panel]')!;
      await waitFor(() => panel.getAttribute('aria-modal') === 'true', 'the modal panel');
      const region = await waitFor(
        () => panel.querySelector('[role=status].visually-hidden'),
        'the region in it',
      );
      expect(region.textContent!.trim()).toBe('');
      expect(widget.shadowRoot!.querySelectorAll('.visually-hidden[role=status]')).toHaveLength(1);
      const texts = heard(widget.shadowRoot!, '[part=panel] > [role=status].visually-hidden');
      arrive(widget, f, { roomId: 'r2' });
      await waitFor(() => texts.length === 1, 'the announcement inside the modal panel');
      expect(texts).toEqual(['Nuevo mensaje de Bob Ruiz']);
      // Closed, the region is outside the (hidden) panel again, and empty: nothing said twice.
      f.context.actions.close();
      await waitFor(
        () => !panel.querySelector('[role=status].visually-hidden'),
        'the region out of the panel',
      );
      const outside = widget.shadowRoot!.querySelector('[role=status].visually-hidden');
      expect(outside?.closest('[part=panel]')).toBeNull();
      expect(outside?.textContent!.trim()).toBe('');
    } finally {
      await page.viewport(1280, 800);
    }
  });
});

describe('<charla-widget> full screen on a phone: modal, Tab goes round inside', () => {
  /** A page with links before and after the widget, the panel opened from the launcher. */
  async function openOnPage(width: number) {
    await page.viewport(width, 640);
    const before = document.createElement('a');
    before.href = '#before';
    before.textContent = 'Antes';
    const after = document.createElement('a');
    after.href = '#after';
    after.textContent = 'Después';
    document.body.append(before);
    const f = makeContext({ ui: { open: false } });
    f.stores.$currentMessages.set([
      msg({ text: 'Hola', options: [{ type: 'postback', title: 'Sí', payload: {}, order: 0 }] }),
    ]);
    const widget = await mountWidget(f);
    document.body.append(after);
    launcherOf(widget).focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => deepActive()?.tagName === 'TEXTAREA', 'focus in composer');
    return { widget, panel: panelOf(widget) };
  }
  const inWidget = (widget: Element) => document.activeElement === widget;

  it('at 320 px focus never leaves the panel with Tab or Shift+Tab, and the panel is aria-modal', async () => {
    const { widget, panel } = await openOnPage(320);
    expect(panel.getAttribute('aria-modal')).toBe('true');
    const seen = new Set<Element>();
    for (let i = 0; i < 25; i++) {
      await userEvent.tab();
      expect(inWidget(widget), `Tab ${i + 1} left the widget for ${document.activeElement?.outerHTML}`).toBe(
        true,
      );
      seen.add(deepActive()!);
    }
    for (let i = 0; i < 25; i++) {
      await userEvent.tab({ shift: true });
      expect(inWidget(widget), `Shift+Tab ${i + 1} left the widget`).toBe(true);
    }
    // It went round: several controls, not one held.
    expect(seen.size).toBeGreaterThan(2);
  });

  it('at 1280 px (a floating panel beside the page) Tab goes on to the page, and the panel is not modal', async () => {
    const { widget, panel } = await openOnPage(1280);
    expect(panel.hasAttribute('aria-modal')).toBe(false);
    let left = false;
    for (let i = 0; i < 25 && !left; i++) {
      await userEvent.tab();
      left = !inWidget(widget);
    }
    expect(left).toBe(true);
  });
});

describe('<charla-widget> layout', () => {
  it('puts two widgets in the same corner side by side, each panel above its own launcher', async () => {
    await page.viewport(1280, 800);
    const a = await mountWidget(makeContext({ ui: { open: true } }));
    const b = await mountWidget(makeContext({ ui: { open: true } }));
    await nextFrame();
    const la = launcherOf(a).getBoundingClientRect();
    const lb = launcherOf(b).getBoundingClientRect();
    expect(innerWidth - la.right).toBe(24);
    expect(la.left - lb.right).toBe(12);
    expect(lb.bottom).toBe(la.bottom);
    expect(panelOf(b).getBoundingClientRect().right).toBe(lb.right);
    // In another corner there is nobody to make room for.
    b.position = 'bottom-left';
    await b.updateComplete;
    await nextFrame();
    expect(launcherOf(b).getBoundingClientRect().left).toBe(24);
  });

  it('at 320 px: an open panel is above the other widget’s launcher in the same corner', async () => {
    await page.viewport(320, 640);
    for (const open of ['first', 'second']) {
      const a = await mountWidget(makeContext({ ui: { open: open === 'first' } }));
      const b = await mountWidget(makeContext({ ui: { open: open === 'second' } }));
      const [shown, other] = open === 'first' ? [a, b] : [b, a];
      await nextFrame();
      const field = deep(shown, 'charla-chat', 'charla-composer', 'textarea')!;
      const launcher = launcherOf(other).getBoundingClientRect();
      // Every point of the other launcher, and the field's centre, belong to the open panel.
      const box = field.getBoundingClientRect();
      const points = [
        [box.left + box.width / 2, box.top + box.height / 2],
        [launcher.left + launcher.width / 2, launcher.top + launcher.height / 2],
      ] as const;
      for (const [x, y] of points)
        expect(document.elementFromPoint(x, y), `${open} open, at ${x},${y}`).toBe(shown);
      const hit = shown.shadowRoot!.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      expect(hit?.localName).toBe('charla-chat');
      document.body.replaceChildren();
    }
  });

  it('at 1280 px: a 56 px launcher 24 px from the bottom right, a 380 px panel above it', async () => {
    await page.viewport(1280, 800);
    const widget = await mountWidget(makeContext({ ui: { open: true } }));
    await nextFrame();
    const l = launcherOf(widget).getBoundingClientRect();
    const p = panelOf(widget).getBoundingClientRect();
    expect([l.width, l.height]).toEqual([56, 56]);
    expect(innerWidth - l.right).toBe(24);
    expect(innerHeight - l.bottom).toBe(24);
    expect(p.width).toBe(380);
    expect(p.height).toBeLessThanOrEqual(Math.min(640, innerHeight - 100));
    expect(p.bottom).toBeLessThanOrEqual(l.top);
    expect(getComputedStyle(panelOf(widget)).borderTopLeftRadius).toBe('16px');
  });

  it('shows the whole unread badge on the launcher, enabled and disabled, with no scrollbar in the circle', async () => {
    await page.viewport(1280, 800);
    const f = makeContext({ ui: { open: false } });
    f.stores.$launcherUnread.set(3);
    const widget = await mountWidget(f);
    for (const [unread, disabled] of [
      [3, false],
      [120, false],
      [3, true],
    ] as const) {
      f.stores.$launcherUnread.set(unread);
      f.stores.$ui.set({ ...f.stores.$ui.get(), launcherDisabled: disabled });
      await widget.updateComplete;
      await nextFrame();
      const launcher = launcherOf(widget);
      const badge = widget.shadowRoot!.querySelector<HTMLElement>('[part=badge]')!;
      const b = badge.getBoundingClientRect();
      const l = launcher.getBoundingClientRect();
      // It sticks out of the circle (top right): the edges outside the launcher's box must still be the badge.
      expect(b.top).toBeLessThan(l.top);
      expect(b.right).toBeGreaterThan(l.right);
      const cx = b.left + b.width / 2;
      const cy = b.top + b.height / 2;
      for (const [x, y] of [
        [cx, b.top + 1],
        [b.right - 1, cy],
        [cx, cy],
      ] as const) {
        expect(widget.shadowRoot!.elementFromPoint(x, y), `badge at ${x},${y} (${unread})`).toBe(badge);
      }
      // Not a scroll container (the popover's own overflow: auto drew a scrollbar in the circle at DPR 1).
      expect(getComputedStyle(launcher).overflow).toBe('visible');
    }
  });

  it('the loader’s launcher (before the full widget) has nothing to scroll either', async () => {
    await page.viewport(1280, 800);
    const { boot } = await import('../../src/widget/boot.ts');
    const script = document.createElement('script');
    script.src = `${location.origin}/charla.js`;
    script.dataset['apiKey'] = 'k';
    script.dataset['init'] = 'true';
    try {
      boot(script, () => new Promise(() => undefined), '0');
      const button = await waitFor(
        () => document.querySelector('charla-loader')?.shadowRoot?.querySelector('button'),
        'the loader’s launcher',
      );
      expect(button.matches(':popover-open')).toBe(true);
      expect(button.scrollWidth).toBe(button.clientWidth);
      expect(button.scrollHeight).toBe(button.clientHeight);
    } finally {
      delete (window as { Charla?: unknown }).Charla;
    }
  });

  it('follows theme.position', async () => {
    await page.viewport(1280, 800);
    const f = makeContext({ ui: { open: true }, config: { theme: { position: 'tl' } } });
    const widget = await mountWidget(f);
    await nextFrame();
    const l = launcherOf(widget).getBoundingClientRect();
    const p = panelOf(widget).getBoundingClientRect();
    expect([l.left, l.top]).toEqual([24, 24]);
    expect(p.left).toBe(24);
    expect(p.top).toBeGreaterThanOrEqual(l.bottom);
  });

  it('at 320 px: the panel fills the screen and inputs use 16 px text', async () => {
    await page.viewport(320, 640);
    const widget = await mountWidget(makeContext({ ui: { open: true } }));
    await nextFrame();
    const p = panelOf(widget).getBoundingClientRect();
    expect([p.left, p.top, p.width, p.height]).toEqual([0, 0, 320, 640]);
    const area = deep(widget, 'charla-chat', 'charla-composer', 'textarea') as HTMLTextAreaElement;
    expect(getComputedStyle(area).fontSize).toBe('16px');
    // Nothing sticks out sideways.
    const composer = deep(widget, 'charla-chat', 'charla-composer')!.getBoundingClientRect();
    expect(composer.right).toBeLessThanOrEqual(320);
  });

  it('the composer grows to five lines, then scrolls', async () => {
    await page.viewport(1280, 800);
    const widget = await mountWidget(makeContext({ ui: { open: true } }));
    const area = deep(widget, 'charla-chat', 'charla-composer', 'textarea') as HTMLTextAreaElement;
    const one = area.getBoundingClientRect().height;
    area.focus();
    await userEvent.keyboard('a{Shift>}{Enter}{/Shift}b{Shift>}{Enter}{/Shift}c');
    const three = area.getBoundingClientRect().height;
    expect(three).toBeGreaterThan(one + 20);
    await userEvent.keyboard('{Shift>}{Enter}{Enter}{Enter}{Enter}{Enter}{Enter}{/Shift}z');
    const many = area.getBoundingClientRect().height;
    const line = parseFloat(getComputedStyle(area).lineHeight);
    expect(many).toBeLessThanOrEqual(line * 5 + 20);
    expect(area.scrollHeight).toBeGreaterThan(area.clientHeight);
  });

  it('host page CSS does not leak in', async () => {
    await page.viewport(1280, 800);
    const style = document.createElement('style');
    style.textContent =
      'button { background: red !important; font-size: 40px !important; } * { color: lime !important; }';
    document.head.append(style);
    try {
      const widget = await mountWidget(makeContext({ ui: { open: true } }));
      const send = deep(widget, 'charla-chat', 'charla-composer', '[part=send-button]')!;
      expect(getComputedStyle(send).backgroundColor).not.toBe('rgb(255, 0, 0)');
      expect(getComputedStyle(send).fontSize).not.toBe('40px');
    } finally {
      style.remove();
    }
  });
});

describe('<charla-widget> theming from the host page', () => {
  it('exposes parts through every shadow root, and its own styles stay inside', async () => {
    await page.viewport(1280, 800);
    const style = document.createElement('style');
    style.textContent = `
      charla-widget::part(launcher) { background: rgb(1, 2, 3); }
      charla-widget::part(header) { background: rgb(4, 5, 6); }
      charla-widget::part(send-button) { background: rgb(7, 8, 9); }
      charla-widget::part(bubble) { background: rgb(10, 11, 12); }
      charla-widget { --charla-radius: 4px; }
    `;
    document.head.append(style);
    const outside = document.createElement('button');
    outside.textContent = 'Comprar';
    document.body.append(outside);
    const before = getComputedStyle(outside).backgroundColor;
    try {
      const f = makeContext({ ui: { open: true } });
      f.stores.$currentMessages.set([msg({ text: 'Hola' })]);
      const widget = await mountWidget(f);
      await waitFor(() => listOf(widget).rows().length > 0, 'rows');
      expect(getComputedStyle(launcherOf(widget)).backgroundColor).toBe('rgb(1, 2, 3)');
      expect(getComputedStyle(deep(widget, 'charla-chat', '[part=header]')!).backgroundColor).toBe(
        'rgb(4, 5, 6)',
      );
      expect(
        getComputedStyle(deep(widget, 'charla-chat', 'charla-composer', '[part=send-button]')!)
          .backgroundColor,
      ).toBe('rgb(7, 8, 9)');
      expect(
        getComputedStyle(listOf(widget).rows()[0]!.querySelector('[part=bubble]')!).backgroundColor,
      ).toBe('rgb(10, 11, 12)');
      expect(getComputedStyle(panelOf(widget)).borderTopLeftRadius).toBe('4px');
      expect(getComputedStyle(outside).backgroundColor).toBe(before);
    } finally {
      style.remove();
    }
  });
});

describe('<charla-widget> brand colour: the configuration, then the host page', () => {
  it("the configuration's colour paints the launcher; the page's own --charla-color-primary beats it", async () => {
    await page.viewport(1280, 800);
    const f = makeContext({ ui: { open: false } });
    f.stores.$config.set({ ...f.stores.$config.get()!, theme: { primaryColor: '#4f46e5' } });
    const widget = await mountWidget(f);
    const paint = () => getComputedStyle(launcherOf(widget)).backgroundColor;
    await waitFor(() => paint() === 'rgb(79, 70, 229)', 'the configured colour');
    const style = document.createElement('style');
    style.textContent =
      'charla-widget { --charla-color-primary: #006400; --charla-color-on-primary: #ffffff; }';
    document.head.append(style);
    try {
      await waitFor(() => paint() === 'rgb(0, 100, 0)', "the page's colour");
      expect(getComputedStyle(launcherOf(widget)).color).toBe('rgb(255, 255, 255)');
    } finally {
      style.remove();
    }
    await waitFor(() => paint() === 'rgb(79, 70, 229)', 'the configured colour again');
  });
});

/** The element's characters are laid out left to right in the order they are stored (one line). */
function readsInStoredOrder(el: Element): boolean {
  const xs = drawnCharacters(el).map((ch) => ch.x);
  return xs.length > 1 && xs.every((x, i) => i === 0 || x > xs[i - 1]!);
}

describe('<charla-widget> bidirectional text from the network', () => {
  beforeEach(() => page.viewport(1280, 800));

  it('names in the home menu read as stored, whatever directional controls they carry', async () => {
    const f = makeContext({ ui: { open: true, view: 'home' }, config: { properties: { type: 'group' } } });
    f.stores.$rooms.set([room({ name: '\u202EEvil' })]);
    f.stores.$contacts.set([{ id: 'u1', names: '\u202ELuis\u202C' }]);
    const widget = await mountWidget(f);
    const home = await waitFor(() => deep(widget, 'charla-home-menu'), 'home');
    const names = [...home.shadowRoot!.querySelectorAll('[part=room] .item__name, [part=contact] bdi')];
    expect(names).toHaveLength(2);
    for (const name of names) expect(readsInStoredOrder(name), name.textContent!).toBe(true);
  });

  it('a file card shows the file name as it is; sender names read as stored', async () => {
    const f = makeContext({ ui: { open: true }, config: { properties: { type: 'group' } } });
    f.stores.$rooms.set([room({ type: 'group' })]);
    f.stores.$currentMessages.set([
      msg({
        type: 'DOCUMENT',
        caption: 'invoice\u202Efdp.exe',
        mediaUrl: 'https://evil.example/\u202Efdp.exe',
        senderNames: '\u202EEvil',
      }),
      msg({ type: 'FILE', mediaUrl: 'https://evil.example/report\u202Efdp.exe', senderId: 'u2' }),
    ]);
    const widget = await mountWidget(f);
    const { rows } = listOf(widget);
    await waitFor(() => rows().length === 2, 'rows');
    const titles = rows().map((r) => r.querySelector('.card__title')!);
    expect(titles.map((t) => t.textContent)).toEqual(['invoicefdp.exe', 'reportfdp.exe']);
    for (const title of titles) expect(readsInStoredOrder(title), title.textContent!).toBe(true);
    expect(readsInStoredOrder(rows()[0]!.querySelector('.sender')!)).toBe(true);
  });

  it('each message text takes its own direction: right to left for Arabic, left to right otherwise', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$currentMessages.set([
      msg({ id: 'ar', text: 'مرحبا، كيف يمكنني مساعدتك؟' }),
      msg({ id: 'es', text: 'Hola \u202Eno' }),
      msg({ id: 'me', text: 'שלום', senderId: 'me', by: 'user' }),
    ]);
    const widget = await mountWidget(f);
    const { rows } = listOf(widget);
    await waitFor(() => rows().length === 3, 'rows');
    const direction = (id: string) =>
      getComputedStyle(
        rows()
          .find((r) => r.getAttribute('data-id') === id)!
          .querySelector('.text')!,
      ).direction;
    expect([direction('ar'), direction('es'), direction('me')]).toEqual(['rtl', 'ltr', 'rtl']);
    // The text keeps its characters.
    expect(rows()[1]!.querySelector('.text')!.textContent).toBe('Hola \u202Eno');
  });
});

/** Runs axe at the bottom, the middle and the top of the message list, so every row is checked while rendered. */
async function axeThroughList(widget: Element, count: number): Promise<string[]> {
  const { rows, scroller } = listOf(widget);
  await waitFor(() => rows().length >= 3, 'rows');
  const checked = new Set<string>();
  const found: string[] = [];
  for (const at of [1, 0.5, 0]) {
    scroller!.scrollTop = (scroller!.scrollHeight - scroller!.clientHeight) * at;
    for (let i = 0; i < 4; i++) await nextFrame();
    for (const r of rows()) checked.add(r.getAttribute('data-key') ?? '');
    found.push(...(await axeViolations()));
  }
  expect(checked.size, 'every message was rendered while axe ran').toBe(count);
  return found;
}

function everyKindOfMessage() {
  return [
    msg({ text: 'Hola, soy el asistente. Visita https://example.com', senderNames: 'Bot' }),
    msg({ text: 'Quiero ver planes', senderId: 'me', by: 'user', status: 'DELIVERED_USER' }),
    msg({ text: 'No salió', senderId: 'me', by: 'user', status: 'FAILED' }),
    msg({ text: 'Enviando', senderId: 'me', by: 'user', status: 'CREATED' }),
    msg({ type: 'IMAGE', mediaUrl: 'http://localhost:1/a.png', caption: 'Una foto' }),
    msg({ type: 'AUDIO', mediaUrl: 'http://localhost:1/a.webm' }),
    msg({ type: 'VIDEO', mediaUrl: 'http://localhost:1/v.mp4', caption: 'Un vídeo' }),
    msg({ type: 'DOCUMENT', mediaUrl: 'http://localhost:1/informe.pdf' }),
    msg({ type: 'LOCATION', lat: '40.4168', lng: '-3.7038' }),
    // The user's own cards, on the brand colour: their second line too (the default brand).
    msg({ type: 'DOCUMENT', mediaUrl: 'http://localhost:1/mio.pdf', senderId: 'me', by: 'user' }),
    msg({ type: 'LOCATION', lat: '40.4', lng: '-3.7', senderId: 'me', by: 'user' }),
    msg({ type: 'POSTBACK', text: 'Planes', payload: {} }),
    msg({ type: 'EVENT', slug: 'joined', description: 'Ana se unió a la conversación', eventPayload: {} }),
    msg({ type: 'STICKER' }),
    msg({
      text: 'Elige una opción',
      options: [
        { type: 'postback', title: 'Planes', description: 'Precios y condiciones', payload: {}, order: 0 },
        { type: 'postback', title: 'Soporte', payload: {}, order: 1 },
      ],
    }),
    msg({
      text: '',
      interactive: {
        kind: 'contacts',
        contacts: [
          {
            name: { formatted_name: 'Ana Pérez' },
            phones: [{ phone: '+34600111222' }],
            emails: [{ email: 'ana@example.com' }],
          },
        ],
      },
    }),
    msg({ text: 'Llámanos', interactive: { kind: 'voice_call', displayText: 'Llamar +34600111222' } }),
    msg({ text: 'Déjanos tus datos', interactive: { kind: 'contact_info_request' } }),
    msg({
      text: '¿Algo más?',
      QuickReplies: [
        { title: 'Sí', payload: {}, contentType: 'text' },
        { title: 'No', payload: {}, contentType: 'text' },
      ],
    }),
  ];
}

describe('axe-core, WCAG 2.2 AA', () => {
  beforeEach(() => page.viewport(1280, 900));

  it('finds nothing with the launcher alone (and its unread badge), enabled and disabled', async () => {
    const f = makeContext({ ui: { open: false } });
    f.stores.$launcherUnread.set(4);
    const widget = await mountWidget(f);
    expect(await axeViolations()).toEqual([]);
    f.stores.$launcherUnread.set(120);
    await widget.updateComplete;
    expect(await axeViolations()).toEqual([]);
    // close(true): the visible count stays in the disabled launcher's name (label-content-name-mismatch).
    f.context.actions.close(true);
    await widget.updateComplete;
    expect(launcherOf(widget).getAttribute('aria-disabled')).toBe('true');
    expect(await axeViolations()).toEqual([]);
  });

  it('finds nothing in the home menu of a group widget, loading and loaded', async () => {
    const f = makeContext({
      ui: { open: true, view: 'home' },
      config: { properties: { type: 'group', name: 'Acme' } },
    });
    f.stores.$rooms.set([
      room({ name: 'Soporte', lastMessage: msg({ text: 'Hola' }) }),
      room({ id: 'r2', name: 'Ventas' }),
    ]);
    f.stores.$unreadByRoom.set({ r1: 3 });
    f.stores.$contactsLoading.set(true);
    const widget = await mountWidget(f);
    await waitFor(() => deep(widget, 'charla-home-menu'), 'home');
    expect(await axeViolations()).toEqual([]);
    f.stores.$contacts.set([
      { id: 'u1', names: 'Ana Pérez' },
      { id: 'u2', names: 'Luis' },
    ]);
    f.stores.$contactsLoading.set(false);
    await nextFrame();
    expect(await axeViolations()).toEqual([]);
  });

  for (const width of [320, 1280]) {
    it(`finds nothing in a home menu listing unnamed rooms at ${width} px`, async () => {
      await page.viewport(width, 800);
      const f = makeContext({ ui: { open: true, view: 'home' }, config: { properties: { type: 'group' } } });
      const member = (id: string, names: string | null) => ({
        id: `m-${id}`,
        names,
        referenceId: id,
        roomId: 'g1',
        botId: null,
        companyId: 'c',
        socketId: null,
        createdAt: '',
        memberType: 'Client' as const,
      });
      // A direct room made a group by addMember (no name), and one whose members have no names.
      f.stores.$rooms.set([
        room({
          id: 'g1',
          type: 'group',
          name: '',
          membersInfo: [member('me', 'Me'), member('b', 'Bob'), member('c', 'Carol')],
        }),
        room({ id: 'g2', type: 'group', name: '', membersInfo: [] }),
      ]);
      const widget = await mountWidget(f);
      const home = await waitFor(() => deep(widget, 'charla-home-menu'), 'home');
      expect(await axeViolations()).toEqual([]);
      const names = [...home.shadowRoot!.querySelectorAll('[part=room] .item__name bdi')].map(
        (n) => n.textContent,
      );
      expect(names).toEqual(['Bob, Carol', 'Conversación de grupo']);
    });
  }

  it('finds nothing when the widget could not start (with and without a retry)', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$config.set(null);
    f.stores.$connection.set('error');
    f.stores.$lastError.set({
      message: 'The service could not be reached.',
      code: 'E0001',
      key: 'NETWORK_ERROR',
      transient: true,
    });
    const widget = await mountWidget(f);
    await waitFor(() => widget.shadowRoot!.querySelector('[part=unavailable] .pill-button'), 'retry');
    expect(await axeViolations()).toEqual([]);
    f.stores.$lastError.set({
      message: 'Origin not allowed',
      code: 'E0431',
      key: 'ORIGIN_NOT_ALLOWED',
      transient: false,
    });
    await nextFrame();
    expect(await axeViolations()).toEqual([]);
  });

  it('finds nothing in the room contacts view', async () => {
    const f = makeContext({
      ui: { open: true, view: 'room-contacts' },
      config: { properties: { type: 'group' } },
    });
    f.stores.$roomContacts.set([{ id: 'u1', names: 'Ana' }]);
    f.stores.$roomContactsLoading.set(true);
    const widget = await mountWidget(f);
    await waitFor(() => deep(widget, 'charla-room-contacts'), 'room contacts');
    expect(await axeViolations()).toEqual([]);
  });

  it('finds nothing in the chat with every kind of message, a notice, an upload and an error', async () => {
    const f = makeContext({
      ui: { open: true },
      config: { properties: { type: 'group' }, theme: { status: true } },
    });
    f.stores.$currentMessages.set(everyKindOfMessage());
    f.stores.$uploads.set([{ id: 'u', name: 'foto.png', progress: 0.5 }]);
    f.stores.$lastError.set({ message: 'No se pudo conectar' });
    const widget = await mountWidget(f);
    expect(await axeThroughList(widget, everyKindOfMessage().length)).toEqual([]);
  });

  it('finds nothing in the chat with a custom light brand colour, in English', async () => {
    const f = makeContext({ ui: { open: true }, config: { theme: { primaryColor: '#ffd400' } } });
    f.stores.$language.set('en');
    f.stores.$currentMessages.set(everyKindOfMessage());
    const widget = await mountWidget(f);
    expect(await axeThroughList(widget, everyKindOfMessage().length)).toEqual([]);
  });

  it('finds nothing in a long virtualized chat, scrolled to the middle', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$currentMessages.set(manyMessages(2000));
    const widget = await mountWidget(f);
    const { rows, scroller } = listOf(widget);
    await waitFor(() => rows().length > 0, 'rows');
    scroller!.scrollTop = scroller!.scrollHeight / 2;
    await nextFrame();
    await nextFrame();
    expect(await axeViolations()).toEqual([]);
  });

  it('finds nothing at 320 px', async () => {
    await page.viewport(320, 640);
    const f = makeContext({ ui: { open: true } });
    f.stores.$currentMessages.set(everyKindOfMessage());
    const widget = await mountWidget(f);
    expect(await axeThroughList(widget, everyKindOfMessage().length)).toEqual([]);
  });
});
