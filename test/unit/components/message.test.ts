import { afterEach, describe, expect, it, vi } from 'vitest';
import { within } from '@testing-library/dom';
import '../../../src/define.ts';
import type { CharlaMessage } from '../../../src/components/message/message.ts';
import type { Message, PostbackMessage } from '../../../types/index.ts';
import { makeContext, msg, settle } from './fixture.ts';

async function show(
  message: Message,
  props: Partial<Pick<CharlaMessage, 'own' | 'latest' | 'showSender' | 'language' | 'answer'>> = {},
  f = makeContext(),
) {
  const el = document.createElement('charla-message') as CharlaMessage;
  el.message = message;
  el.actions = f.context.actions;
  Object.assign(el, { latest: true, ...props });
  document.body.append(el);
  await settle(el);
  // Rows render into their own light DOM (the list's shadow root holds them and their styles).
  const shadow = el;
  return { el, shadow, q: within(el), ...f };
}

afterEach(() => document.body.replaceChildren());

describe('<charla-message> TEXT', () => {
  it('shows one to three emoji alone large, and any other text as usual', async () => {
    const large = ['👍', '😀🎉👍', ' 👨‍👩‍👧 ', '🇵🇪', '👍🏽', '❤️'];
    const usual = ['😀😀😀😀', 'hola 👍', '123', '#', ':)'];
    for (const text of [...large, ...usual]) {
      const { shadow } = await show(msg({ text }));
      const p = shadow.querySelector('.text')!;
      expect(p.classList.contains('text--emoji'), JSON.stringify(text)).toBe(large.includes(text));
      expect(p.textContent).toBe(text);
      document.body.replaceChildren();
    }
  });

  it('shows text as text and makes only http(s) addresses links', async () => {
    const { shadow } = await show(
      msg({ text: 'Mira https://example.com/a?b=1, o javascript:alert(1) y <b>hola</b> www.x.com' }),
    );
    const p = shadow.querySelector('.text')!;
    expect(p.textContent).toBe(
      'Mira https://example.com/a?b=1, o javascript:alert(1) y <b>hola</b> www.x.com',
    );
    const links = [...shadow.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.com/a?b=1']);
    expect(links[0]!.getAttribute('rel')).toContain('noopener');
    expect(shadow.querySelector('b')).toBeNull();
  });

  it('shows a date separator above the first message of a day', async () => {
    const { q, el, shadow } = await show(msg({ text: 'hola' }));
    expect(q.queryByRole('separator')).toBeNull();
    el.dayLabel = 'Ayer';
    await settle(el);
    expect(q.getByRole('separator').textContent).toBe('Ayer');
    expect(shadow.firstElementChild!.classList.contains('day')).toBe(true);
  });

  it('shows the sender name only when asked (group rooms) and never for own messages', async () => {
    const a = await show(msg({ senderNames: 'Ana' }), { showSender: true });
    expect(a.q.getByText('Ana')).toBeTruthy();
    document.body.replaceChildren();
    const b = await show(msg({ senderNames: 'Ana' }), { showSender: false });
    expect(b.q.queryByText('Ana')).toBeNull();
  });
});

describe('<charla-message> status marks', () => {
  for (const [status, label] of [
    ['CREATED', 'Enviando'],
    ['DELIVERED', 'Enviado'],
    ['DELIVERED_CHANNEL', 'Entregado'],
    ['DELIVERED_USER', 'Leído'],
    ['FAILED', 'No enviado'],
  ] as const) {
    it(`marks an own ${status} message as "${label}"`, async () => {
      const { q } = await show(msg({ status, senderId: 'me', by: 'user' }), { own: true });
      expect(q.getByRole('img', { name: label })).toBeTruthy();
    });
  }

  it('offers retry on a failed own message and calls retry with its id', async () => {
    const m = msg({ status: 'FAILED', senderId: 'me', by: 'user', text: 'Hola' });
    const { q, callsOf } = await show(m, { own: true });
    q.getByRole('button', { name: 'Reintentar: Hola' }).click();
    expect(callsOf('retry')[0]!.args).toEqual([String(m.id)]);
  });

  it('names each Retry by what it sends again (several failures are told apart), its visible word first', async () => {
    const long = 'Quiero cambiar la dirección de entrega del pedido 4411 a la calle Mayor';
    const { q } = await show(msg({ status: 'FAILED', senderId: 'me', by: 'user', text: long }), {
      own: true,
    });
    const retry = q.getByRole('button', { name: /^Reintentar: / });
    expect(retry.getAttribute('aria-label')).toBe('Reintentar: Quiero cambiar la dirección de entrega…');
    expect(retry.textContent?.trim()).toBe('Reintentar');
    const image = await show(
      msg({
        status: 'FAILED',
        senderId: 'me',
        by: 'user',
        type: 'IMAGE',
        mediaUrl: 'https://x.example/a.png',
      }),
      { own: true },
    );
    expect(image.q.getByRole('button', { name: 'Reintentar: Imagen' })).toBeTruthy();
  });

  it('shows no status mark on other people’s messages', async () => {
    const { shadow } = await show(msg({ status: 'DELIVERED' }));
    expect(shadow.querySelector('.status')).toBeNull();
  });
});

describe('<charla-message> media', () => {
  it('IMAGE: picture with caption that opens larger', async () => {
    const { shadow, q } = await show(
      msg({ type: 'IMAGE', mediaUrl: 'https://cdn.example.com/a.png', caption: 'Foto' }),
    );
    const img = shadow.querySelector('img')!;
    expect(img.getAttribute('src')).toBe('https://cdn.example.com/a.png');
    expect(img.getAttribute('alt')).toBe('Foto');
    expect(q.getByText('Foto')).toBeTruthy();
    const dialog = shadow.querySelector('dialog')!;
    q.getByRole('button', { name: 'Ver imagen en grande: Foto' }).click();
    expect(dialog.open).toBe(true);
  });

  it('IMAGE: its names (alt, the viewer) lose the caption’s direction controls, as its button’s does', async () => {
    const { shadow } = await show(
      msg({ type: 'IMAGE', mediaUrl: 'https://cdn.example.com/a.png', caption: 'Pan \u202Egnp.exe' }),
    );
    const names = [...shadow.querySelectorAll('img')].map((img) => img.getAttribute('alt'));
    expect(names).toEqual(['Pan gnp.exe', 'Pan gnp.exe']);
    expect(shadow.querySelector('dialog')!.getAttribute('aria-label')).toBe('Pan gnp.exe');
    expect(shadow.querySelector('.image__open')!.getAttribute('aria-label')).toBe(
      'Ver imagen en grande: Pan gnp.exe',
    );
  });

  it('IMAGE: an unsafe address never becomes a src', async () => {
    for (const url of [
      'javascript:alert(1)',
      'http://evil.example/a.png',
      'data:image/png;base64,AAAA',
      ' https://x.com/a',
    ]) {
      const { shadow } = await show(msg({ type: 'IMAGE', mediaUrl: url }));
      expect(shadow.querySelector('img')).toBeNull();
      expect(shadow.textContent).toContain('Archivo no disponible');
      document.body.replaceChildren();
    }
  });

  it('IMAGE: http is allowed on localhost', async () => {
    const { shadow } = await show(msg({ type: 'IMAGE', mediaUrl: 'http://localhost:3000/media/a.png' }));
    expect(shadow.querySelector('img')!.getAttribute('src')).toBe('http://localhost:3000/media/a.png');
  });

  it('asks for a fresh signed address when media fails to load, and swaps it in', async () => {
    const { el, shadow, callsOf } = await show(
      msg({ type: 'IMAGE', mediaUrl: 'https://cdn.example.com/expired/a.png' }),
    );
    shadow.querySelector('img')!.dispatchEvent(new Event('error'));
    await settle(el);
    expect(callsOf('refreshMediaUrl')[0]!.args).toEqual(['https://cdn.example.com/expired/a.png']);
    expect(shadow.querySelector('img')!.getAttribute('src')).toBe('https://cdn.example.com/fresh/a.png');
    // A second failure does not loop: the media is marked unavailable.
    shadow.querySelector('img')!.dispatchEvent(new Event('error'));
    await settle(el);
    expect(callsOf('refreshMediaUrl')).toHaveLength(1);
    expect(shadow.textContent).toContain('Archivo no disponible');
  });

  it('AUDIO: a player', async () => {
    const { shadow } = await show(msg({ type: 'AUDIO', mediaUrl: 'https://cdn.example.com/a.webm' }));
    const audio = shadow.querySelector('audio')!;
    expect(audio.hasAttribute('controls')).toBe(true);
    expect(audio.getAttribute('src')).toBe('https://cdn.example.com/a.webm');
  });

  it('VIDEO: a player with caption; a failing video asks for a fresh address', async () => {
    const { el, shadow, q, callsOf } = await show(
      msg({ type: 'VIDEO', mediaUrl: 'https://cdn.example.com/expired/v.mp4', caption: 'Tutorial' }),
    );
    const video = shadow.querySelector('video')!;
    expect(video.hasAttribute('controls')).toBe(true);
    expect(q.getByText('Tutorial')).toBeTruthy();
    video.dispatchEvent(new Event('error'));
    await settle(el);
    expect(callsOf('refreshMediaUrl')).toHaveLength(1);
    expect(shadow.querySelector('video')!.getAttribute('src')).toBe('https://cdn.example.com/fresh/v.mp4');
  });

  it('DOCUMENT and FILE: a file card with a download link', async () => {
    for (const type of ['DOCUMENT', 'FILE']) {
      const { q } = await show(msg({ type, mediaUrl: 'https://cdn.example.com/docs/informe%20final.pdf' }));
      expect(q.getByText('informe final.pdf')).toBeTruthy();
      const link = q.getByRole('link', { name: 'Descargar: informe final.pdf' });
      expect(link.getAttribute('href')).toBe('https://cdn.example.com/docs/informe%20final.pdf');
      expect(link.hasAttribute('download')).toBe(true);
      document.body.replaceChildren();
    }
  });

  it('DOCUMENT: a download link whose signed address has expired is followed with a fresh one; one that cannot be signed again says so', async () => {
    const expired = 'https://cdn.example.com/docs/a.pdf?kid=k1&exp=1000&sig=old';
    const future = Math.floor(Date.now() / 1000) + 3600;
    // The third: a fresh address the visitor's clock (an hour ahead) takes for expired too.
    const skewed = 'https://cdn.example.com/docs/a.pdf?kid=k1&exp=2000&sig=newer';
    for (const fresh of [
      `https://cdn.example.com/docs/a.pdf?kid=k1&exp=${future}&sig=new`,
      expired,
      skewed,
    ]) {
      const f = makeContext();
      const refreshed: string[] = [];
      f.context.actions.refreshMediaUrl = async (url: string) => {
        refreshed.push(url);
        return fresh;
      };
      const { el, q, shadow } = await show(msg({ type: 'DOCUMENT', mediaUrl: expired }), {}, f);
      const link = q.getByRole('link', { name: 'Descargar: a.pdf' });
      // What the browser would do with each click: follow it unless something prevented it.
      const followed: string[] = [];
      link.addEventListener('click', (e) => {
        if (!e.defaultPrevented) followed.push(link.getAttribute('href')!);
        e.preventDefault();
      });
      link.click();
      await new Promise((r) => setTimeout(r, 0));
      await settle(el);
      await new Promise((r) => setTimeout(r, 0));
      expect(refreshed).toEqual([expired]);
      if (fresh === expired) {
        expect(followed).toEqual([]);
        expect(shadow.querySelector('a')).toBeNull();
        expect(shadow.querySelector('.card__secondary')!.textContent).toBe('Archivo no disponible');
      } else {
        expect(followed).toEqual([fresh]);
        expect(link.getAttribute('href')).toBe(fresh);
      }
      document.body.replaceChildren();
    }
  });

  it('DOCUMENT: an expired address is signed again as the pointer comes over the link or it takes focus, so the click goes at once', async () => {
    const expired = 'https://cdn.example.com/docs/b.pdf?kid=k1&exp=1000&sig=old';
    const fresh = `https://cdn.example.com/docs/b.pdf?kid=k1&exp=${Math.floor(Date.now() / 1000) + 3600}&sig=new`;
    for (const arrive of ['pointerenter', 'focus']) {
      const f = makeContext();
      const refreshed: string[] = [];
      f.context.actions.refreshMediaUrl = async (url: string) => (refreshed.push(url), fresh);
      const { el, q } = await show(msg({ type: 'DOCUMENT', mediaUrl: expired }), {}, f);
      const link = q.getByRole('link', { name: 'Descargar: b.pdf' });
      link.dispatchEvent(new Event(arrive));
      await new Promise((r) => setTimeout(r, 0));
      await settle(el);
      expect(refreshed, arrive).toEqual([expired]);
      expect(link.getAttribute('href'), arrive).toBe(fresh);
      const prevented: boolean[] = [];
      link.addEventListener('click', (e) => (prevented.push(e.defaultPrevented), e.preventDefault()));
      link.click();
      expect(prevented, arrive).toEqual([false]);
      expect(refreshed, arrive).toHaveLength(1);
      document.body.replaceChildren();
    }
  });

  it('DOCUMENT with an unsafe address: a card without a link', async () => {
    const { shadow } = await show(
      msg({ type: 'DOCUMENT', mediaUrl: 'javascript:alert(1)', caption: 'x.pdf' }),
    );
    expect(shadow.querySelector('a')).toBeNull();
    expect(shadow.textContent).toContain('x.pdf');
    // Said, not left looking like a file that opens.
    expect(shadow.querySelector('.card__secondary')!.textContent).toBe('Archivo no disponible');
  });
});

describe('<charla-message> other types', () => {
  it('LOCATION: coordinates and a map link', async () => {
    const { q } = await show(msg({ type: 'LOCATION', lat: '40.4168', lng: '-3.7038' }));
    expect(q.getByText('40.4168, -3.7038')).toBeTruthy();
    const link = q.getByRole('link', { name: 'Abrir en el mapa' });
    expect(link.getAttribute('href')).toMatch(
      /^https:\/\/www\.openstreetmap\.org\/\?mlat=40\.4168&mlon=-3\.7038/,
    );
  });

  it('LOCATION: small coordinates are shown and linked as decimals, never 1e-7', async () => {
    const { q } = await show(msg({ type: 'LOCATION', lat: '0.0000001', lng: '-0.00000000015' }));
    expect(q.getByText('0.0000001, -0.00000000015')).toBeTruthy();
    expect(q.getByRole('link', { name: 'Abrir en el mapa' }).getAttribute('href')).toBe(
      'https://www.openstreetmap.org/?mlat=0.0000001&mlon=-0.00000000015#map=16/0.0000001/-0.00000000015',
    );
  });

  it('LOCATION: bad coordinates make no link', async () => {
    const { shadow } = await show(msg({ type: 'LOCATION', lat: '"><img>', lng: '999' }));
    expect(shadow.querySelector('a')).toBeNull();
    expect(shadow.querySelector('img')).toBeNull();
  });

  it('POSTBACK: the chosen text', async () => {
    const { q } = await show(msg({ type: 'POSTBACK', text: 'Ver planes', payload: { id: 1 } }));
    expect(q.getByText('Ver planes')).toBeTruthy();
  });

  it('EVENT: a system line with its description', async () => {
    const { shadow } = await show(
      msg({ type: 'EVENT', slug: 'joined', description: 'Ana se unió', eventPayload: {} }),
    );
    expect(shadow.querySelector('.system')!.textContent!.trim()).toBe('Ana se unió');
    expect(shadow.querySelector('.bubble')).toBeNull();
  });

  it('an unknown type: a neutral placeholder', async () => {
    const { shadow } = await show(msg({ type: 'STICKER' }));
    expect(shadow.textContent).toContain('Este mensaje no se puede mostrar.');
  });

  it('a contact card whose contents are not what they should be: the placeholder in its bubble, not a broken row', async () => {
    const { shadow } = await show(
      msg({ text: 'Contacto', interactive: { kind: 'contacts', contacts: [{ name: 7, phones: 'x' }] } }),
    );
    expect(shadow.querySelector('.bubble')?.textContent).toContain('Este mensaje no se puede mostrar.');
  });

  it('an own failed message whose contents throw keeps its time, status and a Retry with the placeholder', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const m = msg({
        status: 'FAILED',
        senderId: 'me',
        by: 'user',
        text: 'x',
        interactive: { kind: 'contacts', contacts: [{ phones: 'x' }] },
      });
      const { shadow, q } = await show(m, { own: true });
      expect(shadow.querySelector('.bubble')?.textContent).toContain('Este mensaje no se puede mostrar.');
      expect(q.getByRole('img', { name: 'No enviado' })).toBeTruthy();
      expect(q.getByRole('button', { name: /^Reintentar/ })).toBeTruthy();
      expect(String(warn.mock.calls[0]?.[0])).toBe('Charla: a message could not be shown');
    } finally {
      warn.mockRestore();
    }
  });
});

