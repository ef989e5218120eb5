/**
 * A voice note or video whose signed address expires while it plays (its next range is refused)
 * is signed again and goes on from where it was, without a second press of play.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { userEvent } from 'vitest/browser';
import { listOf, makeContext, mountWidget, msg, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

/** Three seconds of a 440 Hz tone; "expired" and "fresh" name the same file (the refusal is the test's). */
const TONE = `${location.origin}/test/browser/fixtures/tone.wav`;

describe('a player whose address expires as it plays', () => {
  it('plays on from where it was once the fresh address loads', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$currentMessages.set([msg({ id: 'voice', type: 'AUDIO', mediaUrl: `${TONE}?expired` })]);
    const widget = await mountWidget(f);
    const { rows } = listOf(widget);
    const row = await waitFor(() => rows()[0], 'row');
    const audio = await waitFor(() => row.querySelector('audio'), 'player');
    await waitFor(() => audio.readyState >= 1, 'metadata');
    // A real key pressed on the page first (the visitor's): the page may play sound from then on.
    // A key, not a click: the page's last input stays the keyboard's, as the next file expects of
    // focus rings (files share the page).
    await userEvent.keyboard('a');
    audio.muted = true;
    await audio.play();
    await waitFor(() => audio.currentTime > 1, 'a second played');
    const at = audio.currentTime;
    // Its next range refused (the address expired): the element's error, as the browser fires it.
    audio.dispatchEvent(new Event('error'));
    await waitFor(() => audio.getAttribute('src')?.endsWith('?fresh'), 'fresh address');
    expect(f.calls.filter((c) => c.name === 'refreshMediaUrl')).toHaveLength(1);
    // The new address's load paused it; playing again is the widget's doing. Where it was, not
    // from the start: checked as soon as it plays again.
    await waitFor(() => !audio.paused, 'playing again');
    expect(audio.currentTime).toBeGreaterThanOrEqual(at - 0.1);
  });

  it('leaves a player that was not playing paused', async () => {
    const f = makeContext({ ui: { open: true } });
    f.stores.$currentMessages.set([msg({ id: 'voice2', type: 'AUDIO', mediaUrl: `${TONE}?expired&n=2` })]);
    const widget = await mountWidget(f);
    const { rows } = listOf(widget);
    const audio = await waitFor(() => rows()[0]?.querySelector('audio'), 'player');
    await waitFor(() => audio.readyState >= 1, 'metadata');
    audio.dispatchEvent(new Event('error'));
    await waitFor(() => audio.getAttribute('src')?.includes('fresh'), 'fresh address');
    await waitFor(() => audio.readyState >= 1, 'fresh metadata');
    await new Promise((r) => setTimeout(r, 300));
    expect(audio.paused).toBe(true);
  });
});
