/**
 * ApiError and the error handler: every failure leaves as the interface's
 * error body with the right status; a client's mistake is never a 500.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, errorBody, type ErrorBody, type ErrorKey } from '../../types/index.ts';
import { PATTERN_MESSAGES } from '../../types/schemas/common.ts';

export class ApiError extends Error {
  readonly key: ErrorKey;
  readonly httpStatus: number;
  readonly body: ErrorBody;
  constructor(
    key: ErrorKey,
    options: {
      message?: string;
      validationError?: Record<string, string>;
      data?: Record<string, unknown>;
    } = {},
  ) {
    super(options.message ?? ERRORS[key].description);
    this.name = 'ApiError';
    this.key = key;
    this.httpStatus = ERRORS[key].httpStatus;
    this.body = errorBody(key, options);
  }
}

/** A 400 naming each bad field. */
export function validationFailed(validationError: Record<string, string>, message?: string): ApiError {
  const fields = Object.keys(validationError);
  return new ApiError('VALIDATION_ERROR', {
    message:
      message ?? (fields.length ? fields.map((f) => `${f}: ${validationError[f]}`).join('; ') : undefined),
    validationError,
  });
}

interface AjvLikeError {
  instancePath?: string;
  schemaPath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

const quote = (v: unknown) => JSON.stringify(v);

/**
 * Turns Ajv/TypeBox errors into { '/path/to/field': 'what is wrong' }, in
 * words a caller can act on: an enumeration names its values (not "must be
 * equal to constant"), a closed object names the fields it does not take
 * (not "schema is false" for each), and "one of these fields" is said as
 * such (not "must match a schema in anyOf").
 */
export function validationMap(errors: readonly AjvLikeError[], prefix = ''): Record<string, string> {
  const fieldOf = (e: AjvLikeError) => `${prefix}${e.instancePath ?? ''}` || '/';
  // What the alternatives of one field allow: constants, or single required properties.
  const allowed = new Map<string, string[]>();
  const oneOf = new Map<string, string[]>();
  const other = new Set<string>();
  // Fields a closed object does not take, by that object's path.
  const notAllowed = new Map<string, string[]>();
  for (const e of errors) {
    const field = fieldOf(e);
    if (e.keyword === 'const') {
      allowed.set(field, [...(allowed.get(field) ?? []), quote(e.params?.['allowedValue'])]);
    } else if (e.keyword === 'required' && /\/anyOf\/\d+$/.test(e.schemaPath ?? '')) {
      const many = e.params?.['requiredProperties'];
      const one = e.params?.['missingProperty'];
      const names = Array.isArray(many) ? many : typeof one === 'string' ? [one] : [];
      if (names.length === 1) oneOf.set(field, [...(oneOf.get(field) ?? []), String(names[0])]);
      else other.add(field);
    } else if (e.keyword === 'boolean' && e.message === 'schema is false') {
      const path = e.instancePath ?? '';
      const cut = path.lastIndexOf('/');
      const parent = `${prefix}${path.slice(0, cut)}` || '/';
      notAllowed.set(parent, [...(notAllowed.get(parent) ?? []), path.slice(cut + 1)]);
    } else if (e.keyword === 'additionalProperties') {
      const extra = e.params?.['additionalProperties'] ?? e.params?.['additionalProperty'];
      const names = (Array.isArray(extra) ? extra : [extra]).filter((n) => typeof n === 'string');
      if (names.length) notAllowed.set(field, names);
    } else if (e.keyword !== 'anyOf') other.add(field);
  }
  const out: Record<string, string> = {};
  for (const [field, values] of allowed) {
    const plain = values.map((v) => (v.startsWith('"') ? v.slice(1, -1) : v));
    out[field] = values.length === 1 ? `must be ${values[0]}` : `must be one of ${plain.join(', ')}`;
  }
  for (const [field, names] of oneOf)
    if (!other.has(field) && !(field in out)) out[field] = `must have at least one of ${names.join(', ')}`;
  for (const [field, names] of notAllowed)
    if (!(field in out)) out[field] = `does not take ${[...new Set(names)].join(', ')}`;
  for (const e of errors) {
    const path = e.instancePath ?? '';
    if (e.keyword === 'const' || e.keyword === 'boolean') continue;
    if (e.keyword === 'anyOf' && fieldOf(e) in out) continue;
    if (e.keyword === 'required') {
      if (/\/anyOf\/\d+$/.test(e.schemaPath ?? '') && fieldOf(e) in out) continue;
      // Ajv names one missing property, TypeBox all of them: one entry per field.
      const one = e.params?.['missingProperty'];
      const many = e.params?.['requiredProperties'];
      const names =
        typeof one === 'string'
          ? [one]
          : Array.isArray(many)
            ? many.filter((m) => typeof m === 'string')
            : [];
      for (const name of names) {
        const field = `${prefix}${path}/${name}`;
        if (!(field in out)) out[field] = 'is required';
      }
      if (names.length) continue;
    }
    const field = fieldOf(e);
    const pattern = e.keyword === 'pattern' ? e.params?.['pattern'] : undefined;
    const words = typeof pattern === 'string' ? PATTERN_MESSAGES[pattern] : undefined;
    if (!(field in out)) out[field] = words ?? e.message ?? 'is invalid';
  }
  return out;
}

export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  // A 503 says when to come back (RFC 9110 §10.2.3), as its body's data.retryAfterMs does.
  const wait = err.body.data['retryAfterMs'];
  if (err.httpStatus === 503 && typeof wait === 'number') reply.header('retry-after', Math.ceil(wait / 1000));
  return reply.code(err.httpStatus).type('application/json').send(err.body);
}

