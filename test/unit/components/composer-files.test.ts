/**
 * Files picked in the composer, through the widget's own actions and REST client (as
 * test/unit/composer-upload-cancel.test.ts): the service's HTTP answers come from a stand-in for the
 * network (a fetch given through the options), so a test decides when, and whether, an upload arrives.
 * The socket never connects: a sent message waits in the outbox, where a test reads it.
 */
import { randomUUID } from 'node:crypto';
import { within } from '@testing-library/dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../../src/define.ts';
import type { CharlaComposer } from '../../../src/components/composer/composer.ts';
import { createWidget } from '../../../src/widget/create-widget.ts';
import type { WidgetInstance } from '../../../src/widget/instance.ts';
import { sessionJson, settle } from './fixture.ts';

const BASE = 'http://localhost:9';
const made: WidgetInstance[] = [];
afterEach(() => {
  for (const w of made.splice(0)) w.destroy();
  document.body.replaceChildren();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** An upload as the stand-in holds it: the file's name as sent, and its answer. */
interface HeldUpload {
  name: string;
  answer: (body: unknown, status?: number) => void;
}

/** A stand-in for the service: a session at once; each upload waits for the test, or fails while `down`. */
function service() {
  const net = { uploads: [] as HeldUpload[], down: false };
  const fetchFn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const path = new URL(String(input)).pathname;
    if (path === '/v1/widget/session') {
      return Response.json(sessionJson());
    }
    if (path === '/v1/widget/uploads') {
      // What a browser's fetch does without a network.
      if (net.down) throw new TypeError('Failed to fetch');
      const file = (init.body as FormData).get('file') as File;
      return new Promise<Response>((resolve, reject) => {
        init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        net.uploads.push({
          name: file.name,
          answer: (body, status = 201) => resolve(Response.json(body, { status })),
        });
      });
    }
    return Response.json({}, { status: 404 });
  }) as typeof fetch;
  return { fetchFn, net };
}

async function composer() {
  const { fetchFn, net } = service();
  const w = createWidget({
    apiKey: 'key-0123456789abcdef',
    baseUrl: BASE,
    userId: 'u1',
    fetch: fetchFn,
    namespace: `ns-${randomUUID()}`,
    reconnectionDelay: 60_000,
    container: null,
  });
  made.push(w);
  w.context.actions.selectRoom('bot-room');
  const el = document.createElement('charla-composer') as CharlaComposer;
  el.context = w.context;
  document.body.append(el);
  await settle(el);
  const q = within(el.shadowRoot as unknown as HTMLElement);
  const pick = async (file: File) => {
    el.sendPickedFile(file);
    await settle(el, 6);
  };
  const sent = () => w.context.stores.$currentMessages.get().filter((m) => m.type !== 'TEXT');
  return { w, el, q, pick, net, sent };
}

const pdf = (name: string, body: BlobPart[] = ['%PDF-1.4']) =>
  new File(body, name, { type: 'application/pdf' });

