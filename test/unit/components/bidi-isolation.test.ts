/**
 * Text from the network cannot reorder what the widget shows around it: links are left-to-right
 * isolates, contact card fields and file names lose their direction controls, and the bot's
 * option, reply and button texts each take their own direction.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { msg } from './fixture.ts';
import { mountRow } from './message-row.ts';

afterEach(() => document.body.replaceChildren());

const ADDRESS = 'https://evil.example/moc.knab//:sptth';

describe('<charla-message> links in text', () => {
  it('are left-to-right isolates, whatever direction control precedes them', async () => {
    for (const control of ['\u202E', '\u2067']) {
      const texts = [
        msg({ text: `Pay here: ${control} ${ADDRESS}` }),
        // Another visitor's text in a group room.
        msg({ text: `Pay here: ${control} ${ADDRESS}`, senderId: 'u2', by: 'user' }),
        msg({ type: 'VIDEO', mediaUrl: '', caption: `${control} ${ADDRESS}` }),
      ];
      for (const m of texts) {
        const { el } = await mountRow(m);
        const a = el.querySelector('.bubble a')!;
        expect(a.getAttribute('href')).toBe(ADDRESS);
        expect(a.textContent).toBe(ADDRESS);
        expect(a.getAttribute('dir')).toBe('ltr');
        document.body.replaceChildren();
      }
    }
  });

  it('still refuse addresses with a user part or a direction control inside', async () => {
    const { el } = await mountRow(
      msg({
        text: 'https://bank.example@evil.example/ https://x.example/report\u202Efdp.exe https://ok.example/',
      }),
    );
    expect([...el.querySelectorAll('.text a')].map((a) => a.getAttribute('href'))).toEqual([
      'https://ok.example/',
    ]);
  });
});

/** Explicit directional formatting characters (overrides, embeddings, isolates, marks). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The innermost element showing exactly `text`. */
function holder(root: Element, text: string): Element | undefined {
  return [root, ...root.querySelectorAll('*')].reverse().find((e) => e.textContent === text);
}
/** An isolate that takes its direction from its own text: `<bdi>`, or `dir="auto"`. */
const isIsolate = (e: Element | undefined) => e?.tagName === 'BDI' || e?.getAttribute('dir') === 'auto';

describe('<charla-message> contact cards', () => {
  it('show every field without direction controls, each in its own isolate', async () => {
    const { el } = await mountRow(
      msg({
        text: '',
        interactive: {
          kind: 'contacts',
          contacts: [
            {
              name: { formatted_name: 'Ana' },
              phones: [{ phone: '+34600111222', type: '\u202Eoffice' }],
              emails: [{ email: 'ana@example.com', type: 'HOME' }],
              addresses: [
                { street: 'Main 1', city: '\u202Eevil', country: 'X', type: 'HOME' },
                { street: '\u2067', city: 'תל אביב', zip: '61000', type: '\u200F' },
              ],
            },
          ],
        },
      }),
    );
    const lines = [...el.querySelectorAll('.card__link, .card__secondary')];
    expect(lines.map((l) => l.textContent!.trim())).toEqual([
      '+34600111222 (office)',
      'ana@example.com (Casa)',
      'Main 1, evil, X (Casa)',
      // A field that was only a direction control is none.
      'תל אביב, 61000',
    ]);
    for (const line of lines) expect(BIDI.test(line.textContent!), line.textContent!).toBe(false);
    // Each of the network's values is an isolate of its own: a Hebrew city does not carry the zip.
    for (const [i, text] of [
      [0, '+34600111222'],
      [0, 'office'],
      [1, 'ana@example.com'],
      [2, 'Main 1'],
      [2, 'evil'],
      [2, 'X'],
      [3, 'תל אביב'],
      [3, '61000'],
    ] as const)
      expect(isIsolate(holder(lines[i]!, text)), text).toBe(true);
    expect(el.querySelector('.card__link')!.getAttribute('href')).toBe('tel:+34600111222');
  });
});

describe("<charla-message> the bot's option, reply and button texts", () => {
  // Legitimate right-to-left text with its marks, and a stray override.
  const ar = 'نعم\u200F';
  const rlo = '\u202Eabc';

  it('are isolates that keep their characters', async () => {
    const options = [
      { type: 'postback', title: ar, description: rlo, payload: {}, order: 0 },
      { type: 'postback', title: rlo, description: ar, payload: {}, order: 1, url: 'https://x.example/' },
    ];
    const { el } = await mountRow(
      msg({
        options,
        interactive: { kind: 'options', buttonText: rlo, title: ar },
        QuickReplies: [
          { title: ar, payload: {}, contentType: 'text' },
          { title: rlo, payload: {}, contentType: 'text', url: 'https://x.example/' },
        ],
      }),
      { latest: true },
    );
    const shown = [
      ...el.querySelectorAll('.options__label, .options__title, .option__title, .option__description, .chip'),
    ];
    expect(shown.map((e) => e.textContent!.trim())).toEqual([rlo, ar, ar, rlo, rlo, ar, ar, rlo]);
    for (const e of shown) expect(isIsolate(holder(e, e.textContent!.trim())), e.className).toBe(true);
  });

  it('the call button isolates its display text, linked or not', async () => {
    for (const displayText of [`${rlo} +34 600 111 222`, rlo]) {
      const { el } = await mountRow(msg({ text: 'x', interactive: { kind: 'voice_call', displayText } }));
      const control = el.querySelector('.option--call')!;
      expect(control.textContent!.trim()).toBe(displayText);
      expect(isIsolate(holder(control, displayText))).toBe(true);
      document.body.replaceChildren();
    }
  });
});

describe('<charla-message> captions shown as file names', () => {
  it('lose their direction controls', async () => {
    for (const type of ['VIDEO', 'IMAGE']) {
      // Media that cannot be shown: its caption stands under "File unavailable".
      const { el } = await mountRow(msg({ type, mediaUrl: '', caption: '\u202Efdp.exe' }));
      expect(el.querySelector('.media-unavailable')).not.toBeNull();
      expect(el.querySelector('.caption')!.textContent).toBe('fdp.exe');
      document.body.replaceChildren();
    }
    for (const m of [
      msg({ type: 'DOCUMENT', mediaUrl: 'https://cdn.example.com/a.pdf', caption: '\u202Efdp.exe' }),
      // Another visitor's video at another host: a file card.
      msg({
        type: 'VIDEO',
        mediaUrl: 'https://other.example/v.mp4',
        caption: '\u202Efdp.exe',
        senderId: 'u2',
        by: 'user',
      }),
    ]) {
      const { el } = await mountRow(m);
      expect(el.querySelector('.card__title')!.textContent).toBe('fdp.exe');
      document.body.replaceChildren();
    }
  });
});

describe('<charla-message> contact card e-mails', () => {
  it('are not linked when a mail client would decode them into another address (%); the text stays', async () => {
    const emails = ['x%3Fbcc%3Devil%40evil.example@x.com', 'a%0Ab@x.com', 'ana.b+c@x.com'];
    const { el } = await mountRow(
      msg({
        text: '',
        interactive: { kind: 'contacts', contacts: [{ emails: emails.map((email) => ({ email })) }] },
      }),
    );
    expect([...el.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual([
      'mailto:ana.b+c@x.com',
    ]);
    expect([...el.querySelectorAll('.card__link, .card__secondary')].map((e) => e.textContent)).toEqual(
      emails,
    );
  });
});
