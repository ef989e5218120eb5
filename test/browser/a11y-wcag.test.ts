/**
 * What axe does not check, measured in Chromium: reflow at 320 × 256 (a landscape phone, or 1280 px
 * at 400 %), target sizes (2.5.8), the contrast of focus rings and field edges against what is
 * behind them (1.4.11) in the light and the dark scheme, text spacing (1.4.12) and status
 * messages (4.1.3).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cdp, page, userEvent } from 'vitest/browser';
import {
  axeViolations,
  deep,
  deepActive,
  listOf,
  makeContext,
  mountWidget,
  msg,
  nextFrame,
  room,
  waitFor,
} from './helpers.ts';

afterEach(() => document.body.replaceChildren());

/** Every shadow root under the document, the document first. */
function roots(): (Document | ShadowRoot)[] {
  const out: (Document | ShadowRoot)[] = [document];
  const walk = (r: ParentNode) => {
    for (const el of r.querySelectorAll('*'))
      if (el.shadowRoot) (out.push(el.shadowRoot), walk(el.shadowRoot));
  };
  walk(document);
  return out;
}
function all<T extends Element = HTMLElement>(selector: string): T[] {
  return roots().flatMap((r) => [...r.querySelectorAll<T>(selector)]);
}
function parentOf(el: Element): Element | null {
  return el.parentElement ?? ((el.getRootNode() as ShadowRoot).host || null);
}
function describeEl(el: Element): string {
  const text = (el.getAttribute('aria-label') || el.textContent || '').trim().replace(/\s+/g, ' ');
  return `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${text.slice(0, 30)}"`;
}

type Rgb = [number, number, number];
function rgba(c: string): [number, number, number, number] {
  const m = c.match(/[\d.]+/g)!.map(Number);
  return [m[0]!, m[1]!, m[2]!, m[3] ?? 1];
}
/** The colour painted behind an element: its ancestors' backgrounds, across shadow roots, composed. */
function backdrop(el: Element | null): Rgb {
  const layers: number[][] = [];
  for (; el; el = parentOf(el)) {
    const c = rgba(getComputedStyle(el).backgroundColor);
    if (c[3] > 0) layers.push(c);
    if (c[3] === 1) break;
  }
  let out: Rgb = [255, 255, 255];
  for (const l of layers.reverse()) out = out.map((v, i) => v * (1 - l[3]!) + l[i]! * l[3]!) as Rgb;
  return out;
}
function luminance(rgb: readonly number[]): number {
  const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * f(rgb[0]!) + 0.7152 * f(rgb[1]!) + 0.0722 * f(rgb[2]!);
}
function contrast(a: readonly number[], b: readonly number[]): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

async function scheme(value: 'light' | 'dark'): Promise<void> {
  await cdp().send('Emulation.setEmulatedMedia', {
    features: [{ name: 'prefers-color-scheme', value }],
  });
}

/** Messages with a control of each kind, the user's own among them. */
function controls() {
  return [
    msg({ text: 'Visita https://example.com', senderNames: 'Bot' }),
    msg({ text: 'Mira https://example.org', senderId: 'me', by: 'user', status: 'DELIVERED_USER' }),
    msg({ text: 'No salió', senderId: 'me', by: 'user', status: 'FAILED' }),
    msg({ type: 'DOCUMENT', mediaUrl: 'http://localhost:1/mio.pdf', senderId: 'me', by: 'user' }),
    msg({ type: 'LOCATION', lat: '40.4168', lng: '-3.7038', senderId: 'me', by: 'user' }),
    msg({
      text: 'Elige',
      options: [{ type: 'postback', title: 'Planes', description: 'Precios', payload: {}, order: 0 }],
    }),
    msg({ text: 'Déjanos tus datos', interactive: { kind: 'contact_info_request' } }),
    msg({ text: '¿Algo más?', QuickReplies: [{ title: 'Sí', payload: {}, contentType: 'text' }] }),
  ];
}

