/**
 * Serves the built widget (`/charla.js` is the script-tag loader,
 * `/charla.iife.js` the full bundle, `/dist/*` everything built) and the demo
 * pages at `/`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const root = fileURLToPath(new URL('..', import.meta.url));
export const DIST_DIR = join(root, 'dist');
export const DEMO_DIR = join(root, 'demo');

export async function staticPlugin(app: FastifyInstance): Promise<void> {
  if (!existsSync(DIST_DIR)) app.log.warn('dist/ is missing: run `npm run build` to serve the widget.');
  await app.register(fastifyStatic, {
    root: DIST_DIR,
    prefix: '/dist/',
    decorateReply: true,
    // The widget is embedded on other origins.
    setHeaders: (res) => {
      res.header('Access-Control-Allow-Origin', '*');
      res.header('Cross-Origin-Resource-Policy', 'cross-origin');
    },
  });
  const script = (file: string) => async (_req: unknown, reply: import('fastify').FastifyReply) => {
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
    reply.header('Cache-Control', 'no-cache');
    return reply.type('text/javascript; charset=utf-8').sendFile(file, DIST_DIR);
  };
  app.get('/charla.js', script('charla-loader.iife.js'));
  app.get('/charla.iife.js', script('charla.iife.js'));
  if (existsSync(DEMO_DIR)) {
    await app.register(fastifyStatic, { root: DEMO_DIR, prefix: '/', decorateReply: false, index: ['index.html'] });
  }
}
