/**
 * The contract's plain helpers the service, charla/api and the widget share:
 * the first steps of every address check, and key-order-insensitive JSON.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../types/canonical-json.ts';
import { URL_FORBIDDEN_CHAR_REASON } from '../../types/limits.ts';
import { hasForbiddenChar, parseAddress } from '../../types/urls.ts';

describe('parseAddress', () => {
  it('gives the parsed address for an absolute one without credentials', () => {
    const url = parseAddress('https://cdn.example.com/a%20b.png');
    expect(url).toBeInstanceOf(URL);
    expect((url as URL).hostname).toBe('cdn.example.com');
    // Scheme and host are the caller's to judge.
    expect(parseAddress('ftp://10.0.0.1/x')).toBeInstanceOf(URL);
  });

  it.each([
    ['a space', 'https://cdn.example.com/a b.png'],
    ['a tab the URL parser would drop', 'https://cdn.exa\tmple.com/a.png'],
    ['a line break', 'https://cdn.example.com/a.png\n'],
    ['a C1 control', 'https://cdn.example.com/\u0085a.png'],
    ['a no-break space', 'https://cdn.example.com/\u00a0a.png'],
    ['a zero-width space', 'https://cdn.example.com/\u200ba.png'],
    ['a right-to-left override', 'https://cdn.example.com/\u202egnp.exe'],
    ['an ideographic space', 'https://cdn.example.com/\u3000a.png'],
    ['a byte-order mark', '\ufeffhttps://cdn.example.com/a.png'],
  ])('refuses %s, before parsing', (_, raw) => {
    expect(hasForbiddenChar(raw)).toBe(true);
    expect(parseAddress(raw)).toBe(URL_FORBIDDEN_CHAR_REASON);
  });

  it('refuses what is not an absolute address', () => {
    expect(parseAddress('/v1/media/a.png')).toBe('must be an absolute address');
    expect(parseAddress('https://')).toBe('must be an absolute address');
    expect(parseAddress('')).toBe('must be an absolute address');
  });

  it('refuses a user name or a password', () => {
    expect(parseAddress('https://user@cdn.example.com/a.png')).toBe('must not carry credentials');
    expect(parseAddress('https://:secret@cdn.example.com/a.png')).toBe('must not carry credentials');
  });

  it('takes characters that are only unusual (accents, emoji, percent escapes)', () => {
    for (const raw of [
      'https://ñandú.example/café.png',
      'https://cdn.example.com/😀.png',
      'https://cdn.example.com/a%20b',
    ])
      expect(hasForbiddenChar(raw), raw).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('is the same whatever the order of keys, at every depth', () => {
    const a = { payload: { b: 1, a: [{ y: 2, x: 1 }] }, title: 'Sí', replyTo: 'm1' };
    const b = { replyTo: 'm1', title: 'Sí', payload: { a: [{ x: 1, y: 2 }], b: 1 } };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(JSON.parse(canonicalJson(a))).toEqual(a);
  });

  it('tells different values apart: array order, types, values', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
    expect(canonicalJson({ a: { b: 1 } })).not.toBe(canonicalJson({ a: { b: 2 } }));
  });

  it('leaves out undefined keys and writes undefined in arrays as null, as JSON.stringify does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson([undefined, 1])).toBe(JSON.stringify([undefined, 1]));
    expect(canonicalJson(undefined)).toBe('null');
  });
});
