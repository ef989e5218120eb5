/**
 * Audit fixes in the components: a repeated composer error is announced again (a new alert, not
 * the same text left in place) and is tied to the button it is about; an image's open button says
 * which image it opens.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { within } from '@testing-library/dom';
import '../../../src/define.ts';
import type { CharlaComposer } from '../../../src/components/composer/composer.ts';
import type { CharlaMessage } from '../../../src/components/message/message.ts';
import type { Message } from '../../../types/index.ts';
import { makeContext, msg, settle } from './fixture.ts';
import { mountElement } from './mount.ts';

const realGeolocation = Object.getOwnPropertyDescriptor(navigator, 'geolocation');

afterEach(() => {
  document.body.replaceChildren();
  if (realGeolocation) Object.defineProperty(navigator, 'geolocation', realGeolocation);
  else delete (navigator as { geolocation?: unknown }).geolocation;
});

/** The browser refuses the position (code 1: permission denied), each time it is asked. */
function denyGeolocation(): void {
  Object.defineProperty(navigator, 'geolocation', {
    configurable: true,
    value: {
      getCurrentPosition: (_ok: unknown, fail: (e: { code: number }) => void) => fail({ code: 1 }),
    },
  });
}

describe('<charla-composer> notices said again', () => {
  it('the same refused file twice: a new alert each time, described on the attach button', async () => {
    const { el, q } = await mountElement<CharlaComposer>('charla-composer');
    const exe = () => new File(['x'], 'virus.exe', { type: 'application/x-msdownload' });
    el.sendPickedFile(exe());
    await settle(el);
    const first = q.getByRole('alert');
    expect(first.textContent).toContain('«virus.exe» no es un tipo de archivo admitido.');
    el.sendPickedFile(exe());
    await settle(el);
    const second = q.getByRole('alert');
    expect(second.textContent).toContain('«virus.exe» no es un tipo de archivo admitido.');
    // A live region whose text does not change says nothing: the alert is a new one.
    expect(second).not.toBe(first);
    expect(first.isConnected).toBe(false);
    const attach = q.getByRole('button', { name: 'Adjuntar imagen o documento' });
    const described = attach.getAttribute('aria-describedby');
    expect(described).toBeTruthy();
    expect(el.shadowRoot!.getElementById(described!)?.textContent).toContain('virus.exe');
  });

  it('a second refused location: a new alert, described on the location button', async () => {
    denyGeolocation();
    const { el, q } = await mountElement<CharlaComposer>('charla-composer');
    const location = q.getByRole('button', { name: 'Compartir ubicación' });
    location.click();
    await settle(el);
    const first = q.getByRole('alert');
    expect(first.textContent).toContain('No se pudo obtener tu ubicación: permiso denegado.');
    location.click();
    await settle(el);
    const second = q.getByRole('alert');
    expect(second.textContent).toContain('No se pudo obtener tu ubicación: permiso denegado.');
    expect(second).not.toBe(first);
    const described = location.getAttribute('aria-describedby');
    expect(described).toBeTruthy();
    expect(el.shadowRoot!.getElementById(described!)?.textContent).toContain('permiso denegado');
    // The attach button is not about it.
    expect(
      q.getByRole('button', { name: 'Adjuntar imagen o documento' }).hasAttribute('aria-describedby'),
    ).toBe(false);
    // Dismissed: nothing describes the button any more.
    q.getByRole('button', { name: 'Cerrar aviso' }).click();
    await settle(el);
    expect(q.queryByRole('alert')).toBeNull();
    expect(location.hasAttribute('aria-describedby')).toBe(false);
  });
});

async function showImage(m: Message, language: 'es' | 'en') {
  const f = makeContext();
  const el = document.createElement('charla-message') as CharlaMessage;
  el.message = m;
  el.actions = f.context.actions;
  Object.assign(el, { latest: true, language });
  document.body.append(el);
  await settle(el);
  return within(el);
}

describe('<charla-message> image buttons', () => {
  const image = (caption?: string) =>
    msg({ type: 'IMAGE', mediaUrl: 'https://cdn.example.com/a.png', ...(caption ? { caption } : {}) });

  it('name the image by its caption, in both languages', async () => {
    expect(
      (await showImage(image('Factura de marzo'), 'es')).getByRole('button', {
        name: 'Ver imagen en grande: Factura de marzo',
      }),
    ).toBeTruthy();
    document.body.replaceChildren();
    expect(
      (await showImage(image('March invoice'), 'en')).getByRole('button', {
        name: 'View image larger: March invoice',
      }),
    ).toBeTruthy();
  });

  it('without a caption, the plain name', async () => {
    expect(
      (await showImage(image(), 'es')).getByRole('button', { name: 'Ver imagen en grande' }),
    ).toBeTruthy();
    document.body.replaceChildren();
    expect((await showImage(image(), 'en')).getByRole('button', { name: 'View image larger' })).toBeTruthy();
  });
});
