/**
 * CharlaError: every rejection of the widget library. It carries the
 * interface's error body (from the service, or built here for errors that
 * never reached it) so hosts handle both the same way.
 */
import type { ErrorBody } from '../../types/errors.ts';

/**
 * The catalogue entries the widget builds itself (client-side checks, bodies
 * that are not the error shape). Same codes and texts as types/errors.ts
 * ERRORS (a unit test holds them equal); copied so the browser bundle does
 * not carry the whole catalogue.
 */
export const WIDGET_ERRORS = {
  VALIDATION_ERROR: [
    'E0400',
    'Invalid format or missing required fields.',
    'Formato inválido o faltan campos obligatorios.',
    'Revisa los datos enviados.',
    'Please check the data you sent.',
  ],
  UNAUTHORIZED: [
    'E0401',
    'Invalid or missing credentials.',
    'Credenciales inválidas o ausentes.',
    'No autorizado.',
    'Not authorized.',
  ],
  FORBIDDEN: [
    'E0403',
    'This caller may not perform this operation.',
    'Quien llama no puede realizar esta operación.',
    'No tienes permiso para hacer esto.',
    'You are not allowed to do this.',
  ],
  NOT_FOUND: [
    'E0404',
    'The resource does not exist.',
    'El recurso no existe.',
    'No encontrado.',
    'Not found.',
  ],
  RATE_LIMITED: [
    'E0429',
    'Too many requests.',
    'Demasiadas peticiones.',
    'Vas demasiado rápido; inténtalo en un momento.',
    'Too fast; try again in a moment.',
  ],
  UNKNOWN_ERROR: [
    'E0000',
    'Unexpected failure.',
    'Fallo inesperado.',
    'Algo salió mal.',
    'Something went wrong.',
  ],
} as const satisfies Record<string, readonly [string, string, string, string, string]>;
export type WidgetErrorKey = keyof typeof WIDGET_ERRORS;

/**
 * Keys of errors made on the client (they never come from the service). The
 * script-tag loader makes one more, LOAD_FAILED (E0007, src/widget/boot.ts);
 * E0005 is the API client's INVALID_RESPONSE (src/api/errors.ts).
 */
export type ClientErrorKey =
  'NETWORK_ERROR' | 'TIMEOUT' | 'DESTROYED' | 'NOT_CONNECTED' | 'CONNECTION_DROPPED';

/** Same shape as WIDGET_ERRORS: code, description (en), es, client es, client en. */
const CLIENT_ERRORS: Record<ClientErrorKey, readonly [string, string, string, string, string]> = {
  NETWORK_ERROR: [
    'E0001',
    'The service could not be reached.',
    'Sin conexión con el servicio.',
    'Sin conexión con el servicio.',
    'Cannot reach the service.',
  ],
  TIMEOUT: [
    'E0002',
    'The service did not answer in time.',
    'El servicio no respondió a tiempo.',
    'El servicio no respondió a tiempo.',
    'The service did not answer in time.',
  ],
  DESTROYED: [
    'E0003',
    'The widget instance was destroyed.',
    'El widget fue destruido.',
    'El widget fue destruido.',
    'The widget was destroyed.',
  ],
  NOT_CONNECTED: [
    'E0004',
    'The widget has no session; call connect() first.',
    'El widget no tiene sesión.',
    'El widget no tiene sesión.',
    'The widget is not connected.',
  ],
  CONNECTION_DROPPED: [
    'E0006',
    'The service closed the connection each time this message was sent.',
    'El servicio cerró la conexión cada vez que se envió este mensaje.',
    'No se pudo enviar este mensaje.',
    'This message could not be sent.',
  ],
};

/** The interface's error body for one of WIDGET_ERRORS (or of the client's own errors). */
export function errorBody(
  key: WidgetErrorKey | ClientErrorKey,
  options: { message?: string | string[]; validationError?: Record<string, string> } = {},
): ErrorBody {
  const [code, description, es, clientEs, clientEn] =
    key in CLIENT_ERRORS ? CLIENT_ERRORS[key as ClientErrorKey] : WIDGET_ERRORS[key as WidgetErrorKey];
  return {
    message: options.message ?? description,
    statusMessage: 'failed',
    status: 0,
    error: {
      code,
      key,
      description,
      developerMessages: { es, en: description },
      clientMessages: { es: clientEs, en: clientEn },
    },
    validationError: options.validationError ?? {},
    data: {},
  };
}

/** True when a value has the error body's shape. */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const e = v['error'] as Record<string, unknown> | undefined;
  return v['status'] === 0 && typeof e === 'object' && e !== null && typeof e['code'] === 'string';
}

export class CharlaError extends Error {
  /** The interface's error body. */
  readonly body: ErrorBody;
  /** HTTP status of the response, or 0 when none came. */
  readonly httpStatus: number;

  constructor(body: ErrorBody, httpStatus = 0) {
    const msg = Array.isArray(body.message) ? body.message.join('; ') : body.message;
    super(msg || body.error.description);
    this.name = 'CharlaError';
    this.body = body;
    this.httpStatus = httpStatus;
  }

  /** The error code (`E1126`, `E0400`, ...). */
  get code(): string {
    return this.body.error.code;
  }

  /** The error key (`SIGNED_URL_ERROR`, `VALIDATION_ERROR`, ...). */
  get key(): string {
    return this.body.error.key;
  }

  /**
   * True for failures that a later retry may overcome (network, timeout, 5xx, 429; and the
   * service's 503s in a socket acknowledgement, which has no HTTP status).
   */
  get transient(): boolean {
    return (
      this.key === 'NETWORK_ERROR' ||
      this.key === 'TIMEOUT' ||
      this.key === 'RATE_LIMITED' ||
      this.key === 'SERVICE_UNAVAILABLE' ||
      this.key === 'SERVICE_STOPPING' ||
      this.httpStatus >= 500
    );
  }
}

/** A client-side validation error: rejected before anything is sent. */
export function invalidArgument(message: string, field?: string): CharlaError {
  // httpStatus 0: refused here, no request was made (as charla/api's local refusals).
  return new CharlaError(
    errorBody('VALIDATION_ERROR', { message, validationError: field ? { [field]: message } : {} }),
  );
}

/** An error made on the client (network, timeout, destroyed). */
export function clientError(key: ClientErrorKey, message?: string): CharlaError {
  return new CharlaError(errorBody(key, { message }));
}

const HTTP_ERROR_KEYS: Record<number, WidgetErrorKey> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  429: 'RATE_LIMITED',
};

/** A CharlaError from whatever a response body holds. */
export function errorFromResponse(body: unknown, httpStatus: number): CharlaError {
  if (isErrorBody(body)) return new CharlaError(body, httpStatus);
  const key: WidgetErrorKey =
    HTTP_ERROR_KEYS[httpStatus] ?? (httpStatus >= 500 ? 'UNKNOWN_ERROR' : 'VALIDATION_ERROR');
  return new CharlaError(errorBody(key), httpStatus);
}

/** Wraps anything thrown into a CharlaError (unknown errors become UNKNOWN_ERROR). */
export function toCharlaError(error: unknown): CharlaError {
  if (error instanceof CharlaError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CharlaError(errorBody('UNKNOWN_ERROR', { message }), 0);
}

/** Runs `fn`, turning a synchronous throw into a rejected promise (of a CharlaError). */
export function attempt<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return fn();
  } catch (error) {
    return Promise.reject(toCharlaError(error));
  }
}
