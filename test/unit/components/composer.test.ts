import { CharlaError } from '../../../src/transport/errors.ts';
import { errorBody } from '../../../types/errors.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { within } from '@testing-library/dom';
import '../../../src/define.ts';
import { classifyFile, type CharlaComposer } from '../../../src/components/composer/composer.ts';
import { MESSAGE_TEXT_MAX, SHORT_TEXT_MAX, UPLOAD_IMAGE_MAX_BYTES } from '../../../types/limits.ts';
import { makeContext, room, settle } from './fixture.ts';
import { mountElement } from './mount.ts';

/**
 * A microphone and MediaRecorder that record at once: stopping gives one chunk ("abc", of
 * `blobType` when given). Answers the microphone's track, to see it released.
 */
function fakeMicrophone(mimeType: string, blobType?: string): { stop: ReturnType<typeof vi.fn> } {
  const track = { stop: vi.fn() };
  class FakeRecorder extends EventTarget {
    state = 'inactive';
    mimeType = mimeType;
    start() {
      this.state = 'recording';
    }
    stop() {
      this.state = 'inactive';
      const data = new Blob(['abc'], blobType ? { type: blobType } : {});
      this.dispatchEvent(Object.assign(new Event('dataavailable'), { data }));
      this.dispatchEvent(new Event('stop'));
    }
  }
  vi.stubGlobal('MediaRecorder', FakeRecorder);
  vi.stubGlobal('navigator', {
    ...navigator,
    mediaDevices: { getUserMedia: () => Promise.resolve({ getTracks: () => [track] }) },
  });
  return track;
}

/** A composer on the page with this context (a new one unless given: another composer of the same widget). */
async function mount(f = makeContext()) {
  const { el } = await mountElement<CharlaComposer>('charla-composer', f);
  const q = within(el.shadowRoot as unknown as HTMLElement);
  const area = q.getByRole('textbox', { name: 'Mensaje' }) as HTMLTextAreaElement;
  const send = q.getByRole('button', { name: 'Enviar' }) as HTMLButtonElement;
  const type = async (text: string) => {
    area.value = text;
    area.dispatchEvent(new Event('input'));
    await settle(el);
  };
  return { ...f, el, q, area, send, type };
}

afterEach(() => {
  document.body.replaceChildren();
  vi.unstubAllGlobals();
});

