import { describe, expect, it, vi } from 'vitest';
import { defineElements, elements } from '../../../src/define.ts';
import { en } from '../../../src/i18n/en.ts';
import { es } from '../../../src/i18n/es.ts';
import { translate, translator } from '../../../src/i18n/index.ts';
import { roomName } from '../../../src/components/shared/format.ts';
import { room } from './fixture.ts';
import {
  coordinates,
  linkify,
  mailtoHref,
  safeUrl,
  telHref,
} from '../../../src/components/shared/safe-url.ts';
import {
  contrast,
  googleFontName,
  holdGoogleFont,
  panelPosition,
  releaseGoogleFont,
  textOn,
} from '../../../src/styles/theme.ts';

describe('define.ts', () => {
  it('registers every tag and does not throw when run again', () => {
    for (const tag of Object.keys(elements)) expect(customElements.get(tag)).toBeDefined();
    expect(() => defineElements()).not.toThrow();
  });

  it('leaves a tag another script defined alone', () => {
    // A registry that throws like the browser's when a tag is defined twice.
    const tags = new Map<string, CustomElementConstructor>();
    const registry = {
      get: (tag: string) => tags.get(tag),
      define: (tag: string, ctor: CustomElementConstructor) => {
        if (tags.has(tag)) throw new DOMException(`${tag} already defined`, 'NotSupportedError');
        tags.set(tag, ctor);
      },
    } as unknown as CustomElementRegistry;
    class Other extends HTMLElement {}
    registry.define('charla-widget', Other);
    expect(() => defineElements(registry)).not.toThrow();
    expect(registry.get('charla-widget')).toBe(Other);
    expect(registry.get('charla-chat')).toBe(elements['charla-chat']);
  });

  it('says so in the console when the page defines one of the widget’s parts, and not for another Charla’s', () => {
    const tags = new Map<string, CustomElementConstructor>();
    const registry = {
      get: (tag: string) => tags.get(tag),
      define: (tag: string, ctor: CustomElementConstructor) => void tags.set(tag, ctor),
    } as unknown as CustomElementRegistry;
    class PageChat extends HTMLElement {}
    tags.set('charla-chat', PageChat);
    tags.set('charla-message', elements['charla-message']);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      defineElements(registry);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
        'Charla: this page defines its own <charla-chat>; the widget shows it in place of its own',
      ]);
    } finally {
      warn.mockRestore();
    }
    expect(registry.get('charla-chat')).toBe(PageChat);
  });
});

describe('i18n', () => {
  it('has every Spanish key in English, none empty except where meant', () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(es).sort());
    for (const [key, value] of Object.entries(en))
      if (key !== 'connectionidle') expect(value, key).not.toBe('');
  });

  it('fills placeholders and falls back to Spanish', () => {
    expect(translate('en', 'unread', { count: 3 })).toBe('3 unread');
    expect(translate('fr', 'send')).toBe('Enviar');
  });
});