/** How long a 503 asks its caller to wait before trying again. */
export const RETRY_AFTER_MS = 1_000;

/**
 * A 503 whose caller may simply try again: SERVICE_UNAVAILABLE (the storage is out of reach for
 * a moment) or SERVICE_STOPPING (this server is shutting down), with `data.retryAfterMs` (and
 * `Retry-After` over HTTP).
 */
export function serviceUnavailable(
  key: 'SERVICE_UNAVAILABLE' | 'SERVICE_STOPPING' = 'SERVICE_UNAVAILABLE',
): ApiError {
  return new ApiError(key, { data: { retryAfterMs: RETRY_AFTER_MS } });
}

/**
 * SQLSTATEs of a database that is out of reach for now: class 08 (connection exception), the
 * server ending the connection (57P01 admin_shutdown: pg_terminate_backend or a restart; 57P02
 * crash_shutdown; 57P03 cannot_connect_now: starting up or in recovery) or out of connections.
 */
const UNREACHABLE_SQLSTATES = /^(?:08[0-9A-Z]{3}|57P0[123]|53300)$/;
/** Node's errors of a connection that could not be made or was cut. */
const UNREACHABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);
/**
 * What node-postgres and pg-pool say, without a code, when a connection ended under a query, none
 * could be had in time (the pool's connectionTimeoutMillis: "timeout exceeded when trying to
 * connect" waiting for one, "Connection terminated due to connection timeout" opening one), or a
 * query had no answer within its query_timeout ("Query read timeout": a database that stopped
 * answering; server/store/db.ts).
 */
const UNREACHABLE_MESSAGES =
  /^(?:Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error and is not queryable|Connection ended unexpectedly)/;

/**
 * True when a storage error means the database could not be reached or dropped the connection
 * (a restart, a failover, pg_terminate_backend, a cut network, a pool that could not connect in
 * time, a query without an answer in time): the same operation may well succeed in a moment, so it is a 503 SERVICE_UNAVAILABLE to
 * try again, not an UNKNOWN_ERROR. The embedded store never fails this way.
 */
export function storageUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4 || err instanceof ApiError) return false;
  const { code, message, cause, errors } = err as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (UNREACHABLE_SQLSTATES.test(code) || UNREACHABLE_ERRNOS.has(code)))
    return true;
  if (typeof message === 'string' && UNREACHABLE_MESSAGES.test(message)) return true;
  // Node's connection attempt to each address of a host (AggregateError), or a wrapped cause.
  if (Array.isArray(errors) && errors.some((e) => storageUnavailable(e, depth + 1))) return true;
  return cause !== undefined && storageUnavailable(cause, depth + 1);
}

