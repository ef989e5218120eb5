/**
 * CharlaApiError: every failure of the API client carries the interface's
 * error body, whether the service sent it or the client made it (invalid
 * arguments caught before sending, network failures, timeouts).
 */
import { errorBody, isErrorBody, type ErrorBody, type ErrorKey } from '../../types/errors.ts';

/** Keys of errors made by the client itself; they never come from the service. */
export type ClientErrorKey = 'NETWORK_ERROR' | 'TIMEOUT' | 'INVALID_RESPONSE';

const CLIENT_ERRORS: Record<ClientErrorKey, { code: string; description: string; es: string; en: string }> = {
  NETWORK_ERROR: {
    code: 'E0001',
    description: 'The service could not be reached.',
    es: 'No se pudo contactar con el servicio.',
    en: 'Cannot reach the service.',
  },
  TIMEOUT: {
    code: 'E0002',
    description: 'The service did not answer in time.',
    es: 'El servicio no respondió a tiempo.',
    en: 'The service did not answer in time.',
  },
  INVALID_RESPONSE: {
    code: 'E0005',
    description: 'The service answered with something that is not JSON.',
    es: 'El servicio respondió con algo que no es JSON.',
    en: 'The service answered with something that is not JSON.',
  },
};

/** Where a failed call was going, for messages and logs. */
export interface RequestInfo {
  method: string;
  path: string;
}

export class CharlaApiError extends Error {
  /** The interface's error body (from the service, or made here). */
  readonly body: ErrorBody;
  /** HTTP status of the response; 0 when no response came (invalid arguments, network, timeout). */
  readonly httpStatus: number;
  /** The call that failed; undefined for arguments rejected before any request was built. */
  readonly request: RequestInfo | undefined;

  constructor(body: ErrorBody, httpStatus: number, request?: RequestInfo) {
    const text = Array.isArray(body.message) ? body.message.join('; ') : body.message;
    super(text || body.error.description);
    this.name = 'CharlaApiError';
    this.body = body;
    this.httpStatus = httpStatus;
    this.request = request;
  }

  /** The error code (`E0400`, `E1126`, ...). */
  get code(): string {
    return this.body.error.code;
  }

  /** The error key (`VALIDATION_ERROR`, `SIGNED_URL_ERROR`, ...). */
  get key(): string {
    return this.body.error.key;
  }

  /** Each bad field by its path (`/buttons/options/0/title`), with what is wrong. */
  get validationError(): Record<string, string> {
    return this.body.validationError;
  }

  /**
   * True when nothing was sent: the client rejected the arguments itself
   * (VALIDATION_ERROR, or INVALID_MEDIA_URL for a video address the service
   * would refuse with its 422).
   */
  get local(): boolean {
    return this.httpStatus === 0 && this.request === undefined;
  }
}

/** True for a CharlaApiError (also across bundles, where instanceof may fail). */
export function isCharlaApiError(value: unknown): value is CharlaApiError {
  return (
    value instanceof CharlaApiError ||
    (value instanceof Error && value.name === 'CharlaApiError' && 'body' in value)
  );
}

/** Invalid arguments, caught before sending. */
export function invalidArguments(validationError: Record<string, string>): CharlaApiError {
  const message = Object.entries(validationError).map(([field, what]) => `${field}: ${what}`);
  return new CharlaApiError(errorBody('VALIDATION_ERROR', { message, validationError }), 0);
}

/**
 * A video address refused before sending, with the service's identity for it:
 * INVALID_MEDIA_URL (E1201, which the service answers with HTTP 422), the
 * field's path (`/mediaUrl`, `/message/mediaUrl` in a campaign) and the
 * reason in `validationError` and the message, as the service words them.
 * `httpStatus` stays 0: no response came.
 */
export function invalidMediaUrl(field: string, reason: string): CharlaApiError {
  return new CharlaApiError(
    errorBody('INVALID_MEDIA_URL', {
      message: `The video address (${field}) ${reason}.`,
      validationError: { [field]: reason },
    }),
    0,
  );
}

/** An error made by the client (no usable response). */
export function clientError(key: ClientErrorKey, request: RequestInfo, message?: string): CharlaApiError {
  const d = CLIENT_ERRORS[key];
  const body: ErrorBody = {
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
  };
  return new CharlaApiError(body, 0, request);
}

/** The error for a failed response: its error body when it has one, else one made from the status. */
export function errorFromResponse(body: unknown, httpStatus: number, request: RequestInfo): CharlaApiError {
  if (isErrorBody(body)) return new CharlaApiError(body, httpStatus, request);
  const key: ErrorKey =
    httpStatus === 401
      ? 'UNAUTHORIZED'
      : httpStatus === 403
        ? 'FORBIDDEN'
        : httpStatus === 404
          ? 'NOT_FOUND'
          : httpStatus === 409
            ? 'INVALID_STATE'
            : httpStatus === 413
              ? 'PAYLOAD_TOO_LARGE'
              : httpStatus === 415
                ? 'UNSUPPORTED_CONTENT_TYPE'
                : httpStatus === 422
                  ? 'SIGNED_URL_ERROR'
                  : httpStatus === 429
                    ? 'RATE_LIMITED'
                    : httpStatus >= 500
                      ? 'UNKNOWN_ERROR'
                      : 'VALIDATION_ERROR';
  const data = body === undefined || body === null ? {} : { response: body };
  return new CharlaApiError(
    errorBody(key, { message: `HTTP ${httpStatus} from ${request.method} ${request.path}`, data }),
    httpStatus,
    request,
  );
}