describe('safe URLs', () => {
  it('accepts https anywhere and http only on localhost', () => {
    expect(safeUrl('https://cdn.example.com/a.png')).toBe('https://cdn.example.com/a.png');
    expect(safeUrl('http://localhost:8080/a')).toBe('http://localhost:8080/a');
    expect(safeUrl('http://127.0.0.1/a')).toBe('http://127.0.0.1/a');
    for (const bad of [
      'http://example.com/a',
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,x',
      'java\tscript:alert(1)',
      '//evil.com',
      'vbscript:x',
      '',
      'https://a.com/\u0000',
    ]) {
      expect(safeUrl(bad), bad).toBeNull();
    }
  });

  it('links only http(s) in text, leaving trailing punctuation out', () => {
    expect(linkify('ver https://a.com/x. y javascript:alert(1)')).toEqual([
      { text: 'ver ' },
      { text: 'https://a.com/x', href: 'https://a.com/x' },
      { text: '. y javascript:alert(1)' },
    ]);
  });

  it('leaves as text an address that shows one place and goes to another: a user part, a direction control, a look-alike host', () => {
    for (const text of [
      'https://www.bancosantander.es@evil.example/login',
      'https://user:pass@example.com/',
      'https://files.example/report\u202Efdp.exe',
      'https://files.example/\u2067a\u2069.pdf',
      'https://files.example/a\u200F.pdf',
    ]) {
      const parts = linkify(`mira ${text} ya`);
      expect(
        parts.every((p) => p.href === undefined),
        text,
      ).toBe(true);
      expect(parts.map((p) => p.text).join(''), text).toBe(`mira ${text} ya`);
    }
    // A host that may pass for another: a look-alike slash, mixed scripts, whole-script look-alikes.
    for (const text of [
      'https://accounts.google.com\u2044signin.evil.example/',
      'https://bank.example\u2215login.evil.example/',
      'https://www.p\u0430ypal.com/signin',
      'https://\u0430\u0440\u0440\u04cf\u0435.com/',
      'https://x.\u03bf\u03c1\u03b1.example/',
    ]) {
      expect(
        linkify(`mira ${text} ya`).every((p) => p.href === undefined),
        text,
      ).toBe(true);
    }
    // A host written so that it reads as one and the parser finds another: percent-encoded, or
    // with a backslash (read as a slash).
    for (const text of [
      'https://p%D0%B0ypal.com/',
      'https://paypal.com%E2%81%84signin.evil.example/',
      'https://bank.example%E3%80%82evil.example/',
      'https://paypal%2Ecom.evil.example/',
      'https://evil.example\\@good.example/',
      'https://evil.example\\good.example/',
    ]) {
      expect(
        linkify(`mira ${text} ya`).every((p) => p.href === undefined),
        text,
      ).toBe(true);
    }
    // Percent signs after the host are an ordinary part of an address.
    expect(linkify('https://x.com/a%20b?q=%C3%B1')).toEqual([
      { text: 'https://x.com/a%20b?q=%C3%B1', href: 'https://x.com/a%20b?q=%C3%B1' },
    ]);
    // Hosts written in one script, with accents or in another alphabet, are links.
    for (const text of [
      'https://espa\u00f1a.es/pan',
      'https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444/',
      'https://\u4f8b\u3048.jp/',
      'https://a-b.example:8443/x',
    ]) {
      expect(linkify(text), text).toEqual([{ text, href: new URL(text).href }]);
    }
    // An @ after the host is not a user part.
    expect(linkify('https://x.com/@ana')).toEqual([
      { text: 'https://x.com/@ana', href: 'https://x.com/@ana' },
    ]);
  });

  it('keeps a closing bracket that the address opened, and leaves one that the text opened', () => {
    const wiki = 'https://es.wikipedia.org/wiki/Pan_(alimento)';
    expect(linkify(`(${wiki}).`)).toEqual([{ text: '(' }, { text: wiki, href: wiki }, { text: ').' }]);
    expect(linkify('(https://x.com/a).')).toEqual([
      { text: '(' },
      { text: 'https://x.com/a', href: 'https://x.com/a' },
      { text: ').' },
    ]);
  });

  it('builds tel: and mailto: only from valid values', () => {
    expect(telHref('+34 600-111-222')).toBe('tel:+34600111222');
    expect(telHref('javascript:alert(1)')).toBeNull();
    // The contract's E.164: 7 to 15 digits (a Niue number has 7), the first not zero.
    expect(telHref('+683 4002')).toBe('tel:+6834002');
    expect(telHref('+123456')).toBeNull();
    expect(telHref('+1234567890123456')).toBeNull();
    expect(mailtoHref('ana@example.com')).toBe('mailto:ana@example.com');
    expect(mailtoHref('ana@example.com?bcc=x@y.com')).toBeNull();
    // Internationalised addresses link too; nothing that could change the URL's meaning does.
    expect(mailtoHref('ñandú@ejemplo.es')).toBe('mailto:ñandú@ejemplo.es');
    expect(mailtoHref('ana@ñandú.es')).toBe('mailto:ana@ñandú.es');
    expect(mailtoHref('用户@例子.广告')).toBe('mailto:用户@例子.广告');
    for (const bad of ['x%3Fbcc%3Devil%40evil.example@x.com', 'a b@x.es', 'a@b', 'ñ@x.es#frag', 'a@x.es\n'])
      expect(mailtoHref(bad), bad).toBeNull();
    // A domain that may pass for another (a Cyrillic а in paypal) is shown, not linked.
    expect(mailtoHref('x@p\u0430ypal.com')).toBeNull();
    expect(mailtoHref('x@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444')).toBe(
      'mailto:x@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444',
    );
    expect(coordinates('40.1', '-3.2')).toEqual({ lat: '40.1', lng: '-3.2' });
    // Decimal as given: a small coordinate is never shown or linked as 1e-7.
    expect(coordinates('0.0000001', '-0.00000000015')).toEqual({ lat: '0.0000001', lng: '-0.00000000015' });
    expect(coordinates(12.5, -3)).toEqual({ lat: '12.5', lng: '-3' });
    expect(coordinates('91', '0')).toBeNull();
    expect(coordinates(1e-7, 0)).toBeNull();
  });
});