/** A group chat with a long room name, the status line, an alert, an upload and a composer notice. */
async function busyChat(messages = controls()) {
  const f = makeContext({
    ui: { open: true },
    config: {
      properties: { type: 'group', name: 'Acme' },
      theme: { status: true, colorScheme: 'auto' } as never,
    },
  });
  f.stores.$rooms.set([room({ name: 'Soporte técnico de Acme Corporation Internacional de Madrid' })]);
  f.stores.$currentMessages.set(messages);
  f.stores.$uploads.set([{ id: 'u', name: 'foto.png', progress: 0.5 }]);
  f.stores.$lastError.set({ message: 'No se pudo conectar' });
  const widget = await mountWidget(f);
  // A failed upload's notice, with its retry (the composer's own state, as its upload sets it).
  const composer = deep(widget, 'charla-chat', 'charla-composer') as unknown as {
    notice: string;
    retry: () => void;
    updateComplete: Promise<unknown>;
  };
  composer.notice = 'No se pudo subir foto.png';
  composer.retry = () => undefined;
  await composer.updateComplete;
  return { f, widget, composer };
}

/** Tabs from the panel's first control to its last, handing each focused element to `check`. */
async function tabThrough(widget: Element, check: (el: HTMLElement) => void): Promise<string[]> {
  const panel = widget.shadowRoot!.querySelector('[part=panel]')!;
  const seen: string[] = [];
  const met = new Set<Element>();
  (deep(widget, 'charla-chat', '[part=back-button]') as HTMLElement).focus();
  for (let i = 0; i < 60; i++) {
    const el = deepActive() as HTMLElement | null;
    if (!el || !inside(panel, el)) break;
    if (met.has(el)) break;
    met.add(el);
    seen.push(describeEl(el));
    check(el);
    await userEvent.tab();
    for (let k = 0; k < 3; k++) await nextFrame();
  }
  return seen;
}
/** Whether `el` is in `container`, through nested shadow roots. */
function inside(container: Element, el: Element): boolean {
  for (let node: Element | null = el; node; node = parentOf(node)) if (node === container) return true;
  return false;
}

describe('1.4.10 reflow at 320 × 256 (a landscape phone; 1280 px at 400 %)', () => {
  beforeEach(() => page.viewport(320, 256));

  it('the message list leaves the composer uncovered, with an alert, an upload and a notice on screen', async () => {
    const { widget } = await busyChat();
    const composer = deep(widget, 'charla-chat', 'charla-composer')!;
    const { scroller } = listOf(widget);
    for (const control of composer.shadowRoot!.querySelectorAll<HTMLElement>('textarea, button')) {
      const r = control.getBoundingClientRect();
      const hit = composer.shadowRoot!.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      expect(hit && control.contains(hit), `${describeEl(control)} is not under the message list`).toBe(true);
      expect(r.bottom).toBeLessThanOrEqual(256);
    }
    // The list keeps to its own box (the virtualizer's inline 150 px minimum made it overflow).
    expect(scroller!.getBoundingClientRect().bottom - 1).toBeLessThanOrEqual(
      composer.getBoundingClientRect().top,
    );
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(320);
  });
});

