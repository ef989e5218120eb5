/**
 * A paste longer than a message may be, in Chromium (happy-dom applies no maxlength to input): it
 * stays whole in the field, a visible notice and counter say it is too long, and Enter sends
 * nothing until it is short enough; then all of it is sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cdp, userEvent } from 'vitest/browser';
import { MESSAGE_TEXT_MAX } from '../../types/limits.ts';
import { axeViolations, deep, makeContext, mountWidget, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

/** Text put into the focused field as a paste or an input method puts it (maxlength applies). */
const paste = (text: string) => cdp().send('Input.insertText', { text });

const shown = (el: Element | null | undefined) =>
  !!el && el.checkVisibility() && el.getBoundingClientRect().height > 0;

describe('<charla-composer> in Chromium: a paste over the limit', () => {
  it('keeps all of it, says so where it can be seen, and sends only once it fits', async () => {
    const f = makeContext({ ui: { open: true } });
    const widget = await mountWidget(f);
    const composer = deep(widget, 'charla-chat', 'charla-composer')!;
    const root = composer.shadowRoot!;
    const area = root.querySelector('textarea')!;
    const send = root.querySelector<HTMLButtonElement>('[part=send-button]')!;
    area.focus();
    const long = `${'a'.repeat(4990)} el final`;
    await paste(long);
    await waitFor(() => root.querySelector('#too-long'), 'the notice');
    expect(area.value).toBe(long);
    const notice = root.querySelector('#too-long');
    expect(shown(notice)).toBe(true);
    expect(notice!.textContent).toBe('El mensaje pasa de 4096 caracteres: acórtalo para enviarlo.');
    expect(notice!.closest('[role=status]')).not.toBeNull();
    expect(shown(root.querySelector('#count'))).toBe(true);
    expect(root.querySelector('#count')!.textContent).toBe('4999 / 4096');
    expect(send.disabled).toBe(true);
    // The counter and the notice pass axe (contrast among them), WCAG 2.2 AA.
    expect(await axeViolations()).toEqual([]);
    await userEvent.keyboard('{Enter}');
    expect(f.callsOf('sendText')).toHaveLength(0);
    expect(area.value).toBe(long);

    // Shortened to the limit (everything selected, the shorter text pasted over it): sent whole.
    area.select();
    const fits = 'b'.repeat(MESSAGE_TEXT_MAX);
    await paste(fits);
    await waitFor(() => !root.querySelector('#too-long'), 'the notice gone');
    expect(send.disabled).toBe(false);
    await userEvent.keyboard('{Enter}');
    await waitFor(() => f.callsOf('sendText').length > 0, 'sent');
    expect(f.callsOf('sendText')[0]!.args).toEqual([fits]);
  });
});
