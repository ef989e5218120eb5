/**
 * A widget upload left open: the multipart head of one PDF file is written, announcing
 * `announced` bytes of it; the caller writes what it likes and may drop the line (`req.destroy()`)
 * to cut it short. `ended` settles once the request is over, whichever way.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { ROUTES } from '../../../types/index.ts';

export function openUpload(
  baseUrl: string,
  token: string,
  fileName: string,
  announced: number,
): { req: ClientRequest; ended: Promise<void> } {
  const boundary = 'charla-cut-short';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
      'Content-Type: application/pdf\r\n\r\n',
  );
  const url = new URL(baseUrl + ROUTES.widgetUpload);
  const req = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + announced),
    },
  });
  const ended = new Promise<void>((resolve) => {
    req.on('error', () => resolve());
    req.on('close', () => resolve());
  });
  req.write(head);
  return { req, ended };
}