describe('1.4.10 reflow at 320 × 256 with everything the composer can say at once', () => {
  beforeEach(() => page.viewport(320, 256));

  it('keeps the bar whole on screen: the notices, the upload and the counter scroll in their own area above it', async () => {
    const { widget, composer } = await busyChat();
    const root = (composer as unknown as Element).shadowRoot!;
    const field = root.querySelector('textarea')!;
    // Past the limit: the over-the-limit notice and the counter join the failed upload's notice.
    field.value = 'x '.repeat(2100);
    field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    await composer.updateComplete;
    for (let k = 0; k < 3; k++) await nextFrame();
    expect(root.querySelector('#too-long')).not.toBeNull();
    const bar = root.querySelector<HTMLElement>('[part=composer]')!;
    for (const control of bar.querySelectorAll<HTMLElement>('textarea, button:not([hidden])')) {
      const r = control.getBoundingClientRect();
      expect(r.top, describeEl(control)).toBeGreaterThanOrEqual(0);
      expect(r.bottom, describeEl(control)).toBeLessThanOrEqual(256);
      const hit = root.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      expect(hit && control.contains(hit), `${describeEl(control)} is covered`).toBe(true);
    }
    const notes = root.querySelector<HTMLElement>('.notes')!;
    const header = deep(widget, 'charla-chat', '[part=header]')!.getBoundingClientRect();
    expect(notes.getBoundingClientRect().top).toBeGreaterThanOrEqual(header.bottom - 1);
    // What does not fit is reached by scrolling that area, not cut off: by a keyboard too, the
    // area taking focus itself (its buttons alone would leave the text past them out of reach).
    expect(notes.scrollTop).toBe(0);
    expect([notes.tabIndex, notes.getAttribute('role'), notes.getAttribute('aria-label')]).toEqual([
      0,
      'region',
      'Avisos',
    ]);
    root.querySelector<HTMLElement>('.notice .retry')!.focus();
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    expect(root.activeElement).toBe(notes);
    await userEvent.keyboard('{End}');
    await waitFor(() => notes.scrollTop > 0 || undefined);
    notes.scrollTop = notes.scrollHeight;
    const count = root.querySelector<HTMLElement>('#count')!.getBoundingClientRect();
    expect(count.bottom).toBeLessThanOrEqual(bar.getBoundingClientRect().top + 1);
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(320);
    // Once it all fits again (the text shortened, the notice dismissed), no stop of its own.
    notes.blur();
    field.value = 'hola';
    field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    composer.notice = '';
    await composer.updateComplete;
    await waitFor(() => notes.scrollHeight <= notes.clientHeight + 1 || undefined);
    await waitFor(() => !notes.hasAttribute('tabindex') || undefined);
    expect(notes.hasAttribute('role')).toBe(false);
  });
});

describe('1.4.10 reflow: a file named by one long word', () => {
  it('wraps in the composer’s notice and upload, its buttons inside the panel, at 320 and 1280 px', async () => {
    const name = `${'y'.repeat(240)}.png`;
    for (const [w, h] of [
      [320, 640],
      [1280, 900],
    ] as const) {
      await page.viewport(w, h);
      const { f, widget, composer } = await busyChat();
      f.stores.$uploads.set([{ id: 'u', name, progress: 0.5 }]);
      composer.notice = `No se pudo enviar «${name}».`;
      await composer.updateComplete;
      for (let k = 0; k < 3; k++) await nextFrame();
      const root = (composer as unknown as Element).shadowRoot!;
      const panel = widget.shadowRoot!.querySelector('[part=panel]')!.getBoundingClientRect();
      for (const box of root.querySelectorAll<HTMLElement>('.notice, .upload'))
        expect(box.scrollWidth, `${w} px: ${box.className}`).toBeLessThanOrEqual(box.clientWidth);
      for (const button of root.querySelectorAll<HTMLElement>('.notice button, .upload button')) {
        const r = button.getBoundingClientRect();
        expect(r.left, `${w} px: ${describeEl(button)}`).toBeGreaterThanOrEqual(panel.left);
        expect(r.right, `${w} px: ${describeEl(button)}`).toBeLessThanOrEqual(panel.right);
      }
      expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(w);
      widget.remove();
    }
  });
});

describe('2.5.8 target size: at least 24 × 24 CSS px', () => {
  it('every control of the chat, with a long room name, at 320 and 1280 px', async () => {
    for (const [w, h] of [
      [320, 640],
      [1280, 900],
    ] as const) {
      await page.viewport(w, h);
      const { widget } = await busyChat();
      const { rows } = listOf(widget);
      await waitFor(() => rows().length === controls().length, 'every row');
      const small = all('button, input, textarea, [role=button]')
        .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
        .map((el) => [el, el.getBoundingClientRect()] as const)
        .filter(([, r]) => r.width < 24 || r.height < 24)
        .map(([el, r]) => `${describeEl(el)} ${r.width.toFixed(1)} × ${r.height.toFixed(1)} at ${w} px`);
      expect(small).toEqual([]);
      document.body.replaceChildren();
    }
  });

  it('the header buttons of the home menu and the room contacts, with a long title', async () => {
    await page.viewport(320, 640);
    const long = 'Panadería y pastelería artesanal La Espiga de Malasaña';
    for (const view of ['home', 'room-contacts'] as const) {
      const f = makeContext({
        ui: { open: true, view },
        config: { properties: { type: 'group', name: long } },
      });
      f.stores.$language.set('en');
      const widget = await mountWidget(f);
      const el = await waitFor(
        () => deep(widget, view === 'home' ? 'charla-home-menu' : 'charla-room-contacts'),
        view,
      );
      for (const button of el.shadowRoot!.querySelectorAll('.header button')) {
        const r = button.getBoundingClientRect();
        expect(Math.min(r.width, r.height), `${describeEl(button)} in ${view}`).toBeGreaterThanOrEqual(24);
      }
      document.body.replaceChildren();
    }
  });
});