describe('theme', () => {
  it('normalises positions and codes', () => {
    expect(panelPosition('bl')).toBe('bottom-left');
    expect(panelPosition('top-right')).toBe('top-right');
    expect(panelPosition(undefined)).toBe('bottom-right');
  });

  it('picks text on the brand colour with at least 4.5:1 contrast', () => {
    for (const c of ['#2563eb', '#ffcc00', '#000000', '#ffffff', '#777777', '#e11d48']) {
      expect(contrast(c, textOn(c))).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('adds a Google Fonts stylesheet only when asked and the name is safe, once per family', () => {
    expect(googleFontName({ font: { name: 'Inter' } })).toBeNull();
    expect(googleFontName({ font: { name: 'x"><script>', googlefont: true } })).toBeNull();
    expect(googleFontName({ font: { name: 'Open Sans', googlefont: true } })).toBe('Open Sans');
    holdGoogleFont(document, 'Open Sans');
    holdGoogleFont(document, 'Open Sans');
    const links = document.head.querySelectorAll('link[data-charla-font]');
    expect(links).toHaveLength(1);
    expect(links[0]!.getAttribute('href')).toBe(
      'https://fonts.googleapis.com/css2?family=Open+Sans:wght@400;600&display=swap',
    );
    // It stays while one user is left, and goes with the last.
    releaseGoogleFont(document, 'Open Sans');
    expect(document.head.querySelectorAll('link[data-charla-font]')).toHaveLength(1);
    releaseGoogleFont(document, 'Open Sans');
    expect(document.head.querySelectorAll('link[data-charla-font]')).toHaveLength(0);
  });
});

describe('dates', () => {
  it('formats times and day separators in each language', async () => {
    const { formatDay, formatTime } = await import('../../../src/components/shared/format.ts');
    const { translator } = await import('../../../src/i18n/index.ts');
    const at = new Date(2026, 2, 3, 14, 5);
    expect(formatTime(at, 'es')).toBe('14:05');
    expect(formatTime(at, 'en')).toBe('2:05 PM');
    const now = new Date(2026, 2, 10, 9, 0);
    expect(formatDay(at, 'es', translator('es'), now)).toBe('3 de marzo');
    expect(formatDay(new Date(2025, 11, 24), 'es', translator('es'), now)).toBe('24 de diciembre de 2025');
    expect(formatDay(new Date(2025, 11, 24), 'en', translator('en'), now)).toBe('December 24, 2025');
    expect(formatDay(new Date(2026, 2, 9, 23), 'es', translator('es'), now)).toBe('Ayer');
    expect(formatDay(new Date(2026, 2, 10, 1), 'en', translator('en'), now)).toBe('Today');
  });
});

describe('roomName', () => {
  // roomName reads a member's referenceId and names only.
  const member = (referenceId: string, names: string | null) => ({ referenceId, names }) as never;
  const t = translator('es');

  it('names a room without a name after its other members, counting those without a name', () => {
    const unnamed = (...membersInfo: never[]) => room({ type: 'group', name: '', membersInfo });
    const me = member('me', 'Yo');
    expect(
      roomName(unnamed(me, member('beto', 'Beto'), member('ana', 'Ana'), member('dani', null)), 'me', t),
    ).toBe('Beto, Ana +1');
    expect(roomName(unnamed(me, member('beto', 'Beto')), 'me', t)).toBe('Beto');
    // Nobody with a name: the kind of conversation, as before.
    expect(roomName(unnamed(me, member('dani', null)), 'me', t)).toBe(es.groupConversation);
  });
});
