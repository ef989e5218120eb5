import { afterEach, describe, expect, it } from 'vitest';
import { within } from '@testing-library/dom';
import '../../../src/define.ts';
import type { CharlaMessage } from '../../../src/components/message/message.ts';
import type { Message } from '../../../types/index.ts';
import { makeContext, msg, settle } from './fixture.ts';

/** The download link of a document card. */
async function downloadLink(message: Message, baseUrl?: string): Promise<HTMLAnchorElement> {
  const f = makeContext();
  const el = document.createElement('charla-message') as CharlaMessage;
  el.message = message;
  el.actions = baseUrl ? { ...f.context.actions, baseUrl } : f.context.actions;
  el.latest = true;
  document.body.append(el);
  await settle(el);
  return within(el).getByRole('link', { name: /^Descargar: / }) as HTMLAnchorElement;
}

afterEach(() => document.body.replaceChildren());

// The service's signed address (server/signing.ts), on another origin than the page.
const SIGNED = 'http://127.0.0.1:8080/v1/media/demo/charla.pdf?kid=k1&exp=4102444800&sig=abc-_123';

describe('<charla-message> DOCUMENT download link', () => {
  it('asks the service for an attachment: its own signed address with download=1, signature kept', async () => {
    for (const type of ['DOCUMENT', 'FILE']) {
      const link = await downloadLink(msg({ type, mediaUrl: SIGNED, caption: 'charla.pdf' }));
      const href = new URL(link.getAttribute('href')!);
      expect(href.origin + href.pathname).toBe('http://127.0.0.1:8080/v1/media/demo/charla.pdf');
      expect(Object.fromEntries(href.searchParams)).toEqual({
        kid: 'k1',
        exp: '4102444800',
        sig: 'abc-_123',
        download: '1',
      });
      expect(link.hasAttribute('download')).toBe(true);
      document.body.replaceChildren();
    }
  });

  it('asks for an attachment from a service served under a path too (its base address, not only its origin)', async () => {
    const mediaUrl = 'https://shop.example/chat/v1/media/up/informe.pdf?kid=k1&exp=4102444800&sig=abc';
    const link = await downloadLink(
      msg({ type: 'DOCUMENT', mediaUrl, caption: 'informe.pdf' }),
      'https://shop.example/chat',
    );
    expect(new URL(link.getAttribute('href')!).searchParams.get('download')).toBe('1');
  });

  it("leaves another host's address as it is (a parameter could break its own signature)", async () => {
    for (const mediaUrl of [
      'https://cdn.example.com/docs/informe.pdf?X-Amz-Signature=abc',
      // A media path without the service's signature is not the service's either.
      'https://cdn.example.com/v1/media/informe.pdf',
    ]) {
      const link = await downloadLink(msg({ type: 'DOCUMENT', mediaUrl, caption: 'informe.pdf' }));
      expect(link.getAttribute('href')).toBe(mediaUrl);
      document.body.replaceChildren();
    }
  });
});