describe('1.4.11 non-text contrast, light and dark', () => {
  afterEach(() => scheme('light'));

  for (const mode of ['light', 'dark'] as const) {
    it(`every focus ring in the chat is at least 3:1 against what is behind it (${mode})`, async () => {
      await scheme(mode);
      await page.viewport(1280, 900);
      const { widget } = await busyChat();
      const low: string[] = [];
      const seen = await tabThrough(widget, (el) => {
        const style = getComputedStyle(el);
        if (style.outlineStyle === 'none') return void low.push(`${describeEl(el)}: no outline`);
        // An inset ring is drawn over the element's own background; an outset one over its parent's.
        const behind = backdrop(parseFloat(style.outlineOffset) < 0 ? el : parentOf(el));
        const ratio = contrast(rgba(style.outlineColor), behind);
        if (ratio < 3) low.push(`${describeEl(el)}: ${ratio.toFixed(2)}:1`);
      });
      // The rings of the user's own bubbles and of the pink alert and notice are among those checked.
      expect(seen.join('\n')).toMatch(/https:\/\/example\.org/);
      expect(seen.join('\n')).toMatch(/Abrir en el mapa/);
      expect(seen.filter((s) => s.includes('Cerrar aviso'))).toHaveLength(2);
      expect(low).toEqual([]);
    });

    it(`the launcher's focus ring, drawn over the host page, stands 3:1 against any page colour (${mode})`, async () => {
      await scheme(mode);
      await page.viewport(1280, 900);
      const widget = await mountWidget();
      const launcher = widget.shadowRoot!.querySelector<HTMLElement>('.launcher')!;
      launcher.blur();
      await userEvent.keyboard('{Tab}');
      expect(deepActive()).toBe(launcher);
      // The shadow's change is a transition: read the style it ends at.
      await Promise.all(launcher.getAnimations().map((a) => a.finished));
      const style = getComputedStyle(launcher);
      expect(style.outlineStyle).toBe('solid');
      // The rings: the outline, and a box-shadow of no offset or blur (a spread ring) under it.
      const rings = [rgba(style.outlineColor)];
      for (const m of style.boxShadow.matchAll(/(rgba?\([^)]*\)) 0px 0px 0px (\d+)px/g))
        if (Number(m[2]) >= 2 && Number(m[2]) >= parseFloat(style.outlineOffset)) rings.push(rgba(m[1]!));
      const low: string[] = [];
      // Pages of every lightness: a brand blue like the ring's own, a dark footer, grey, white, black.
      for (const page of ['#1d4ed8', '#111827', '#777777', '#ffffff', '#000000', '#2563eb', '#f5f5f5']) {
        const bg = [1, 3, 5].map((i) => parseInt(page.slice(i, i + 2), 16));
        const best = Math.max(...rings.map((r) => contrast(r, bg)));
        if (best < 3) low.push(`${page}: ${best.toFixed(2)}:1`);
      }
      expect(rings.length).toBeGreaterThanOrEqual(2);
      expect(low).toEqual([]);
    });

    it(`the edges of the text fields are at least 3:1 against the surface (${mode})`, async () => {
      await scheme(mode);
      await page.viewport(1280, 900);
      const { widget } = await busyChat();
      await waitFor(() => all('input[name]').length === 3, 'the contact form');
      const fields = all<HTMLElement>('textarea, input[name]');
      expect(fields.length).toBe(4);
      for (const field of fields) {
        const edge = rgba(getComputedStyle(field).borderTopColor);
        const ratio = contrast(edge, backdrop(parentOf(field)));
        expect(ratio, `${describeEl(field)} edge`).toBeGreaterThanOrEqual(3);
      }
      expect(widget).toBeTruthy();
    });
  }
});