/**
 * A 401 names the scheme that would be accepted (RFC 9110 `WWW-Authenticate`):
 * Bearer on the widget API; Basic on the server-side operations, except to a
 * script in a browser (`Sec-Fetch-Dest: empty`), whose browser
 * would put its own login box over the page instead of letting the script
 * handle the 401.
 */
function challenge(request: FastifyRequest, reply: FastifyReply): void {
  // The widget API takes a session's Bearer token; widget creation, under the same prefix, is a
  // server-side operation (Basic).
  if (request.url.startsWith('/v1/widget/') && !/^\/v1\/widget\/create(?:[/?]|$)/.test(request.url)) {
    reply.header('www-authenticate', 'Bearer realm="Charla"');
    return;
  }
  // What a browser sends with a script's fetch or XMLHttpRequest (Node's fetch sends no Sec-Fetch-Dest).
  if (request.headers['sec-fetch-dest'] === 'empty') return;
  reply.header('www-authenticate', 'Basic realm="Charla", charset="UTF-8"');
}

/**
 * A refusal made before the widget API's own hooks run is readable by the page that asked, as
 * the widget API's other answers are (server/live/widget-routes.ts: CORS for the caller's origin).
 */
function readableByWidgetPage(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && request.url.startsWith('/v1/widget/'))
    reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
}

/** Headers a request may give once only: two are a 400 naming them (Host also when absent). */
const ONCE_ONLY_HEADERS = new Set(['host', 'content-type', 'authorization']);
const headerName = (name: string) => name.replace(/(^|-)[a-z]/g, (c) => c.toUpperCase());