describe('<charla-message> bot variants', () => {
  const options = [
    { type: 'postback', title: 'Planes', description: 'Ver precios', payload: { p: 1 }, order: 2 },
    { type: 'postback', title: 'Soporte', payload: { p: 2 }, order: 1 },
  ];

  it('options: outlined buttons under the default button text, in order; choosing one calls chooseOption', async () => {
    const m = msg({ text: '¿Qué necesitas?', options });
    const { q, shadow, callsOf } = await show(m);
    expect(shadow.querySelector('.options__label')!.textContent).toBe('Opciones');
    const buttons = q.getAllByRole('button').filter((b) => b.classList.contains('option'));
    expect(buttons.map((b) => b.querySelector('.option__title')!.textContent)).toEqual(['Soporte', 'Planes']);
    expect(q.getByText('Ver precios')).toBeTruthy();
    buttons[1]!.click();
    expect(callsOf('chooseOption')[0]!.args).toEqual([m, options[0]]);
  });

  it('options: the interactive button text when given', async () => {
    const { shadow } = await show(msg({ options, interactive: { kind: 'options', buttonText: 'Elige' } }));
    expect(shadow.querySelector('.options__label')!.textContent).toBe('Elige');
  });

  it('options: the service’s default button text (Opciones, stored when the bot gave none) reads Options in English', async () => {
    const stored = msg({ options, interactive: { kind: 'options', buttonText: 'Opciones' } });
    const en = await show(stored, { language: 'en' });
    expect(en.shadow.querySelector('.options__label')!.textContent).toBe('Options');
    expect(en.shadow.querySelector('.options')!.getAttribute('aria-label')).toBe('Options');
    document.body.replaceChildren();
    const es = await show(stored, { language: 'es' });
    expect(es.shadow.querySelector('.options__label')!.textContent).toBe('Opciones');
    document.body.replaceChildren();
    // A text of the bot's own stays as written in either language.
    const own = await show(msg({ options, interactive: { kind: 'options', buttonText: 'Choose' } }), {
      language: 'en',
    });
    expect(own.shadow.querySelector('.options__label')!.textContent).toBe('Choose');
  });

  it('QuickReplies: chips on the newest message only', async () => {
    const replies = [
      { title: 'Sí', payload: { a: 1 }, contentType: 'text' },
      { title: 'No', payload: { a: 0 }, contentType: 'text' },
    ];
    const m = msg({ QuickReplies: replies });
    const { q, callsOf } = await show(m);
    q.getByRole('button', { name: 'No' }).click();
    expect(callsOf('chooseQuickReply')[0]!.args).toEqual([m, replies[1]]);
    document.body.replaceChildren();
    const older = await show(msg({ QuickReplies: replies }), { latest: false });
    expect(older.q.queryByRole('button', { name: 'No' })).toBeNull();
  });

  it('contact card: names, tel: and mailto: links, addresses; bad values stay text', async () => {
    const { q, shadow } = await show(
      msg({
        text: '',
        interactive: {
          kind: 'contacts',
          contacts: [
            {
              name: { first_name: 'Ana', last_name: 'Pérez' },
              phones: [{ phone: '+34600111222', type: 'CELL' }, { phone: 'javascript:alert(1)' }],
              emails: [{ email: 'ana@example.com' }, { email: 'x@y.com?subject=<script>' }],
              addresses: [{ street: 'Gran Vía 1', city: 'Madrid', country: 'España' }],
            },
          ],
        },
      }),
    );
    expect(q.getByText('Ana Pérez')).toBeTruthy();
    const hrefs = [...shadow.querySelectorAll('a')].map((a) => a.getAttribute('href'));
    expect(hrefs).toEqual(['tel:+34600111222', 'mailto:ana@example.com']);
    expect(q.getByText('javascript:alert(1)')).toBeTruthy();
    // Each field is an isolate of its own (bidi-isolation.test.ts): the line, not one text node.
    const lines = [...shadow.querySelectorAll('.card__secondary')].map((e) => e.textContent);
    expect(lines).toContain('Gran Vía 1, Madrid, España');
  });

  it('contact card: the known kinds of phone, email and address in the widget’s language, others as written', async () => {
    const card = msg({
      text: '',
      interactive: {
        kind: 'contacts',
        contacts: [
          {
            name: { formatted_name: 'Tienda' },
            phones: [
              { phone: '+34911222333', type: 'WORK' },
              { phone: '+34600111222', type: 'cell' },
              { phone: '+34600111333', type: 'Oficina Madrid' },
              { phone: '+34600111444' },
            ],
            emails: [{ email: 'casa@example.com', type: 'HOME' }],
            addresses: [{ street: 'Gran Vía 1', city: 'Madrid', type: 'WORK' }],
          },
        ],
      },
    });
    const texts = (root: Element) =>
      [...root.querySelectorAll('.card__link, .card__secondary')].map((e) => e.textContent);
    const es = await show(card);
    expect(texts(es.shadow)).toEqual([
      '+34911222333 (Trabajo)',
      '+34600111222 (Móvil)',
      '+34600111333 (Oficina Madrid)',
      '+34600111444',
      'casa@example.com (Casa)',
      'Gran Vía 1, Madrid (Trabajo)',
    ]);
    expect(es.shadow.textContent).not.toMatch(/WORK|CELL|HOME/);
    document.body.replaceChildren();
    const en = await show(card, { language: 'en' });
    expect(texts(en.shadow).slice(0, 2)).toEqual(['+34911222333 (Work)', '+34600111222 (Mobile)']);
  });

  it("contact card: the service's summary line (for previews) is not shown above the card as well", async () => {
    const { shadow } = await show(
      msg({
        text: '+34600111222',
        interactive: { kind: 'contacts', contacts: [{ phones: [{ phone: '+34600111222' }] }] },
      }),
    );
    const bubble = shadow.querySelector('[part~=bubble]')!;
    expect(bubble.textContent?.split('+34600111222').length).toBe(2);
    expect(bubble.querySelector('a[href="tel:+34600111222"]')).not.toBeNull();
  });

  it('call button: a tel: link when the display text carries a number', async () => {
    const { q } = await show(
      msg({ text: 'Llámanos', interactive: { kind: 'voice_call', displayText: 'Llamar +34 600 111 222' } }),
    );
    expect(q.getByRole('link', { name: 'Llamar +34 600 111 222' }).getAttribute('href')).toBe(
      'tel:+34600111222',
    );
  });

  it('call button: a 7-digit E.164 number is dialled too, with or without spaces', async () => {
    for (const displayText of ['Llamar +6834002', 'Llamar al +683 4002']) {
      const { q } = await show(msg({ text: 'Llámanos', interactive: { kind: 'voice_call', displayText } }));
      expect(q.getByRole('link', { name: displayText }).getAttribute('href')).toBe('tel:+6834002');
      document.body.replaceChildren();
    }
    // Only the number is dialled, not a dash and words after it; brackets around an area code pass.
    for (const [displayText, href] of [
      ['Llamar al +34 600 111 222 - 24h', 'tel:+34600111222'],
      ['Llamar +1 (555) 123-4567', 'tel:+15551234567'],
      ['+52 55.1234.5678 (oficina)', 'tel:+525512345678'],
    ] as const) {
      const { q } = await show(msg({ text: 'Llámanos', interactive: { kind: 'voice_call', displayText } }));
      expect(q.getByRole('link', { name: displayText }).getAttribute('href')).toBe(href);
      document.body.replaceChildren();
    }
    // Six digits are not a number: the button tells the bot.
    const { q } = await show(
      msg({ text: 'Llámanos', interactive: { kind: 'voice_call', displayText: 'Llamar +683400' } }),
    );
    expect(q.getByRole('button', { name: 'Llamar +683400' })).toBeTruthy();
  });

  it('call button: else a button that tells the bot', async () => {
    const m = msg({
      text: 'Llámanos',
      interactive: { kind: 'voice_call', header: 'Soporte', displayText: 'Llamar ahora' },
    });
    const { q, callsOf } = await show(m);
    expect(q.getByText('Soporte')).toBeTruthy();
    q.getByRole('button', { name: 'Llamar ahora' }).click();
    expect(callsOf('chooseOption')[0]!.args[1]).toMatchObject({ type: 'voice_call', title: 'Llamar ahora' });
  });

  it('call button: its header heads the message, above the text (not a caption of the button)', async () => {
    const { q, shadow } = await show(
      msg({
        text: '¿Prefieres hablar con nosotros?',
        interactive: { kind: 'voice_call', header: 'Atención al cliente', displayText: 'Llamar ahora' },
      }),
    );
    const heading = q.getByRole('heading', { name: 'Atención al cliente' });
    const text = q.getByText('¿Prefieres hablar con nosotros?');
    expect(heading.compareDocumentPosition(text) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(shadow.querySelector('.call')!.textContent).not.toContain('Atención al cliente');
  });

  it('contact_info_request: a form whose answer goes to submitContactInfo', async () => {
    const m = msg({ text: 'Déjanos tus datos', interactive: { kind: 'contact_info_request' } });
    const { el, shadow, callsOf } = await show(m);
    const form = shadow.querySelector('charla-contact-form')!;
    await settle(form);
    const fq = within(form.shadowRoot as unknown as HTMLElement);
    (fq.getByLabelText('Nombre') as HTMLInputElement).value = 'Ana';
    (fq.getByLabelText('Correo electrónico') as HTMLInputElement).value = 'no-es-correo';
    fq.getByRole('button', { name: 'Enviar datos' }).click();
    await settle(form);
    expect(fq.getByRole('alert').textContent).toBe('Escribe un correo electrónico válido.');
    expect(callsOf('submitContactInfo')).toHaveLength(0);
    (fq.getByLabelText('Correo electrónico') as HTMLInputElement).value = 'ana@example.com';
    (fq.getByLabelText('Teléfono') as HTMLInputElement).value = '+34 600 111 222';
    fq.getByRole('button', { name: 'Enviar datos' }).click();
    await settle(form);
    await settle(el);
    expect(callsOf('submitContactInfo')[0]!.args).toEqual([
      m,
      { name: 'Ana', phone: '+34 600 111 222', email: 'ana@example.com' },
    ]);
    expect(fq.getByRole('status').textContent).toBe('Datos enviados');
  });

  it('contact_info_request: what is typed comes back when the row is made again (panel closed and opened)', async () => {
    const m = msg({ text: 'Déjanos tus datos', interactive: { kind: 'contact_info_request' } });
    const first = await show(m);
    const sameWidget = { context: first.context, stores: first.stores, callsOf: first.callsOf };
    const form = first.shadow.querySelector('charla-contact-form')!;
    await settle(form);
    const name = within(form.shadowRoot as unknown as HTMLElement).getByLabelText(
      'Nombre',
    ) as HTMLInputElement;
    name.value = 'Ana Parcial';
    name.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    first.el.remove();
    const again = await show(m, {}, sameWidget as unknown as ReturnType<typeof makeContext>);
    const form2 = again.shadow.querySelector('charla-contact-form')!;
    await settle(form2);
    const fq = within(form2.shadowRoot as unknown as HTMLElement);
    expect((fq.getByLabelText('Nombre') as HTMLInputElement).value).toBe('Ana Parcial');
    expect((fq.getByLabelText('Teléfono') as HTMLInputElement).value).toBe('');
    // Another widget (its own actions) has its own drafts.
    const other = await show(m);
    const form3 = other.shadow.querySelector('charla-contact-form')!;
    await settle(form3);
    const oq = within(form3.shadowRoot as unknown as HTMLElement);
    expect((oq.getByLabelText('Nombre') as HTMLInputElement).value).toBe('');
  });

  it('contact_info_request: every invalid field is marked invalid and described by its own error, focus on the first', async () => {
    const m = msg({ text: 'Déjanos tus datos', interactive: { kind: 'contact_info_request' } });
    const { shadow } = await show(m);
    const form = shadow.querySelector('charla-contact-form')!;
    await settle(form);
    const fq = within(form.shadowRoot as unknown as HTMLElement);
    const phone = fq.getByLabelText('Teléfono') as HTMLInputElement;
    const email = fq.getByLabelText('Correo electrónico') as HTMLInputElement;
    phone.value = 'abc';
    email.value = 'ana@';
    email.focus();
    fq.getByRole('button', { name: 'Enviar datos' }).click();
    await settle(form);
    expect(fq.getAllByRole('alert').map((a) => a.textContent)).toEqual([
      'Escribe un teléfono válido.',
      'Escribe un correo electrónico válido.',
    ]);
    expect(phone.getAttribute('aria-invalid')).toBe('true');
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(form.shadowRoot!.activeElement).toBe(phone);
    // Each error is its own field's description, and only that field's.
    const description = (input: HTMLInputElement) =>
      (input.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => form.shadowRoot!.getElementById(id)?.textContent ?? '')
        .join(' ')
        .trim();
    expect(description(phone)).toBe('Escribe un teléfono válido.');
    expect(description(email)).toBe('Escribe un correo electrónico válido.');
    phone.value = '+34 600 111 222';
    fq.getByRole('button', { name: 'Enviar datos' }).click();
    await settle(form);
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(phone.getAttribute('aria-invalid')).toBe('false');
    expect(form.shadowRoot!.activeElement).toBe(email);
    expect(description(email)).toBe('Escribe un correo electrónico válido.');
    expect(phone.hasAttribute('aria-describedby')).toBe(false);
  });

  it('contact_info_request already answered: the confirmation, not the form (rows are made anew in a virtual list)', async () => {
    const m = msg({ text: 'Déjanos tus datos', interactive: { kind: 'contact_info_request' } });
    const answer = msg({ by: 'user', type: 'POSTBACK', text: 'Ana', payload: { replyTo: String(m.id) } });
    const { shadow } = await show(m, { answer: answer as PostbackMessage });
    const form = shadow.querySelector('charla-contact-form')!;
    await settle(form);
    const fq = within(form.shadowRoot as unknown as HTMLElement);
    expect(fq.queryByRole('form')).toBeNull();
    expect(fq.queryByRole('button', { name: 'Enviar datos' })).toBeNull();
    expect(fq.getByRole('status').textContent).toBe('Datos enviados');
  });
});

/** Explicit directional formatting characters (overrides, embeddings, isolates, marks). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('<charla-message> bidirectional text', () => {
  it('DOCUMENT: a right-to-left override in the caption or the address cannot disguise the file name', async () => {
    const captioned = await show(
      msg({
        type: 'DOCUMENT',
        caption: 'invoice\u202Efdp.exe',
        mediaUrl: 'https://evil.example/invoice.exe',
      }),
    );
    expect(captioned.shadow.querySelector('.card__title')!.textContent).toBe('invoicefdp.exe');
    const link = captioned.shadow.querySelector('a')!;
    expect(link.getAttribute('aria-label')).toBe('Descargar: invoicefdp.exe');
    document.body.replaceChildren();
    // A direction control in the address itself: the name shows without it, and the address is
    // not used at all (the service refuses to store one, as every address check does).
    const bare = await show(msg({ type: 'FILE', mediaUrl: 'https://evil.example/invoice\u202Efdp.exe' }));
    expect(bare.shadow.querySelector('.card__title')!.textContent).toBe('invoicefdp.exe');
    expect(bare.shadow.querySelector('.card__title')!.getAttribute('dir')).toBe('auto');
    expect(bare.shadow.querySelector('a')).toBeNull();
  });

  it('sender and contact names lose their directional controls and are isolated', async () => {
    const a = await show(msg({ senderNames: '\u202EEvil\u2066 \u200FBob\u061C' }), { showSender: true });
    const sender = a.shadow.querySelector('.sender')!;
    expect(sender.textContent).toBe('Evil Bob');
    expect(sender.getAttribute('dir')).toBe('auto');
    document.body.replaceChildren();
    const b = await show(
      msg({
        text: '',
        interactive: { kind: 'contacts', contacts: [{ name: { formatted_name: '\u202EAna' } }] },
      }),
    );
    expect(b.shadow.querySelector('.card__title')!.textContent).toBe('Ana');
  });

  it('a contact whose formatted name is blank is named by its first and last names', async () => {
    const { shadow } = await show(
      msg({
        text: '',
        interactive: {
          kind: 'contacts',
          contacts: [
            { name: { formatted_name: '   ', first_name: 'Luz', last_name: 'Gil' } },
            { name: { formatted_name: ' ' } },
          ],
        },
      }),
    );
    const titles = [...shadow.querySelectorAll('.card__title')].map((t) => t.textContent);
    expect(titles).toEqual(['Luz Gil', 'Contacto']);
  });

  it('message text keeps every character (right-to-left languages too) and is isolated', async () => {
    const text = 'مرحبا \u202Bبكم\u202C and \u202Eabc https://example.com/\u05d0';
    const { shadow } = await show(msg({ text }));
    const p = shadow.querySelector('.text')!;
    expect(p.textContent).toBe(text);
    expect(p.getAttribute('dir')).toBe('auto');
    document.body.replaceChildren();
    const image = await show(
      msg({ type: 'IMAGE', mediaUrl: 'https://cdn.example.com/a.png', caption: '\u202Eabc' }),
    );
    expect(image.shadow.querySelector('figcaption')!.textContent).toBe('\u202Eabc');
    expect(image.shadow.querySelector('figcaption')!.getAttribute('dir')).toBe('auto');
  });

  it('POSTBACK and EVENT lines are isolated too', async () => {
    const a = await show(msg({ type: 'POSTBACK', text: '\u202Eok', payload: {} }));
    expect(a.shadow.querySelector('.text')!.getAttribute('dir')).toBe('auto');
    document.body.replaceChildren();
    const b = await show(msg({ type: 'EVENT', slug: 's', description: '\u202Ex', eventPayload: {} }));
    expect(b.shadow.querySelector('.event')!.getAttribute('dir')).toBe('auto');
    expect(BIDI.test(b.shadow.querySelector('.event')!.textContent!)).toBe(true);
  });
});