describe('1.4.12 text spacing (line height 1.5, paragraphs 2 em, letters 0.12 em, words 0.16 em)', () => {
  function spaceText(): void {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(`* { line-height: 1.5 !important; letter-spacing: 0.12em !important;
      word-spacing: 0.16em !important } p { margin-bottom: 2em !important }`);
    for (const r of roots()) r.adoptedStyleSheets = [...r.adoptedStyleSheets, sheet];
  }
  /** Text cut off by a box that hides its overflow (an ellipsis after one or two lines of a name is a choice, allowed). */
  function cut(): string[] {
    const out: string[] = [];
    for (const el of all('*')) {
      const style = getComputedStyle(el);
      if (el.closest('.visually-hidden') || el.getClientRects().length === 0 || el.matches('svg *')) continue;
      const hides = (o: string) => o === 'hidden' || o === 'clip';
      if (hides(style.overflowX) && style.textOverflow !== 'ellipsis' && el.scrollWidth > el.clientWidth + 1)
        out.push(`${describeEl(el)} wider than its box`);
      const clamped = style.getPropertyValue('-webkit-line-clamp') !== 'none';
      if (
        hides(style.overflowY) &&
        !clamped &&
        !el.matches('[part=panel]') &&
        el.scrollHeight > el.clientHeight + 1
      )
        out.push(`${describeEl(el)} taller than its box`);
    }
    return out;
  }

  for (const [w, h] of [
    [320, 256],
    [1280, 900],
  ] as const) {
    it(`nothing is cut off in the chat, home menu and launcher at ${w} × ${h}`, async () => {
      await page.viewport(w, h);
      const { widget } = await busyChat([
        ...controls(),
        msg({
          type: 'EVENT',
          slug: 'joined',
          description: 'Ana se unió a la conversación',
          eventPayload: {},
        }),
        msg({ type: 'DOCUMENT', mediaUrl: 'http://localhost:1/informe-trimestral-de-resultados.pdf' }),
      ]);
      spaceText();
      const { scroller } = listOf(widget);
      const found = new Set<string>();
      for (const at of [0, 0.25, 0.5, 0.75, 1]) {
        scroller!.scrollTop = (scroller!.scrollHeight - scroller!.clientHeight) * at;
        for (let i = 0; i < 4; i++) await nextFrame();
        for (const c of cut()) found.add(c);
      }
      document.body.replaceChildren();
      const f = makeContext({ ui: { open: true, view: 'home' }, config: { properties: { type: 'group' } } });
      f.stores.$rooms.set([room({ name: 'Soporte', lastMessage: msg({ text: 'Hola' }) })]);
      f.stores.$unreadByRoom.set({ r1: 128 });
      f.stores.$launcherUnread.set(128);
      f.stores.$contacts.set([{ id: 'u1', names: 'Ana Pérez' }]);
      await mountWidget(f);
      spaceText();
      await nextFrame();
      for (const c of cut()) found.add(c);
      expect([...found]).toEqual([]);
    });
  }

  // People's names on a phone and a group of two on a desktop; past two lines a name ends in "…",
  // and on a screen under 320 px tall (1280 × 900 at 400 %) past one, to leave room for messages.
  for (const [w, h, names] of [
    [320, 568, ['Carol Díaz', 'Bob Ruiz']],
    [1280, 900, ['Carol Díaz, Bob Ruiz', 'Ana Pérez, Luis Gómez']],
  ] as const) {
    it(`the chat header shows a room's name whole on two lines, at ${w} × ${h}`, async () => {
      await page.viewport(w, h);
      for (const name of names) {
        const f = makeContext({ ui: { open: true }, config: { properties: { type: 'group' } } });
        f.stores.$rooms.set([room({ name })]);
        const widget = await mountWidget(f);
        spaceText();
        await nextFrame();
        const title = deep(widget, 'charla-chat', 'h2') as HTMLElement;
        expect(title.textContent).toBe(name);
        // Nothing of it hidden: not wider or taller than its box, and inside the panel.
        expect(title.scrollWidth, name).toBeLessThanOrEqual(title.clientWidth + 1);
        expect(title.scrollHeight, name).toBeLessThanOrEqual(title.clientHeight + 1);
        const panel = deep(widget, '[part=panel]')!.getBoundingClientRect();
        expect(title.getBoundingClientRect().right, name).toBeLessThanOrEqual(panel.right + 0.5);
        document.body.replaceChildren();
      }
    });
  }
});

