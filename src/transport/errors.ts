/**
 * CharlaError: every rejection of the widget library. It carries the
 * interface's error body (from the service, or built here for errors that
 * never reached it) so hosts handle both the same way.
 */
import { errorBody, isErrorBody, type ErrorBody } from '../../types/errors.ts';

/** Keys of errors made on the client (they never come from the service). */
export type ClientErrorKey = 'NETWORK_ERROR' | 'TIMEOUT' | 'DESTROYED' | 'NOT_CONNECTED';

const CLIENT_ERRORS: Record<ClientErrorKey, { code: string; description: string; es: string; en: string }> = {
  NETWORK_ERROR: {
    code: 'E0001',
    description: 'The service could not be reached.',
    es: 'Sin conexión con el servicio.',
    en: 'Cannot reach the service.',
  },
  TIMEOUT: {
    code: 'E0002',
    description: 'The service did not answer in time.',
    es: 'El servicio no respondió a tiempo.',
    en: 'The service did not answer in time.',
  },
  DESTROYED: {
    code: 'E0003',
    description: 'The widget instance was destroyed.',
    es: 'El widget fue destruido.',
    en: 'The widget was destroyed.',
  },
  NOT_CONNECTED: {
    code: 'E0004',
    description: 'The widget has no session; call connect() first.',
    es: 'El widget no tiene sesión.',
    en: 'The widget is not connected.',
  },
};

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

  /** True for failures that a later retry may overcome (network, timeout, 5xx, 429). */
  get transient(): boolean {
    return (
      this.key === 'NETWORK_ERROR' ||
      this.key === 'TIMEOUT' ||
      this.key === 'RATE_LIMITED' ||
      this.httpStatus >= 500
    );
  }
}

/** A client-side validation error: rejected before anything is sent. */
export function invalidArgument(message: string, field?: string): CharlaError {
  return new CharlaError(
    errorBody('VALIDATION_ERROR', { message, validationError: field ? { [field]: message } : {} }),
    400,
  );
}

/** An error made on the client (network, timeout, destroyed). */
export function clientError(key: ClientErrorKey, message?: string): CharlaError {
  const d = CLIENT_ERRORS[key];
  return new CharlaError({
    message: message ?? d.description,
    statusMessage: 'failed',
    status: 0,
    error: {
      code: d.code,
      key,
      description: d.description,
      developerMessages: { es: d.es, en: d.description },
      clientMessages: { es: d.es, en: d.en },
    },
    validationError: {},
    data: {},
  });
}

/** A CharlaError from whatever a response body holds. */
export function errorFromResponse(body: unknown, httpStatus: number): CharlaError {
  if (isErrorBody(body)) return new CharlaError(body, httpStatus);
  const key =
    httpStatus === 401
      ? 'UNAUTHORIZED'
      : httpStatus === 403
        ? 'FORBIDDEN'
        : httpStatus === 404
          ? 'NOT_FOUND'
          : httpStatus === 429
            ? 'RATE_LIMITED'
            : httpStatus >= 500
              ? 'UNKNOWN_ERROR'
              : 'VALIDATION_ERROR';
  return new CharlaError(errorBody(key), httpStatus);
}

/** Wraps anything thrown into a CharlaError (unknown errors become UNKNOWN_ERROR). */
export function toCharlaError(error: unknown): CharlaError {
  if (error instanceof CharlaError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CharlaError(errorBody('UNKNOWN_ERROR', { message }), 0);
}
