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
