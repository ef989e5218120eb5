/**
 * Tab and Shift+Tab through a long conversation. The list draws only the rows near the view, so
 * with the view up in the history the browser's Tab went from the last control drawn straight to
 * the composer, and Shift+Tab from the composer to that control: the newest message's answers and
 * links could not be reached by keyboard until the view was scrolled down again (WCAG 2.1.1,
 * 2.4.3; found by the keyboard review with bot options far above a contact card). The list now
 * looks beyond the rows drawn itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { tabStops } from '../../src/components/shared/focus.ts';
import {
  deepActive,
  listOf,
  makeContext,
  manyMessages,
  mountWidget,
  msg,
  nextFrame,
  waitFor,
} from './helpers.ts';

afterEach(() => {
  document.body.replaceChildren();
});

const LINK_OLD = 'https://example.com/antiguo';
const LINK_NEW = 'https://example.com/reciente';

/** 120 messages: a link in the second, another in `newAt` (the last), plain text between them. */
async function mount(newAt: number | null = 119, top = true) {
  await page.viewport(1280, 800);
  const messages = manyMessages(120);
  messages[1] = msg({ ...messages[1]!, text: `Mira ${LINK_OLD} por favor` });
  if (newAt !== null) messages[newAt] = msg({ ...messages[newAt]!, text: `Y ahora ${LINK_NEW}` });
  const f = makeContext();
  f.stores.$currentMessages.set(messages);
  const widget = await mountWidget(f);
  const { scroller, rows } = listOf(widget);
  const drawn = (id: string) => rows().some((r) => r.getAttribute('data-key') === id);
  await waitFor(() => drawn('h119'), 'the newest row drawn');
  if (!top) {
    for (let i = 0; i < 6; i++) await nextFrame();
    return { scroller: scroller!, drawn };
  }
  // Home: the view at the first message, the newest rows no longer drawn.
  scroller!.focus();
  await userEvent.keyboard('{Home}');
  await waitFor(() => drawn('h1') && !drawn('h119'), 'the view at the top, the last row not drawn');
  for (let i = 0; i < 4; i++) await nextFrame();
  return { scroller: scroller!, drawn };
}

const focusedHref = () => (deepActive() as HTMLAnchorElement | null)?.href ?? '';
/** Focus on one of the composer's controls (its buttons come before its text field). */
const composerFocused = () =>
  (deepActive()?.getRootNode() as ShadowRoot | undefined)?.host?.localName === 'charla-composer';

const composerOf = () =>
  document
    .querySelector('charla-widget')!
    .shadowRoot!.querySelector('charla-chat')!
    .shadowRoot!.querySelector('charla-composer')!;

describe('<charla-message-list> Tab beyond the rows drawn', () => {
  it('Tab from the last control drawn goes on to the next control in the conversation, then to the composer', async () => {
    const l = await mount();
    await userEvent.keyboard('{Tab}');
    await waitFor(() => focusedHref() === LINK_OLD, 'the old link focused first');

    await userEvent.keyboard('{Tab}');
    await waitFor(() => focusedHref() === LINK_NEW, 'the newest link, rows away').catch(() => undefined);
    expect(focusedHref(), 'Tab reaches the newest message').toBe(LINK_NEW);
    expect(l.drawn('h119')).toBe(true);

    await userEvent.keyboard('{Tab}');
    await waitFor(composerFocused, 'then the composer').catch(() => undefined);
    expect(composerFocused(), 'past the last control: the composer').toBe(true);
  });

  it('Shift+Tab from the composer comes to the newest control, and on back to the older one', async () => {
    await mount();
    // The composer's first control, as a user who clicked there and pressed Shift+Tab.
    const chat = document.querySelector('charla-widget')!.shadowRoot!.querySelector('charla-chat')!;
    const composer = chat.shadowRoot!.querySelector('charla-composer')!;
    tabStops(composer.shadowRoot!)[0]!.focus();
    expect(composerFocused()).toBe(true);

    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    await waitFor(() => focusedHref() === LINK_NEW, 'the newest link').catch(() => undefined);
    expect(focusedHref(), 'Shift+Tab from the composer: the newest message first').toBe(LINK_NEW);

    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    await waitFor(() => focusedHref() === LINK_OLD, 'the old link, rows back').catch(() => undefined);
    expect(focusedHref(), 'Shift+Tab goes back through the rows not drawn').toBe(LINK_OLD);
  });

  it("Tab past the last control, with none in the rows after it, goes to the composer's first control", async () => {
    await mount(null);
    await userEvent.keyboard('{Tab}');
    await waitFor(() => focusedHref() === LINK_OLD, 'the old link');
    await userEvent.keyboard('{Tab}');
    const first = () => tabStops(composerOf().shadowRoot!)[0]!;
    await waitFor(() => deepActive() === first() || null, "the composer's first control").catch(
      () => undefined,
    );
    expect(deepActive(), "the composer's first control (its buttons come before its field)").toBe(first());
  });

  it('Shift+Tab from the composer with no control in the rows drawn comes to the older control, in view', async () => {
    const l = await mount(60, false);
    tabStops(composerOf().shadowRoot!)[0]!.focus();
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    await waitFor(() => focusedHref() === LINK_NEW, 'the link 60 rows up').catch(() => undefined);
    expect(focusedHref()).toBe(LINK_NEW);
    for (let i = 0; i < 6; i++) await nextFrame();
    const box = deepActive()!.getBoundingClientRect();
    const view = l.scroller.getBoundingClientRect();
    expect(box.top, 'in view').toBeGreaterThanOrEqual(view.top - 1);
    expect(box.bottom, 'in view').toBeLessThanOrEqual(view.bottom + 1);
  });

  it('a click in the list while the composer has focus leaves the view and the focus where they are', async () => {
    const l = await mount();
    const before = l.scroller.scrollTop;
    tabStops(composerOf().shadowRoot!)[0]!.focus();
    const link = [...l.scroller.querySelectorAll('charla-message')]
      .flatMap((r) => [...r.querySelectorAll<HTMLAnchorElement>('a[href]')])
      .find((a) => a.href === LINK_OLD)!;
    // Focus by pointer (a click's mousedown), not by Shift+Tab.
    link.addEventListener('click', (e) => e.preventDefault(), { once: true });
    await userEvent.click(link);
    for (let i = 0; i < 8; i++) await nextFrame();
    expect(focusedHref(), 'what was clicked keeps focus').toBe(LINK_OLD);
    expect(Math.abs(l.scroller.scrollTop - before), 'the view stays').toBeLessThan(40);
  });
});