export function installErrorHandling(app: FastifyInstance): void {
  // Once shutdown begins, a request still arriving (on a keep-alive connection, or pipelined) is
  // refused with the interface's error body, 503 SERVICE_STOPPING with Retry-After, and its
  // connection closed: fastify's own answer (return503OnClosing, turned off in app.ts) is a body
  // of its own shape. Nothing of it runs, so the caller may send it again elsewhere.
  let stopping = false;
  app.addHook('preClose', (done) => {
    stopping = true;
    done();
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!stopping) return;
    readableByWidgetPage(request, reply);
    reply.header('connection', 'close');
    throw serviceUnavailable('SERVICE_STOPPING');
  });
  // RFC 9112 §3.2: an HTTP/1.1 request without Host, or any request with more than one, is a
  // 400; so is one with two Content-Type or Authorization headers. Node's own answer to a missing
  // Host is a bare 400 without a body (requireHostHeader is off in app.ts so that the request
  // reaches here), and it takes a second Host silently.
  app.addHook('onRequest', async (request, reply) => {
    const raw = request.raw;
    let hosts = 0;
    let twice: string[] | undefined;
    const seen: Record<string, number> = {};
    for (let i = 0; i < raw.rawHeaders.length; i += 2) {
      const name = raw.rawHeaders[i]?.toLowerCase() ?? '';
      if (!ONCE_ONLY_HEADERS.has(name)) continue;
      if (name === 'host') hosts++;
      if ((seen[name] = (seen[name] ?? 0) + 1) === 2) (twice ??= []).push(name);
    }
    const http10 = raw.httpVersionMajor === 1 && raw.httpVersionMinor === 0;
    if (hosts === 0 && !http10) {
      readableByWidgetPage(request, reply);
      throw validationFailed({ 'headers:/host': 'is required' }, 'The Host header is required.');
    }
    // Node keeps the first of two and drops the other: a second Content-Type (text/plain after
    // application/json) or Authorization would be ignored where it must be refused.
    if (twice) {
      readableByWidgetPage(request, reply);
      throw validationFailed(
        Object.fromEntries(twice.map((name) => [`headers:/${name}`, 'must be given once'])),
        `The ${twice.map(headerName).join(' and ')} header${twice.length > 1 ? 's' : ''} must be given once.`,
      );
    }
  });
  // A query string of the interface's operations is percent-encoded UTF-8, as the path is (the
  // router refuses a malformed path): `botId=%FF` or a lone `%` was read as literal text and
  // matched nothing (200, empty) instead of saying the input is not UTF-8.
  app.addHook('onRequest', async (request, reply) => {
    const url = request.url;
    const q = url.indexOf('?');
    if (q < 0 || !url.startsWith('/v1/')) return;
    for (const part of url.slice(q + 1).split('&')) {
      try {
        decodeURIComponent(part.replace(/\+/g, ' '));
      } catch {
        const eq = part.indexOf('=');
        const name = eq < 0 ? part : part.slice(0, eq);
        let field = '';
        try {
          field = decodeURIComponent(name.replace(/\+/g, ' '));
        } catch {
          // the name itself is malformed: the query as a whole is named
        }
        readableByWidgetPage(request, reply);
        throw validationFailed(
          { [`querystring:/${field}`]: 'must be percent-encoded UTF-8' },
          'The query string is not valid percent-encoded UTF-8.',
        );
      }
    }
  });
  // Every route's path as a pattern with its methods, to tell a wrong method (405) from a path
  // nothing answers (404). The static files' catch-all (`/*`) would take any path, and the widget
  // API's CORS preflight (`OPTIONS /v1/widget/*`) answers only preflights: both left out; a
  // wildcard under a prefix (`/v1/media/*`) is kept.
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = ([] as string[]).concat(route.method);
    if (route.url === '/*' || (route.url.includes('*') && methods.every((m) => m === 'OPTIONS'))) return;
    const source = route.url
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/:[^/]+/g, '[^/]+')
      .replace(/\*/g, '.*');
    routes.push({ pattern: new RegExp(`^${source}/?$`), methods });
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      if (error.httpStatus === 401) challenge(request, reply);
      return sendError(reply, error);
    }
    if (error.validation) {
      const ctx = error.validationContext ?? 'body';
      const prefix = ctx === 'body' ? '' : `${ctx}:`;
      const fields = (error as { fields?: Record<string, string> }).fields;
      const map = fields
        ? Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${prefix}${k}`, v]))
        : validationMap(error.validation as AjvLikeError[], prefix);
      return sendError(reply, validationFailed(map));
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, new ApiError('UNSUPPORTED_CONTENT_TYPE'));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
      case 'FST_REQ_FILE_TOO_LARGE':
        return sendError(reply, new ApiError('PAYLOAD_TOO_LARGE'));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, validationFailed({ '/': 'body must be a JSON object' }, 'Body is empty.'));
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, validationFailed({ '/': 'invalid content length' }));
    }
    const status = error.statusCode ?? 500;
    if (status === 400 || error instanceof SyntaxError) {
      return sendError(reply, validationFailed({ '/': error.message }, 'Body is not valid JSON.'));
    }
    if (status === 413) return sendError(reply, new ApiError('PAYLOAD_TOO_LARGE'));
    if (status === 415) return sendError(reply, new ApiError('UNSUPPORTED_CONTENT_TYPE'));
    // The static files' refusals (`//etc/passwd`, `/demo/../../x`, a NUL): nothing is there to find.
    if (status === 404 || status === 403) return sendError(reply, new ApiError('NOT_FOUND'));
    if (status === 429) return sendError(reply, new ApiError('RATE_LIMITED'));
    if (status >= 400 && status < 500) {
      return sendError(reply, validationFailed({ '/': error.message }, error.message));
    }
    if (storageUnavailable(error)) {
      request.log.warn({ err: error }, 'storage unreachable: answered 503 SERVICE_UNAVAILABLE');
      return sendError(reply, serviceUnavailable());
    }
    request.log.error({ err: error }, 'unexpected failure');
    return sendError(reply, new ApiError('UNKNOWN_ERROR'));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods));
    if (allowed.size > 0 && !allowed.has(request.method)) {
      const allow = [...allowed].sort().join(', ');
      reply.header('allow', allow);
      return sendError(
        reply,
        new ApiError('METHOD_NOT_ALLOWED', {
          message: `${request.method} is not allowed on ${path}: ${allow}.`,
        }),
      );
    }
    return sendError(reply, new ApiError('NOT_FOUND', { message: `No route ${request.method} ${path}` }));
  });
}
