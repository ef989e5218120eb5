/**
 * The service side of a benchmark that runs the service in a child process
 * (forked with `--serve`): an in-memory PGlite service on a loopback port with
 * one `normal` widget, announced to the parent as `{ type: 'ready', port,
 * apiKey }`; it closes when the parent goes.
 */
import type { Config } from '../../server/config.ts';

export type ServiceReady = { type: 'ready'; port: number; apiKey: string };

export async function serveChild(options: Partial<Config> = {}): Promise<void> {
  const { buildApp } = await import('../../server/app.ts');
  const app = await buildApp({ databaseUrl: 'memory://', scheduler: false, logger: false, ...options });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = addr && typeof addr === 'object' ? addr.port : 0;
  const res = await fetch(`http://127.0.0.1:${port}/v1/widget/create`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ bot: {}, widget: { properties: { type: 'normal' } } }),
  });
  const body = (await res.json()) as { data: { ApiKey: { key: string } } };
  process.send?.({ type: 'ready', port, apiKey: body.data.ApiKey.key } satisfies ServiceReady);
  process.on('disconnect', () => {
    void app.close().then(() => process.exit(0));
  });
}