describe('<charla-composer>', () => {
  it('writes right-to-left text right to left, as its bubble shows it (dir=auto)', async () => {
    const { area } = await mount();
    expect(area.getAttribute('dir')).toBe('auto');
  });

  it('enables send only when there is something to send', async () => {
    const { send, type } = await mount();
    expect(send.disabled).toBe(true);
    await type('   ');
    expect(send.disabled).toBe(true);
    // Invisible characters only (zero-width space, word joiner, a Hangul filler) show nothing either.
    await type('\u200b\u2060\u3164');
    expect(send.disabled).toBe(true);
    await type('Hola');
    expect(send.disabled).toBe(false);
  });

  it('keeps unsent text when the panel closes (the composer goes) and by room', async () => {
    const first = await mount();
    await first.type('borrador para r1');
    // The panel closes: its view, and this composer, go; the next opening makes a new one.
    first.el.remove();
    const { el: again, area } = await mount(first);
    expect(area.value).toBe('borrador para r1');
    // Another room has its own (empty) draft; coming back finds this one.
    first.stores.$currentRoomId.set('r2');
    await settle(again);
    expect(area.value).toBe('');
    first.stores.$currentRoomId.set('r1');
    await settle(again);
    expect(area.value).toBe('borrador para r1');
    // Sent: nothing is kept.
    area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    await settle(again);
    again.remove();
    const third = await mount(first);
    expect(third.area.value).toBe('');
  });

  it('keeps what was typed before the session named the room, once it does', async () => {
    const f = makeContext();
    f.stores.$currentRoomId.set(null);
    const { el, area, type } = await mount(f);
    await type('escrito antes de conectar');
    f.stores.$currentRoomId.set('bot-room');
    await settle(el);
    expect(area.value).toBe('escrito antes de conectar');
    // It is that room's draft now: another room and back finds it there.
    f.stores.$currentRoomId.set('r2');
    await settle(el);
    f.stores.$currentRoomId.set('bot-room');
    await settle(el);
    expect(area.value).toBe('escrito antes de conectar');
  });

  it('sends on Enter and clears the field', async () => {
    const { el, area, type, callsOf } = await mount();
    await type('  Hola  ');
    area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await settle(el);
    expect(callsOf('sendText')[0]!.args).toEqual(['Hola']);
    expect(area.value).toBe('');
  });

  it('puts the words back when the message is refused because the visitor left its room, and only then', async () => {
    const f = makeContext();
    f.stores.$rooms.set([room({ id: 'r1' })]);
    let refuse: (e: unknown) => void = () => undefined;
    f.context.actions.sendText = () => new Promise((_, reject) => (refuse = reject));
    const { el, area, type } = await mount(f);
    /** Types `text` in an empty field and sends it with Enter. */
    const send = async (text: string) => {
      await type('');
      await type(text);
      area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
      await settle(el);
    };
    await send('enviado tras ser expulsada');
    expect(area.value).toBe('');
    // Taken out of the room meanwhile: the room, and the message's bubble with it, are gone (the
    // chat's banner names the message, as the widget's core does).
    f.stores.$rooms.set([]);
    f.stores.$lastError.set({
      message: 'No se pudo enviar «enviado tras ser expulsada»…',
      key: 'NOT_A_MEMBER',
    });
    refuse(new CharlaError(errorBody('NOT_A_MEMBER'), 403));
    await settle(el);
    // The words are not lost.
    expect(area.value).toBe('enviado tras ser expulsada');

    // Refused while the room is still listed (its FAILED bubble shows, with a retry, and the chat's
    // banner says why, as the widget's core does): the field stays.
    f.stores.$rooms.set([room({ id: 'r1' })]);
    f.stores.$lastError.set({ message: 'No formas parte de esa conversación.', key: 'NOT_A_MEMBER' });
    await send('tercero');
    refuse(new CharlaError(errorBody('NOT_A_MEMBER'), 403));
    await settle(el);
    expect(area.value).toBe('');

    // Another refusal (the bubble stays, FAILED with its retry) leaves the field as it is.
    await send('otro');
    refuse(new CharlaError(errorBody('VALIDATION_ERROR'), 400));
    await settle(el);
    expect(area.value).toBe('');
    // Said once, by the chat's banner and the message's own mark: the composer adds no notice of its own.
    expect(el.shadowRoot!.textContent).not.toContain('No se pudo enviar');

    // Refused before the widget made a bubble or a banner (no room yet): said here, the words back.
    f.stores.$lastError.set(null);
    await send('sin sala');
    refuse(new CharlaError(errorBody('VALIDATION_ERROR'), 0));
    await settle(el);
    expect(area.value).toBe('sin sala');
    expect(el.shadowRoot!.textContent).toContain('No se pudo enviar.');
  });

  it('leaves NUL characters out of what it sends (the service would refuse the message)', async () => {
    const { el, area, type, callsOf } = await mount();
    await type('ok\u0000nul');
    area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await settle(el);
    expect(callsOf('sendText')[0]!.args).toEqual(['oknul']);
  });

  it('does not send on Shift+Enter (a new line)', async () => {
    const { area, type, callsOf } = await mount();
    await type('Hola');
    const e = new KeyboardEvent('keydown', { key: 'Enter', shiftKey: true, bubbles: true, cancelable: true });
    area.dispatchEvent(e);
    expect(e.defaultPrevented).toBe(false);
    expect(callsOf('sendText')).toHaveLength(0);
  });

  it('sends with the send button', async () => {
    const { send, type, callsOf } = await mount();
    await type('Hola');
    send.click();
    expect(callsOf('sendText')).toHaveLength(1);
  });

  it('keeps a paste over the limit whole, says so, and sends only once it is short enough', async () => {
    const { el, q, area, send, type, callsOf } = await mount();
    // The status regions (uploads, length) are there, empty, before anything is said in them.
    expect(q.getAllByRole('status').map((r) => r.textContent?.trim())).toEqual(['', '']);
    const long = 'a'.repeat(4990) + ' el final';
    await type(long);
    // Nothing is cut: the field holds all of it, and sending waits.
    expect(area.value).toBe(long);
    expect(area.hasAttribute('maxlength')).toBe(false);
    // Said in a status region (polite, there before its text).
    expect(q.getAllByRole('status').map((r) => r.textContent?.trim())).toContain(
      'El mensaje pasa de 4096 caracteres: acórtalo para enviarlo.',
    );
    expect(q.getByText('4999 / 4096')).toBeTruthy();
    expect(send.disabled).toBe(true);
    area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await settle(el);
    expect(callsOf('sendText')).toHaveLength(0);
    expect(area.value).toBe(long);
    // The field is described by the counter and the notice.
    const described = (area.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => el.shadowRoot!.getElementById(id)?.textContent?.trim())
      .join(' | ');
    expect(described).toBe('4999 / 4096 | El mensaje pasa de 4096 caracteres: acórtalo para enviarlo.');
    // Shortened to the limit: the notice goes, and all of it is sent.
    const fits = 'b'.repeat(MESSAGE_TEXT_MAX);
    await type(fits);
    expect(el.shadowRoot!.textContent).not.toContain('acórtalo');
    expect(q.getByText('4096 / 4096')).toBeTruthy();
    expect(send.disabled).toBe(false);
    area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await settle(el);
    expect(callsOf('sendText')[0]!.args).toEqual([fits]);
  });

  it('shows the counter only near the limit', async () => {
    const { el, area, type } = await mount();
    await type('x'.repeat(3795));
    expect(el.shadowRoot!.textContent).not.toContain('/ 4096');
    expect(area.hasAttribute('aria-describedby')).toBe(false);
    await type('x'.repeat(3800));
    expect(within(el.shadowRoot as unknown as HTMLElement).getByText('3800 / 4096')).toBeTruthy();
  });

  it('counts characters as the service does: an emoji is one', async () => {
    const { el, q, send, type, callsOf } = await mount();
    const emoji = '😀'.repeat(MESSAGE_TEXT_MAX);
    await type(emoji);
    expect(q.getByText('4096 / 4096')).toBeTruthy();
    expect(el.shadowRoot!.textContent).not.toContain('acórtalo');
    send.click();
    expect(callsOf('sendText')[0]!.args).toEqual([emoji]);
    await type(emoji + '😀');
    expect(q.getByText('4097 / 4096')).toBeTruthy();
    expect(send.disabled).toBe(true);
  });

  it('says it in English too, with the number written the English way', async () => {
    const f = makeContext();
    f.stores.$language.set('en');
    const { el } = await mountElement<CharlaComposer>('charla-composer', f);
    const area = el.shadowRoot!.querySelector('textarea')!;
    area.value = 'x'.repeat(5000);
    area.dispatchEvent(new Event('input'));
    await settle(el);
    const q = within(el.shadowRoot as unknown as HTMLElement);
    expect(q.getByText('5,000 / 4,096')).toBeTruthy();
    expect(q.getByText('The message is over 4,096 characters: shorten it to send it.')).toBeTruthy();
  });

  it('disables every input while inputs are disabled, and enables them back', async () => {
    const { el, q, stores, type } = await mount();
    await type('Hola');
    stores.$ui.set({ ...stores.$ui.get(), inputsDisabled: true });
    await settle(el);
    const controls = [
      q.getByRole('textbox', { name: 'Mensaje' }),
      q.getByRole('button', { name: 'Adjuntar imagen o documento' }),
      q.getByRole('button', { name: 'Compartir ubicación' }),
      q.getByRole('button', { name: 'Grabar audio' }),
      q.getByRole('button', { name: 'Enviar' }),
    ] as (HTMLButtonElement | HTMLTextAreaElement)[];
    expect(controls.every((c) => c.disabled)).toBe(true);
    stores.$ui.set({ ...stores.$ui.get(), inputsDisabled: false });
    await settle(el);
    expect(controls.every((c) => !c.disabled)).toBe(true);
  });

  it('checks file type and size before uploading, with a clear message', async () => {
    const { el, q, callsOf } = await mount();
    el.sendPickedFile(new File(['x'], 'virus.exe', { type: 'application/x-msdownload' }));
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain('«virus.exe» no es un tipo de archivo admitido.');
    const big = new File(['x'], 'foto.png', { type: 'image/png' });
    Object.defineProperty(big, 'size', { value: UPLOAD_IMAGE_MAX_BYTES + 1 });
    el.sendPickedFile(big);
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain('«foto.png» pesa demasiado (máximo 8 MB).');
    expect(callsOf('sendFile')).toHaveLength(0);
    const ok = new File(['%PDF'], 'informe.pdf', { type: 'application/pdf' });
    el.sendPickedFile(ok);
    expect(callsOf('sendFile')[0]!.args).toEqual([ok, 'DOCUMENT', 'informe.pdf']);
    // A name past a caption's 1,024 characters is cut before its extension, whole characters only.
    for (const name of [`${'n'.repeat(1100)}.pdf`, `${'😀'.repeat(600)}.pdf`]) {
      const long = new File(['%PDF'], name, { type: 'application/pdf' });
      el.sendPickedFile(long);
      const caption = callsOf('sendFile').at(-1)!.args[2] as string;
      expect(caption.length).toBeLessThanOrEqual(SHORT_TEXT_MAX);
      expect(caption.endsWith('….pdf')).toBe(true);
      expect(caption).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });

  it('shows file names without directional controls (a name cannot pass itself off as another)', async () => {
    const { el, q, stores } = await mount();
    el.sendPickedFile(new File(['x'], 'invoice\u202Efdp.exe', { type: 'application/x-msdownload' }));
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain('«invoicefdp.exe» no es un tipo de archivo admitido.');
    stores.$uploads.set([{ id: 'u1', name: 'foto\u202Egnp.exe', progress: 0.4 }]);
    await settle(el);
    expect(q.getByRole('progressbar', { name: 'Subiendo fotognp.exe' })).toBeTruthy();
  });

  it('classifies images and documents by type', () => {
    expect(classifyFile({ type: 'image/jpeg', size: 10 })).toEqual({ ok: true, type: 'IMAGE' });
    expect(classifyFile({ type: 'application/pdf', size: 10 })).toEqual({ ok: true, type: 'DOCUMENT' });
    expect(classifyFile({ type: 'text/html', size: 10 })).toEqual({ ok: false, reason: 'type' });
  });

  it('shows upload progress from the uploads store', async () => {
    const { el, q, stores } = await mount();
    stores.$uploads.set([{ id: 'u1', name: 'foto.png', progress: 0.4 }]);
    await settle(el);
    const bar = q.getByRole('progressbar', { name: 'Subiendo foto.png' }) as HTMLProgressElement;
    expect(bar.value).toBeCloseTo(0.4);
  });

  it('shares the location', async () => {
    vi.stubGlobal('navigator', {
      ...navigator,
      geolocation: {
        getCurrentPosition: (ok: PositionCallback) =>
          ok({ coords: { latitude: 40.4, longitude: -3.7 } } as GeolocationPosition),
      },
    });
    const { q, callsOf } = await mount();
    q.getByRole('button', { name: 'Compartir ubicación' }).click();
    expect(callsOf('sendLocation')[0]!.args).toEqual([40.4, -3.7]);
  });

  it('says it is finding the location while the browser looks, sends one location for presses meanwhile, and says when it took too long', async () => {
    const pending: Array<[PositionCallback, PositionErrorCallback]> = [];
    vi.stubGlobal('navigator', {
      ...navigator,
      geolocation: {
        getCurrentPosition: (ok: PositionCallback, fail: PositionErrorCallback) => pending.push([ok, fail]),
      },
    });
    const { el, q, callsOf } = await mount();
    const button = q.getByRole('button', { name: 'Compartir ubicación' });
    button.click();
    await settle(el);
    expect(button.getAttribute('aria-busy')).toBe('true');
    const said = () =>
      q
        .getAllByRole('status')
        .map((s) => s.textContent ?? '')
        .join(' ');
    expect(said()).toContain('Buscando tu ubicación…');
    button.click();
    button.click();
    expect(pending).toHaveLength(1);
    pending[0]![0]({ coords: { latitude: 40.4, longitude: -3.7 } } as GeolocationPosition);
    await settle(el);
    expect(callsOf('sendLocation')).toHaveLength(1);
    expect(button.hasAttribute('aria-busy')).toBe(false);
    expect(said()).not.toContain('Buscando');
    // Another press after it asks again; a timeout says so.
    button.click();
    expect(pending).toHaveLength(2);
    pending[1]![1]({ code: 3, message: 'timeout' } as GeolocationPositionError);
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain('No se pudo obtener tu ubicación a tiempo.');
    expect(callsOf('sendLocation')).toHaveLength(1);
  });

  it('gives up after 30 s when the browser never answers (a permission prompt left unanswered): the button is free again, a late answer sends nothing', async () => {
    const pending: PositionCallback[] = [];
    vi.stubGlobal('navigator', {
      ...navigator,
      geolocation: { getCurrentPosition: (ok: PositionCallback) => pending.push(ok) },
    });
    const { el, q, callsOf } = await mount();
    vi.useFakeTimers();
    try {
      const button = q.getByRole('button', { name: 'Compartir ubicación' });
      button.click();
      await vi.advanceTimersByTimeAsync(29_000);
      expect(button.getAttribute('aria-busy')).toBe('true');
      await vi.advanceTimersByTimeAsync(1_000);
      await el.updateComplete;
      expect(button.hasAttribute('aria-busy')).toBe(false);
      expect(q.getByRole('alert').textContent).toContain('No se pudo obtener tu ubicación a tiempo.');
      // The visitor allows it at last: that answer is stale, nothing is sent for it.
      pending[0]!({ coords: { latitude: 1, longitude: 2 } } as GeolocationPosition);
      expect(callsOf('sendLocation')).toHaveLength(0);
      // A new press asks again, and its answer is sent.
      button.click();
      expect(pending).toHaveLength(2);
      pending[1]!({ coords: { latitude: 40.4, longitude: -3.7 } } as GeolocationPosition);
      expect(callsOf('sendLocation')[0]!.args).toEqual([40.4, -3.7]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says so clearly when location is refused', async () => {
    vi.stubGlobal('navigator', {
      ...navigator,
      geolocation: {
        getCurrentPosition: (_ok: PositionCallback, fail: PositionErrorCallback) =>
          fail({ code: 1, message: 'denied' } as GeolocationPositionError),
      },
    });
    const { el, q, callsOf } = await mount();
    q.getByRole('button', { name: 'Compartir ubicación' }).click();
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain('permiso denegado');
    expect(callsOf('sendLocation')).toHaveLength(0);
  });

  it('records audio and sends it as AUDIO', async () => {
    const track = fakeMicrophone('audio/webm;codecs=opus', 'audio/webm');
    const { el, q, callsOf } = await mount();
    q.getByRole('button', { name: 'Grabar audio' }).click();
    await settle(el);
    const stop = q.getByRole('button', { name: 'Detener y enviar audio' });
    // Its name says what it does now; a pressed state as well would say it twice ("Stop, pressed").
    expect(stop.hasAttribute('aria-pressed')).toBe(false);
    stop.click();
    await settle(el);
    const [file, type] = callsOf('sendFile')[0]!.args as [Blob & { name: string }, string];
    expect(type).toBe('AUDIO');
    expect(file.type).toBe('audio/webm');
    expect(file.name).toBe('audio.webm');
    expect(track.stop).toHaveBeenCalled();
  });

  it('shows how long it has been recording, from 0:00, and stops counting when the recording ends', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      fakeMicrophone('audio/webm');
      const { el, q, area } = await mount();
      q.getByRole('button', { name: 'Grabar audio' }).click();
      await settle(el);
      expect(area.placeholder).toBe('Grabando… 0:00');
      vi.advanceTimersByTime(7_000);
      await settle(el);
      expect(area.placeholder).toBe('Grabando… 0:07');
      vi.advanceTimersByTime(65_000);
      await settle(el);
      expect(area.placeholder).toBe('Grabando… 1:12');
      q.getByRole('button', { name: 'Detener y enviar audio' }).click();
      await settle(el);
      expect(area.placeholder).toBe('Mensaje');
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says to screen readers that it is recording; Esc ends the recording unsent and leaves the panel open', async () => {
    const track = fakeMicrophone('audio/webm');
    const { el, q, callsOf } = await mount();
    const status = () =>
      [...el.shadowRoot!.querySelectorAll('[role=status]')].map((s) => s.textContent!.trim()).join('|');
    expect(status()).not.toContain('Grabando');
    q.getByRole('button', { name: 'Grabar audio' }).click();
    await settle(el);
    expect(status()).toContain('Grabando…');
    const reachedPage: string[] = [];
    const onPage = (e: KeyboardEvent) => reachedPage.push(e.key);
    document.addEventListener('keydown', onPage);
    try {
      const stop = q.getByRole('button', { name: 'Detener y enviar audio' });
      stop.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
      await settle(el);
      expect(reachedPage, 'the panel does not see this Esc').toEqual([]);
      expect(track.stop).toHaveBeenCalled();
      expect(callsOf('sendFile')).toHaveLength(0);
      expect(q.getByRole('button', { name: 'Grabar audio' })).toBeTruthy();
      expect(status()).not.toContain('Grabando');
      // Not recording: Esc is the panel's again.
      q.getByRole('button', { name: 'Grabar audio' }).dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }),
      );
      expect(reachedPage).toEqual(['Escape']);

      // Recording again, focus elsewhere in the widget (a message's option): the same, while an
      // Esc in the page outside the widget is the page's.
      const widget = document.createElement('div');
      const inside = widget.attachShadow({ mode: 'open' });
      const option = document.createElement('button');
      document.body.append(widget);
      inside.append(option, el);
      await settle(el);
      q.getByRole('button', { name: 'Grabar audio' }).click();
      await settle(el);
      expect(status()).toContain('Grabando…');
      document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
      expect(reachedPage).toEqual(['Escape', 'Escape']);
      expect(status(), 'an Esc outside the widget leaves the recording').toContain('Grabando…');
      option.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
      await settle(el);
      expect(reachedPage, 'the panel does not see it').toEqual(['Escape', 'Escape']);
      expect(status()).not.toContain('Grabando');
      expect(callsOf('sendFile')).toHaveLength(0);
    } finally {
      document.removeEventListener('keydown', onPage);
    }
  });

  it('drops a recording and releases the microphone when the composer goes away', async () => {
    const track = fakeMicrophone('audio/ogg');
    const { el, q, callsOf } = await mount();
    q.getByRole('button', { name: 'Grabar audio' }).click();
    await settle(el);
    expect(q.getByRole('button', { name: 'Detener y enviar audio' })).toBeTruthy();
    el.remove();
    expect(track.stop).toHaveBeenCalled();
    expect(callsOf('sendFile')).toHaveLength(0);
  });

  it('says so clearly when the microphone is refused', async () => {
    vi.stubGlobal('MediaRecorder', class {});
    vi.stubGlobal('navigator', {
      ...navigator,
      mediaDevices: { getUserMedia: () => Promise.reject(new DOMException('no', 'NotAllowedError')) },
    });
    const { el, q } = await mount();
    q.getByRole('button', { name: 'Grabar audio' }).click();
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain('No se pudo usar el micrófono: permiso denegado.');
  });

  it('says there is no microphone when none is found, and that it could not be used when it fails; "cannot record" only without a recorder', async () => {
    for (const [name, words] of [
      ['NotFoundError', 'No se encontró ningún micrófono.'],
      ['OverconstrainedError', 'No se encontró ningún micrófono.'],
      ['NotReadableError', 'No se pudo usar el micrófono.'],
      ['AbortError', 'No se pudo usar el micrófono.'],
    ]) {
      vi.stubGlobal('MediaRecorder', class {});
      vi.stubGlobal('navigator', {
        ...navigator,
        mediaDevices: { getUserMedia: () => Promise.reject(new DOMException('no', name)) },
      });
      const { el, q } = await mount();
      q.getByRole('button', { name: 'Grabar audio' }).click();
      await settle(el);
      expect(q.getByRole('alert').textContent, name).toContain(words);
      document.body.replaceChildren();
    }
    vi.stubGlobal('MediaRecorder', undefined);
    const { el, q } = await mount();
    q.getByRole('button', { name: 'Grabar audio' }).click();
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain('Tu navegador no permite grabar audio.');
  });
});
