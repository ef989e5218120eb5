/**
 * Chromium's layout of links in message text: whatever direction control precedes an address,
 * its link reads on screen as the address it goes to (a right-to-left override before it would
 * otherwise show `https://evil.example/moc.knab//:sptth` as `https://bank.com/elpmaxe.live//:sptth`);
 * and a contact card's field cannot reorder the widget's words after it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import type { BotContact } from '../../types/index.ts';
import { drawnCharacters, listOf, makeContext, mountWidget, msg, room, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

/** The element's characters as laid out: left to right, line after line (a long link may wrap). */
function onScreen(el: Element): string {
  return drawnCharacters(el)
    .sort((a, b) => a.y - b.y || a.x - b.x)
    .map((ch) => ch.c)
    .join('');
}

const ADDRESS = 'https://evil.example/moc.knab//:sptth';
const ENDS_IN_SLASH = 'https://bank.example/';

describe('<charla-message> links after a direction control', () => {
  beforeEach(() => page.viewport(1280, 800));

  for (const [what, control] of [
    ['a right-to-left override (U+202E)', '\u202E'],
    ['a right-to-left isolate (U+2067)', '\u2067'],
    ['a right-to-left embedding (U+202B)', '\u202B'],
  ] as const) {
    it(`show their address as it goes, after ${what}`, async () => {
      const f = makeContext({ ui: { open: true }, config: { properties: { type: 'group' } } });
      f.stores.$rooms.set([room({ type: 'group' })]);
      f.stores.$currentMessages.set([
        // An address at the end of its paragraph: its last "/" takes the paragraph's direction.
        msg({ id: 'bot', text: `Pay here: ${control} ${ADDRESS} or ${ENDS_IN_SLASH}` }),
        // Another visitor of the group room.
        msg({ id: 'peer', text: `Pay here: ${control} ${ADDRESS} ok`, senderId: 'u2', by: 'user' }),
      ]);
      const widget = await mountWidget(f);
      const { rows } = listOf(widget);
      await waitFor(() => rows().length === 2, 'rows');
      const links = rows().flatMap((row) => [...row.querySelectorAll('.text a')]);
      expect(links.map((a) => a.getAttribute('href'))).toEqual([ADDRESS, ENDS_IN_SLASH, ADDRESS]);
      for (const a of links) expect(onScreen(a)).toBe(a.getAttribute('href'));
    });
  }
});

/** The widget open on one message holding these contact cards; its first card once drawn. */
async function mountCard(contacts: BotContact[]): Promise<HTMLElement> {
  const f = makeContext({ ui: { open: true } });
  f.stores.$currentMessages.set([msg({ text: '', interactive: { kind: 'contacts', contacts } })]);
  const { rows } = listOf(await mountWidget(f));
  return waitFor(() => rows()[0]?.querySelector<HTMLElement>('.card--contact'), 'the card');
}

describe('<charla-message> contact cards', () => {
  beforeEach(() => page.viewport(1280, 800));

  it('a direction control in a field cannot reorder the widget’s words after it', async () => {
    const card = await mountCard([
      { addresses: [{ street: 'Main 1', city: '\u202Eevil', country: 'X', type: 'HOME' }] },
    ]);
    const line = card.querySelector('.card__secondary')!;
    expect(onScreen(line).trim()).toBe('Main 1, evil, X (Casa)');
  });

  it('an Arabic card is right-to-left as a whole: every line right-aligned, its address in order; the icon beside the name', async () => {
    const card = await mountCard([
      {
        name: { formatted_name: 'ليلى حسن' },
        phones: [
          { phone: '+971501234567', type: 'WORK' },
          { phone: '+971501234568' },
          { phone: '+971501234569' },
        ],
        emails: [{ email: 'layla@example.com' }],
        addresses: [{ street: 'شارع الشيخ زايد', city: 'دبي', country: 'الإمارات' }],
      },
    ]);
    const body = card.querySelector<HTMLElement>('.card__body')!;
    expect(getComputedStyle(body).direction).toBe('rtl');
    const right = body.getBoundingClientRect().right;
    const lines = [...body.children] as HTMLElement[];
    expect(lines).toHaveLength(6);
    for (const line of lines) {
      // Each line's words end at the body's right edge (a range over its text, not the box).
      const range = document.createRange();
      range.selectNodeContents(line);
      expect(Math.abs(range.getBoundingClientRect().right - right), line.textContent!).toBeLessThan(2);
    }
    // The address reads right to left: the street first (rightmost), the country last (leftmost).
    const address = lines[5]!;
    const at = (text: string) => {
      const range = document.createRange();
      const node = [...address.querySelectorAll('bdi')].find((b) => b.textContent === text)!;
      range.selectNodeContents(node);
      return range.getBoundingClientRect().left;
    };
    expect(at('شارع الشيخ زايد')).toBeGreaterThan(at('دبي'));
    expect(at('دبي')).toBeGreaterThan(at('الإمارات'));
    // The icon sits by the name at the top of a tall card, not halfway down.
    const icon = card.querySelector('.card__icon')!.getBoundingClientRect();
    const title = card.querySelector('.card__title')!.getBoundingClientRect();
    expect(Math.abs(icon.top - title.top)).toBeLessThan(8);
    expect(card.getBoundingClientRect().height).toBeGreaterThan(icon.height * 2);
  });
});
