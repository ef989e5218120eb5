/**
 * Serves the built widget (`/charla.js` is the script-tag loader,
 * `/charla.iife.js` the full bundle, `/dist/*` everything built, the demo
 * pages' bundles in `/dist/demo/`) and, with the demo data (config.seedDemo),
 * the demo pages at `/`, the SPA demo also at `/spa/` and every route under it.
 *
 * The demo pages are sent with a strict Content-Security-Policy (no inline
 * script or style, nothing from elsewhere but media), so every visit to the
 * demo shows Charla working under one.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

const root = fileURLToPath(new URL('..', import.meta.url));
export const DIST_DIR = join(root, 'dist');
export const DEMO_DIR = join(root, 'demo');

/**
 * The policy of the demo pages: scripts and styles from this origin only
 * (Charla's styles are constructable stylesheets, which style-src 'self'
 * allows), sockets to this origin, media from this origin or any https host
 * (bot messages may point anywhere public).
 */
export const DEMO_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https:",
  "media-src 'self' blob: https:",
  "connect-src 'self'",
  "font-src 'self'",
  "frame-src 'self'",
  "frame-ancestors 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

function demoHeaders(reply: FastifyReply, path: string): void {
  reply.header('X-Content-Type-Options', 'nosniff');
  if (path.endsWith('.html')) {
    reply.header('Content-Security-Policy', DEMO_CSP);
    reply.header('Cache-Control', 'no-cache');
    reply.header('Referrer-Policy', 'no-referrer');
  }
}

/**
 * Where the built files are read from: dist/, or CHARLA_DIST_DIR (the
 * end-to-end tests serve a snapshot of dist/ so a rebuild running beside
 * them cannot pull files from under a page).
 */
export function distDir(): string {
  return process.env['CHARLA_DIST_DIR'] || DIST_DIR;
}

export async function staticPlugin(app: FastifyInstance): Promise<void> {
  const dist = distDir();
  if (!existsSync(dist)) app.log.warn('dist/ is missing: run `npm run build` to serve the widget.');
  await app.register(fastifyStatic, {
    root: dist,
    prefix: '/dist/',
    decorateReply: true,
    // The widget is embedded on other origins.
    setHeaders: (reply) => {
      reply.header('Access-Control-Allow-Origin', '*');
      reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
      reply.header('X-Content-Type-Options', 'nosniff');
    },
  });
  const script = (file: string) => async (_req: unknown, reply: FastifyReply) => {
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
    reply.header('Cache-Control', 'no-cache');
    return reply.type('text/javascript; charset=utf-8').sendFile(file, dist);
  };
  app.get('/charla.js', script('charla-loader.iife.js'));
  app.get('/charla.iife.js', script('charla.iife.js'));
  // The demo pages embed the demo seed's keys: without its data (CHARLA_SEED_DEMO=0, production)
  // they would be a public shop and QA console whose widgets cannot start.
  if (app.charla.config.seedDemo && existsSync(DEMO_DIR)) {
    await app.register(fastifyStatic, {
      root: DEMO_DIR,
      prefix: '/',
      decorateReply: false,
      index: ['index.html'],
      // The demo's TypeScript sources are built into dist/demo/; they are not pages.
      allowedPath: (pathName) => !pathName.startsWith('/src/'),
      setHeaders: demoHeaders,
    });
    // The SPA demo owns /spa/ and every route below it (history.pushState routes survive a reload).
    const spa = async (_req: unknown, reply: FastifyReply) => {
      reply.header('Content-Security-Policy', DEMO_CSP);
      reply.header('Cache-Control', 'no-cache');
      reply.header('X-Content-Type-Options', 'nosniff');
      return reply.type('text/html; charset=utf-8').sendFile('spa.html', DEMO_DIR);
    };
    app.get('/spa', spa);
    app.get('/spa/', spa);
    app.get('/spa/*', spa);
  }
}
