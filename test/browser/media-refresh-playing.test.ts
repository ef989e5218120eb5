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
    // A real press on the page first (the visitor's): the page may play sound from then on.
    await userEvent.click(row);
    audio.muted = true;
    await audio.play();
    await waitFor(() => audio.currentTime > 0.3, 'playing');
    // Its next range refused (the address expired): the element's error, as the browser fires it.
    audio.dispatchEvent(new Event('error'));
    await waitFor(() => audio.getAttribute('src')?.endsWith('?fresh'), 'fresh address');
    expect(f.calls.filter((c) => c.name === 'refreshMediaUrl')).toHaveLength(1);
    await waitFor(() => !audio.paused && audio.currentTime > 0.3, 'playing on, where it was');
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