describe('4.1.3 status messages', () => {
  it('an upload is announced: its status region is there, empty, before the upload starts', async () => {
    await page.viewport(1280, 900);
    const f = makeContext({ ui: { open: true } });
    const widget = await mountWidget(f);
    const composer = deep(widget, 'charla-chat', 'charla-composer')!;
    const region = composer.shadowRoot!.querySelector('[role=status]');
    expect(region, 'a status region before any upload').not.toBeNull();
    expect(region!.textContent!.trim()).toBe('');
    f.stores.$uploads.set([{ id: 'u', name: 'foto.png', progress: 0 }]);
    await nextFrame();
    expect(composer.shadowRoot!.querySelector('[role=status]')).toBe(region);
    expect(region!.textContent!.trim()).toBe('Subiendo foto.png');
  });
});

describe('4.1.3 messages that cannot go (theme.status off)', () => {
  for (const mode of ['light', 'dark'] as const) {
    it(`the notice's region is there, empty and flat, before it speaks; its words stand 4.5:1 and pass axe (${mode})`, async () => {
      await page.viewport(1280, 900);
      await scheme(mode);
      try {
        const f = makeContext({ ui: { open: true }, config: { theme: { colorScheme: 'auto' } as never } });
        f.stores.$rooms.set([room()]);
        f.stores.$currentMessages.set([msg({ text: 'Hola', senderId: 'me', by: 'user', status: 'CREATED' })]);
        f.stores.$connection.set('connected');
        const widget = await mountWidget(f);
        const chat = deep(widget, 'charla-chat')!;
        const region = chat.shadowRoot!.querySelector<HTMLElement>('[part=connection-notice]')!;
        expect(region.getAttribute('role')).toBe('status');
        expect(region.textContent).toBe('');
        expect(region.getBoundingClientRect().height, 'empty, it takes no room').toBe(0);
        f.stores.$serviceBusy.set(true);
        await waitFor(() => region.textContent !== '' || null, 'the notice after 2 s', 4_000);
        expect(chat.shadowRoot!.querySelector('[part=connection-notice]')).toBe(region);
        expect(region.textContent).toBe(
          'El servicio no responde ahora. Tus mensajes se enviarán en cuanto vuelva.',
        );
        expect(region.getBoundingClientRect().height).toBeGreaterThan(16);
        const ratio = contrast(rgba(getComputedStyle(region).color).slice(0, 3), backdrop(region));
        expect(ratio).toBeGreaterThanOrEqual(4.5);
        expect(await axeViolations()).toEqual([]);
      } finally {
        await scheme('light');
      }
    });
  }
});

describe('4.1.3 the connection state (theme.status)', () => {
  it('is read when it changes: the line under the room name is a status region that stays', async () => {
    await page.viewport(1280, 900);
    const f = makeContext({ ui: { open: true }, config: { theme: { status: true } } });
    f.stores.$connection.set('connected');
    const widget = await mountWidget(f);
    const chat = deep(widget, 'charla-chat')!;
    const line = chat.shadowRoot!.querySelector('[role=status]');
    expect(line?.textContent).toBe('En línea');
    f.stores.$connection.set('offline');
    await nextFrame();
    expect(chat.shadowRoot!.querySelector('[role=status]')).toBe(line);
    expect(line!.textContent).toBe('Sin conexión');
  });
});