describe('<charla-composer> picked files', () => {
  it('refuses an empty file before uploading, naming it', async () => {
    const { el, q, pick, net, sent, w } = await composer();
    await pick(pdf('empty.pdf', []));
    expect(q.getByRole('alert').textContent).toContain('«empty.pdf» está vacío.');
    await pick(new File([], 'foto.jpg', { type: 'image/jpeg' }));
    expect(q.getByRole('alert').textContent).toContain('«foto.jpg» está vacío.');
    // The notice describes the attach button, as the other refusals do.
    expect(
      q.getByRole('button', { name: 'Adjuntar imagen o documento' }).getAttribute('aria-describedby'),
    ).toBe('notice');
    w.context.actions.setLanguage('en');
    await pick(pdf('empty.pdf', []));
    expect(q.getByRole('alert').textContent).toContain('“empty.pdf” is empty.');
    await settle(el);
    expect(net.uploads).toEqual([]);
    expect(sent()).toEqual([]);
  });

  it('sends a file whose name holds control characters, without them', async () => {
    const { q, pick, net, sent } = await composer();
    await pick(pdf('x\u0000y\u0085\u001f.pdf'));
    await vi.waitFor(() => expect(net.uploads).toHaveLength(1));
    expect(net.uploads[0]!.name).toBe('xy.pdf');
    net.uploads[0]!.answer({ mediaUrl: `${BASE}/v1/media/k1` });
    await vi.waitFor(() => expect(sent()).toHaveLength(1));
    expect(sent()[0]).toMatchObject({ type: 'DOCUMENT', caption: 'xy.pdf' });
    expect(q.queryByRole('alert')).toBeNull();
    // Only the controls go: other characters stay as they were.
    await pick(pdf('Año 2026 — informe ✓.pdf'));
    await vi.waitFor(() => expect(net.uploads).toHaveLength(2));
    expect(net.uploads[1]!.name).toBe('Año 2026 — informe ✓.pdf');
  });

  it('names a file whose name was control characters only in the widget’s language', async () => {
    const { w, pick, net } = await composer();
    await pick(pdf('\u0001\u0002'));
    await vi.waitFor(() => expect(net.uploads).toHaveLength(1));
    expect(net.uploads[0]!.name).toBe('Documento');
    w.context.actions.setLanguage('en');
    await pick(pdf('\u0003'));
    await vi.waitFor(() => expect(net.uploads).toHaveLength(2));
    expect(net.uploads[1]!.name).toBe('Document');
  });

  it('lets a cancelled upload’s note go after a while, or with the next thing done', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    const { el, q, pick, net, sent } = await composer();
    const status = () => q.getAllByRole('status')[0]!.textContent!.trim();
    await pick(pdf('uno.pdf'));
    await pick(pdf('dos.pdf'));
    await vi.waitFor(() => expect(net.uploads).toHaveLength(2));
    q.getByRole('button', { name: 'Cancelar el envío de uno.pdf' }).click();
    await settle(el);
    expect(status()).toContain('Envío de «uno.pdf» cancelado.');
    net.uploads[1]!.answer({ mediaUrl: `${BASE}/v1/media/k2` });
    await vi.waitFor(() => expect(sent()).toHaveLength(1));
    await settle(el);
    vi.advanceTimersByTime(10_000);
    await settle(el);
    expect(status()).toBe('');
    // Cancelled again: said again (a new line, so read again), and typing puts it away.
    await pick(pdf('tres.pdf'));
    await vi.waitFor(() => expect(net.uploads).toHaveLength(3));
    q.getByRole('button', { name: 'Cancelar el envío de tres.pdf' }).click();
    await settle(el);
    expect(status()).toBe('Envío de «tres.pdf» cancelado.');
    const area = q.getByRole('textbox') as HTMLTextAreaElement;
    area.value = 'hola';
    area.dispatchEvent(new Event('input'));
    await settle(el);
    expect(status()).toBe('');
    // Two of one name cancelled in turn: the same words, on a new line, so a screen reader reads them again.
    await pick(pdf('dup.pdf'));
    await pick(pdf('dup.pdf'));
    await vi.waitFor(() => expect(net.uploads).toHaveLength(5));
    const cancel = () => q.getAllByRole('button', { name: 'Cancelar el envío de dup.pdf' })[0]!.click();
    const line = () => el.shadowRoot!.querySelector('.uploads p');
    cancel();
    await settle(el);
    const first = line();
    cancel();
    await settle(el);
    expect(line()?.textContent).toBe('Envío de «dup.pdf» cancelado.');
    expect(line()).not.toBe(first);
  });

  it('says an upload failed for want of a connection, and sends it when the network is back', async () => {
    const { el, q, pick, net, sent } = await composer();
    net.down = true;
    vi.stubGlobal('navigator', { ...navigator, onLine: false });
    await pick(pdf('offline.pdf'));
    await vi.waitFor(() => expect(q.queryByRole('alert')).not.toBeNull());
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain(
      'Sin conexión: «offline.pdf» se enviará cuando vuelva la conexión.',
    );
    // The manual retry stays.
    expect(q.getByRole('button', { name: 'Reintentar' })).toBeTruthy();
    net.down = false;
    vi.stubGlobal('navigator', { ...navigator, onLine: true });
    window.dispatchEvent(new Event('online'));
    await vi.waitFor(() => expect(net.uploads).toHaveLength(1));
    await settle(el);
    expect(q.queryByRole('alert')).toBeNull();
    net.uploads[0]!.answer({ mediaUrl: `${BASE}/v1/media/k1` });
    await vi.waitFor(() => expect(sent()).toHaveLength(1));
    expect(sent()[0]).toMatchObject({ type: 'DOCUMENT', caption: 'offline.pdf' });
    // Once: another 'online' sends nothing again.
    window.dispatchEvent(new Event('online'));
    await settle(el);
    expect(net.uploads).toHaveLength(1);
  });

  it('retries by hand once only: the network coming back afterwards sends nothing more', async () => {
    const { el, q, pick, net } = await composer();
    net.down = true;
    await pick(pdf('offline.pdf'));
    await vi.waitFor(() => expect(q.queryByRole('alert')).not.toBeNull());
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain('Sin conexión');
    net.down = false;
    q.getByRole('button', { name: 'Reintentar' }).click();
    await vi.waitFor(() => expect(net.uploads).toHaveLength(1));
    window.dispatchEvent(new Event('online'));
    await settle(el);
    expect(net.uploads).toHaveLength(1);
  });
});
