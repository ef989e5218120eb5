/**
 * The composer at 320 px (the full-screen panel of a small phone): its placeholder, the field's only
 * visible label, is shown whole, in both languages and while a voice note records.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { page } from 'vitest/browser';
import { deep, makeContext, mountWidget, waitFor } from './helpers.ts';

afterEach(() => {
  vi.restoreAllMocks();
  document.body.replaceChildren();
});

/** The placeholder's width in the field's own font against the room its padding leaves. */
function placeholderFits(area: HTMLTextAreaElement): { text: string; width: number; room: number } {
  const style = getComputedStyle(area);
  const ctx = document.createElement('canvas').getContext('2d')!;
  ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const room = area.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return { text: area.placeholder, width: ctx.measureText(area.placeholder).width, room };
}

async function composerAt320(language: 'es' | 'en') {
  await page.viewport(320, 640);
  const f = makeContext({ ui: { open: true } });
  f.stores.$language.set(language);
  const widget = await mountWidget(f);
  const composer = deep(widget, 'charla-chat', 'charla-composer')!;
  const area = () => composer.shadowRoot!.querySelector('textarea')!;
  return { composer, area };
}

describe('<charla-composer> at 320 px', () => {
  for (const [language, name] of [
    ['es', 'Mensaje'],
    ['en', 'Message'],
  ] as const) {
    it(`shows its whole placeholder and keeps the field's name (${language})`, async () => {
      const { area } = await composerAt320(language);
      const fit = placeholderFits(area());
      expect(fit.text).not.toBe('');
      expect(fit.width, `"${fit.text}" in ${fit.room.toFixed(0)} px`).toBeLessThanOrEqual(fit.room);
      expect(area().getAttribute('aria-label')).toBe(name);
    });
  }

  it('shows its whole placeholder while a voice note records', async () => {
    // A real stream and recorder, from a silent audio graph instead of a microphone.
    const stream = new AudioContext().createMediaStreamDestination().stream;
    vi.spyOn(navigator.mediaDevices, 'getUserMedia').mockResolvedValue(stream);
    const { composer, area } = await composerAt320('es');
    (composer.shadowRoot!.querySelector('[part=mic-button]') as HTMLButtonElement).click();
    // With the time recorded so far ("Grabando… 0:00"): the longest it gets before ten minutes.
    await waitFor(() => /^Grabando… \d+:\d\d$/.test(area().placeholder), 'the recording placeholder');
    const fit = placeholderFits(area());
    expect(fit.width, `"${fit.text}" in ${fit.room.toFixed(0)} px`).toBeLessThanOrEqual(fit.room);
    // Stop and discard are there, and the field keeps its name.
    expect(composer.shadowRoot!.querySelector('[part=discard-button]')).not.toBeNull();
    expect(area().getAttribute('aria-label')).toBe('Mensaje');
  });
});
