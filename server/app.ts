/**
 * buildApp(options): the whole service — HTTP routes, socket gateway, storage —
 * without listening. server/main.ts listens; tests listen on port 0.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { defaultConfig, type Config } from './config.ts';
import { openDb } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import { createSigner } from './signing.ts';
import { recordSigningKeys } from './signing-keys.ts';
import { SCHEMA_MIGRATIONS } from './schema.ts';
import { ApiError, installErrorHandling, sendError } from './http/errors.ts';
import { installJsonParser } from './http/json.ts';
import { validatorCompiler } from './http/validation.ts';
import { ERRORS, errorBody } from '../types/errors.ts';
import type { Charla, Messaging } from './context.ts';
import { httpRoutes } from './routes/index.ts';
import { healthRoutes } from './routes/health.ts';
import { livePlugin } from './live/index.ts';
import { staticPlugin } from './static.ts';
import { seedDemo } from './seed.ts';
import { registerOpenApi } from './openapi.ts';

export type CharlaApp = FastifyInstance;

export async function buildApp(options: Partial<Config> = {}): Promise<FastifyInstance> {
  const config: Config = { ...defaultConfig(), ...options };
  const app = Fastify({
    logger: config.logger,
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Starting over a large embedded store (its statistics, the start's sweeps) may take more than
    // fastify's 10 s for a plugin: past it the start failed on every attempt.
    pluginTimeout: 120_000,
    // Requests arriving during shutdown get the interface's 503 SERVICE_STOPPING (server/http/errors.ts), not fastify's own body.
    return503OnClosing: false,
    // A request must arrive whole in time (a stalled body held its socket for ever): past the
    // limit Node's parser raises ERR_HTTP_REQUEST_TIMEOUT, answered 408 by clientErrorHandler.
    // Node looks for late requests every connectionsCheckingInterval (30 s by default), a tenth
    // of the limit here; its headers limit (60 s) may not exceed the whole request's.
    requestTimeout: config.requestTimeoutMs,
    http: {
      // A request without Host gets the interface's error body (server/http/errors.ts), not Node's bare 400.
      requireHostHeader: false,
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.floor(config.requestTimeoutMs / 10))),
    },
    // Path ids may be 200 characters (Id), %-encoded up to 12 bytes each; longer ones reach frameworkErrors.
    routerOptions: { maxParamLength: 2400 },
    // Errors the router raises before any route runs (a malformed %-escape, an overlong path
    // parameter) leave as the interface's error body too.
    // What Node's HTTP parser refuses (headers over 16 KB, malformed requests, too slow) answers the
    // interface's error body too, instead of fastify's own.
    clientErrorHandler(error, socket) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || socket.destroyed) return;
      const key =
        code === 'HPE_HEADER_OVERFLOW'
          ? 'HEADERS_TOO_LARGE'
          : code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? 'REQUEST_TIMEOUT'
            : 'VALIDATION_ERROR';
      const message = key === 'VALIDATION_ERROR' ? 'The request is not valid HTTP.' : undefined;
      const body = JSON.stringify(
        errorBody(key, { ...(message ? { message, validationError: { '/': message } } : {}) }),
      );
      const status = ERRORS[key].httpStatus;
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n` +
            `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
    frameworkErrors: (error, _request, reply) => {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'A path parameter is too long.'
          : error.code === 'FST_ERR_BAD_URL'
            ? 'The request path is not a valid URL (malformed percent-encoding).'
            : error.message;
      void sendError(
        reply,
        new ApiError('VALIDATION_ERROR', { message, validationError: { 'params:/': message } }),
      );
    },
    ajv: {
      customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: true, useDefaults: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // An Expect header other than 100-continue: Node answers a bare 417 unless someone listens; the
  // interface's error body instead (the connection closed, as the body, if any, was never read).
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const expect = String(request.headers.expect).slice(0, 100);
    const message = `The Expect header "${expect}" is not supported: the service takes 100-continue only.`;
    const body = JSON.stringify(errorBody('EXPECTATION_FAILED', { message }));
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
  });

  // Shutting down waits for responses still being written, up to the grace period: then every
  // connection left open is closed (a client that stopped reading a download held close(), and
  // the process's exit on SIGTERM, for as long as it liked).
  app.addHook('preClose', (done) => {
    const force = setTimeout(() => app.server.closeAllConnections(), config.shutdownGraceMs);
    force.unref();
    app.server.once('close', () => clearTimeout(force));
    done();
  });

  const db = await openDb({
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    dataDir: config.dataDir,
    storeTemplate: config.storeTemplate,
    reuseStores: config.reuseStores,
    warn: (message, err) => app.log.warn({ err }, message),
  });
  app.addHook('onClose', async () => {
    await db.close();
  });
  await migrate(db, SCHEMA_MIGRATIONS);
  await db.query('INSERT INTO companies (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
    config.companyId,
    config.companyName,
  ]);
  for (const warning of await recordSigningKeys(db, config.signingKeys, config.instanceId))
    app.log.warn(warning);

  const baseUrlFor = (request?: FastifyRequest) => {
    if (config.publicBaseUrl) return config.publicBaseUrl.replace(/\/$/, '');
    if (request) return `${request.protocol}://${request.host}`;
    const addr = app.server.address();
    const port = addr && typeof addr === 'object' ? addr.port : config.port;
    return `http://${config.host}:${port}`;
  };
  const charla: Charla = {
    config,
    db,
    signer: createSigner(config.signingKeys),
    messaging: undefined as unknown as Messaging,
    baseUrlFor,
    ownBaseUrls: (request) => {
      const urls = new Set([baseUrlFor(request), baseUrlFor()]);
      if (config.publicBaseUrl) urls.add(config.publicBaseUrl);
      return [...urls];
    },
  };
  app.decorate('charla', charla);
  installErrorHandling(app);
  // Every route, the server-side operations' and the widget API's alike: bodies checked as sent
  // (no coercion, server/http/validation.ts) and JSON only, UTF-8 (server/http/json.ts).
  app.setValidatorCompiler(validatorCompiler());
  installJsonParser(app);

  // At the root, before any route, so the document sees every plugin's routes.
  await registerOpenApi(app);
  await app.register(healthRoutes);
  await app.register(livePlugin);
  await app.register(httpRoutes);
  if (config.serveStatic) await app.register(staticPlugin);
  if (config.seedDemo) app.addHook('onReady', async () => seedDemo(app));
  return app;
}
