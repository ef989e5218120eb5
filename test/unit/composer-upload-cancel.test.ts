/**
 * Cancelling an upload from the composer, through the widget's own actions and REST client: the
 * service's HTTP answers come from a stand-in for the network (a fetch given through the options,
 * as in widget/facade.test.ts), so a test decides when the upload's answer arrives.
 */
import { randomUUID } from 'node:crypto';
import { within } from '@testing-library/dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../src/define.ts';
import type { CharlaComposer } from '../../src/components/composer/composer.ts';
import { createWidget } from '../../src/widget/create-widget.ts';
import type { WidgetInstance } from '../../src/widget/instance.ts';
import { errorBody } from '../../types/errors.ts';
import { sessionJson, settle } from './components/fixture.ts';

const BASE = 'http://localhost:9';
const made: WidgetInstance[] = [];
afterEach(() => {
  for (const w of made.splice(0)) w.destroy();
  document.body.replaceChildren();
  vi.unstubAllGlobals();
});

/** The upload's request as the stand-in holds it: answer it, or see that it was aborted. */
interface HeldUpload {
  signal: AbortSignal;
  answer: (body: unknown, status?: number) => void;
}

/** A stand-in for the service: a session at once; each upload waits for the test to answer it. */
function service() {
  const uploads: HeldUpload[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const path = new URL(String(input)).pathname;
    if (path === '/v1/widget/session') {
      return Response.json(sessionJson());
    }
    if (path === '/v1/widget/uploads') {
      return new Promise<Response>((resolve, reject) => {
        const signal = init.signal!;
        signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        uploads.push({ signal, answer: (body, status = 201) => resolve(Response.json(body, { status })) });
      });
    }
    return Response.json(errorBody('NOT_FOUND'), { status: 404 });
  }) as typeof fetch;
  return { fetchFn, uploads };
}

/** A widget (no element of its own, its socket never connects) and a composer with its context. */
async function composerWithUploads() {
  const net = service();
  const w = createWidget({
    apiKey: 'key-0123456789abcdef',
    baseUrl: BASE,
    userId: 'u1',
    fetch: net.fetchFn,
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
  /** Picks an image (as the file input does) and returns its upload once the request is out. */
  const pick = async (name = 'foto.png') => {
    const before = net.uploads.length;
    el.sendPickedFile(new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type: 'image/png' }));
    await vi.waitFor(() => expect(net.uploads).toHaveLength(before + 1));
    await settle(el);
    return net.uploads[before]!;
  };
  const images = () => w.context.stores.$currentMessages.get().filter((m) => m.type === 'IMAGE');
  return { w, el, q, pick, images, net };
}

describe('<charla-composer> cancelling an upload', () => {
  it('aborts the request, takes the progress away, says so politely and sends nothing', async () => {
    const { el, q, pick, images } = await composerWithUploads();
    const upload = await pick();
    expect(q.getByRole('progressbar', { name: 'Subiendo foto.png' })).toBeTruthy();
    q.getByRole('button', { name: 'Cancelar el envío de foto.png' }).click();
    await settle(el);
    expect(upload.signal.aborted).toBe(true);
    expect(q.queryByRole('progressbar')).toBeNull();
    expect(q.queryByRole('button', { name: /Cancelar/ })).toBeNull();
    // No failure notice, no retry: a polite status instead.
    expect(q.queryByRole('alert')).toBeNull();
    expect(q.queryByRole('button', { name: 'Reintentar' })).toBeNull();
    expect(q.getAllByRole('status')[0]!.textContent!.trim()).toBe('Envío de «foto.png» cancelado.');
    expect(images()).toEqual([]);
    // The composer takes the next file (where focus goes is Chromium's test: composer-upload-cancel).
    (await pick('otra.png')).answer({ mediaUrl: `${BASE}/v1/media/otra.png` });
    await vi.waitFor(() => expect(images()).toHaveLength(1));
    expect(q.queryByRole('alert')).toBeNull();
    // A failure is still one: named, with a retry.
    (await pick('mala.png')).answer(errorBody('VALIDATION_ERROR'), 400);
    await vi.waitFor(() => expect(q.queryByRole('alert')).not.toBeNull());
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain('No se pudo enviar «mala.png».');
  });

  it('past the service’s upload allowance (429) says when the file may go, with a retry', async () => {
    const { el, q, pick } = await composerWithUploads();
    (await pick('tarde.png')).answer(errorBody('RATE_LIMITED', { data: { retryAfterMs: 125_000 } }), 429);
    await vi.waitFor(() => expect(q.queryByRole('alert')).not.toBeNull());
    await settle(el);
    expect(q.getByRole('alert').textContent).toContain(
      'Has enviado muchos archivos: podrás enviar «tarde.png» en 3 min.',
    );
    expect(q.getByRole('button', { name: 'Reintentar' })).toBeTruthy();
  });

  it('sends nothing when the file had reached the service as cancel was pressed', async () => {
    const { el, q, pick, images, w } = await composerWithUploads();
    const upload = await pick();
    // The service's answer is in, its handling not yet run: the visitor's cancel comes first.
    upload.answer({ mediaUrl: `${BASE}/v1/media/foto.png` });
    q.getByRole('button', { name: 'Cancelar el envío de foto.png' }).click();
    await settle(el, 6);
    await new Promise((r) => setTimeout(r, 50));
    expect(images()).toEqual([]);
    expect(w.context.stores.$uploads.get()).toEqual([]);
    expect(q.queryByRole('alert')).toBeNull();
    expect(q.getAllByRole('status')[0]!.textContent!.trim()).toBe('Envío de «foto.png» cancelado.');
  });
});
