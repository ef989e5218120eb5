/**
 * Long contact lists in Chromium: 5,000 contacts cost the home menu one page of entries (they
 * were 5,000 buttons, 125,000 elements and 2.5 s to open); the next page comes when its button
 * scrolls into view; a refused choice far down the list is said where the user is looking; the
 * search field and the "show more" button pass axe.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { CharlaError } from '../../src/transport/errors.ts';
import { errorBody } from '../../types/index.ts';
import {
  axeViolations,
  axNodes,
  makeContext,
  msg,
  mountWidget,
  nextFrame,
  room,
  waitFor,
} from './helpers.ts';

afterEach(() => document.body.replaceChildren());

const people = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `u${i}`, names: `Persona ${i}` }));

async function homeWith(n: number) {
  const f = makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });
  f.stores.$contacts.set(people(n));
  const widget = await mountWidget(f);
  const home = await waitFor(() => widget.shadowRoot?.querySelector('charla-home-menu'), 'the home menu');
  const body = home.shadowRoot!.querySelector<HTMLElement>('.body')!;
  const contacts = () => home.shadowRoot!.querySelectorAll('[part=contact]').length;
  return { f, home, body, contacts };
}

describe('<charla-home-menu> with 5,000 contacts', () => {
  it('renders a page of them, and the next page when the list is scrolled to its end', async () => {
    await page.viewport(1280, 800);
    const { home, body, contacts } = await homeWith(5000);
    expect(contacts()).toBe(50);
    expect(home.shadowRoot!.querySelectorAll('*').length).toBeLessThan(2000);
    body.scrollTop = body.scrollHeight;
    await waitFor(() => contacts() === 100 || null, 'the second page');
    body.scrollTop = body.scrollHeight;
    await waitFor(() => contacts() === 150 || null, 'the third page');
    // Not scrolled further, no more pages come.
    for (let i = 0; i < 10; i++) await nextFrame();
    expect(contacts()).toBe(150);
    expect(await axeViolations()).toEqual([]);
  });

  it('leaves the rooms above the contacts at a page when scrolled past, and a focused button waits to be chosen', async () => {
    await page.viewport(1280, 800);
    const f = makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });
    f.stores.$rooms.set(Array.from({ length: 120 }, (_, i) => room({ id: `r${i}`, name: `Sala ${i}` })));
    f.stores.$contacts.set(people(200));
    const widget = await mountWidget(f);
    const home = await waitFor(() => widget.shadowRoot?.querySelector('charla-home-menu'), 'the home menu');
    const body = home.shadowRoot!.querySelector<HTMLElement>('.body')!;
    const count = (part: string) => home.shadowRoot!.querySelectorAll(`[part=${part}]`).length;
    // Scrolled down past the rooms' button: the rooms stay at a page, the contacts are reached.
    const roomsMore = home.shadowRoot!.querySelector<HTMLElement>('[data-more=rooms]')!;
    body.scrollTop = roomsMore.offsetTop - 100;
    for (let i = 0; i < 10; i++) await nextFrame();
    expect(count('room')).toBe(50);
    // Tabbed to, the contacts' button scrolls into view and waits: no page comes by itself.
    const contactsMore = home.shadowRoot!.querySelector<HTMLElement>('[data-more=contacts]')!;
    contactsMore.focus();
    for (let i = 0; i < 10; i++) await nextFrame();
    expect(count('contact')).toBe(50);
    expect(home.shadowRoot!.activeElement).toBe(contactsMore);
  });

  it('says a refused choice at the end of a long list where the user looks', async () => {
    await page.viewport(375, 667);
    const { f, home, body } = await homeWith(40);
    f.context.actions.openRoomWithUser = () =>
      Promise.reject(new CharlaError(errorBody('VALIDATION_ERROR'), 400)) as never;
    body.scrollTop = body.scrollHeight;
    const last = [...home.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part=contact]')].at(-1)!;
    last.click();
    const alert = await waitFor(
      () => home.shadowRoot!.querySelector<HTMLElement>('[role=alert]'),
      'the alert',
    );
    await nextFrame();
    const a = alert.getBoundingClientRect();
    const view = body.getBoundingClientRect();
    expect(a.top).toBeGreaterThanOrEqual(view.top);
    expect(a.bottom).toBeLessThanOrEqual(view.bottom);
    expect(alert.textContent?.trim()).toBe('No se pudo abrir la conversación con Persona 39.');
  });
});

describe('<charla-home-menu> long names', () => {
  it('a long contact or room name takes two lines at 320 px before it is cut', async () => {
    await page.viewport(320, 640);
    const long = 'Donaudampfschifffahrtsgesellschaftskapitän Müller';
    const f = makeContext({ ui: { view: 'home' }, config: { properties: { type: 'group' } } });
    f.stores.$rooms.set([room({ id: 'r1', name: long })]);
    f.stores.$contacts.set([{ id: 'u1', names: long }]);
    const widget = await mountWidget(f);
    const home = await waitFor(() => widget.shadowRoot?.querySelector('charla-home-menu'), 'the home menu');
    for (const part of ['room', 'contact']) {
      const name = home.shadowRoot!.querySelector<HTMLElement>(`[part=${part}] .item__name`)!;
      const line = parseFloat(getComputedStyle(name).lineHeight) || 20;
      // All of it shows: on two lines, nothing hidden.
      expect(name.scrollHeight, `${part}: nothing cut`).toBeLessThanOrEqual(name.clientHeight + 1);
      expect(name.clientHeight, `${part}: two lines`).toBeGreaterThan(line * 1.5);
    }
    expect(await axeViolations()).toEqual([]);
  });
});
