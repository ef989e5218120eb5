/**
 * The interface's error body and the catalogue of error identifiers. No
 * imports: the widget and the API client read these directly.
 */
import type { Language } from './enums.ts';

/** Text keyed by language code. */
export type LocalizedText = Partial<Record<Language, string>> & Record<string, string>;

/** Error body shape of every failed HTTP operation and rejected socket event. */
export interface ErrorBody {
  message: string | string[];
  /** `failed` on failure. */
  statusMessage: string;
  /** 0 on failure. */
  status: number;
  error: {
    code: string;
    key: string;
    description: string;
    developerMessages: LocalizedText;
    clientMessages: LocalizedText;
  };
  /** Each bad field by its path (`/buttons/options/0/title`), with what is wrong. */
  validationError: Record<string, string>;
  data: { message?: string } & Record<string, unknown>;
}

/** One entry of the catalogue. */
export interface ErrorDefinition {
  httpStatus: number;
  code: string;
  key: string;
  description: string;
  developerMessages: { es: string; en: string };
  clientMessages: { es: string; en: string };
}

function def(
  httpStatus: number,
  code: string,
  key: string,
  description: string,
  es: string,
  clientEs: string,
  clientEn: string,
): ErrorDefinition {
  return {
    httpStatus,
    code,
    key,
    description,
    developerMessages: { es, en: description },
    clientMessages: { es: clientEs, en: clientEn },
  };
}

/**
 * Every error the service answers with. E1126 and E0000 are the interface's;
 * the other codes are ours (documented in the README).
 */
export const ERRORS = {
  VALIDATION_ERROR: def(
    400,
    'E0400',
    'VALIDATION_ERROR',
    'Invalid format or missing required fields.',
    'Formato inválido o faltan campos obligatorios.',
    'Revisa los datos enviados.',
    'Please check the data you sent.',
  ),
  UNAUTHORIZED: def(
    401,
    'E0401',
    'UNAUTHORIZED',
    'Invalid or missing credentials.',
    'Credenciales inválidas o ausentes.',
    'No autorizado.',
    'Not authorized.',
  ),
  FORBIDDEN: def(
    403,
    'E0403',
    'FORBIDDEN',
    'This caller may not perform this operation.',
    'Quien llama no puede realizar esta operación.',
    'No tienes permiso para hacer esto.',
    'You are not allowed to do this.',
  ),
  ORIGIN_NOT_ALLOWED: def(
    403,
    'E0431',
    'ORIGIN_NOT_ALLOWED',
    "The request's origin is not allowed by the widget's credentials.",
    'El origen de la petición no está permitido por las credenciales del widget.',
    'Este sitio no puede usar este chat.',
    'This site may not use this chat.',
  ),
  NOT_A_MEMBER: def(
    403,
    'E0432',
    'NOT_A_MEMBER',
    'The user is not a member of this room.',
    'El usuario no es miembro de esta sala.',
    'No perteneces a esta conversación.',
    'You are not part of this conversation.',
  ),
  SIGNATURE_INVALID: def(
    403,
    'E0433',
    'SIGNATURE_INVALID',
    'The signed address is expired or altered.',
    'La dirección firmada ha caducado o fue alterada.',
    'Este archivo ya no está disponible.',
    'This file is no longer available.',
  ),
  CALLING_NOT_ENABLED: def(
    403,
    'E1204',
    'CALLING_NOT_ENABLED',
    'The calling setting is not enabled for this bot.',
    'La configuración de llamadas no está activada para este bot.',
    'Las llamadas no están disponibles.',
    'Calls are not available.',
  ),
  NOT_FOUND: def(
    404,
    'E0404',
    'NOT_FOUND',
    'The resource does not exist.',
    'El recurso no existe.',
    'No encontrado.',
    'Not found.',
  ),
  METHOD_NOT_ALLOWED: def(
    405,
    'E0405',
    'METHOD_NOT_ALLOWED',
    'This method is not allowed on this path (the Allow header lists those that are).',
    'Este método no está permitido en esta ruta (la cabecera Allow dice cuáles lo están).',
    'Operación no admitida.',
    'Operation not supported.',
  ),
  INVALID_STATE: def(
    409,
    'E0409',
    'INVALID_STATE',
    'The resource is not in a state that allows this operation.',
    'El recurso no está en un estado que permita esta operación.',
    'Ya no se puede hacer esto.',
    'This can no longer be done.',
  ),
  PAYLOAD_TOO_LARGE: def(
    413,
    'E0413',
    'PAYLOAD_TOO_LARGE',
    'The request body or file is too large.',
    'El cuerpo de la petición o el archivo es demasiado grande.',
    'Lo que enviaste es demasiado grande.',
    'What you sent is too large.',
  ),
  EXPECTATION_FAILED: def(
    417,
    'E0417',
    'EXPECTATION_FAILED',
    "The request's Expect header asks for something the service does not do (it takes 100-continue only).",
    'La cabecera Expect de la petición pide algo que el servicio no hace (solo acepta 100-continue).',
    'La petición no es válida.',
    'The request is not valid.',
  ),
  UNSUPPORTED_CONTENT_TYPE: def(
    415,
    'E0415',
    'UNSUPPORTED_CONTENT_TYPE',
    'Content-Type must be application/json.',
    'Content-Type debe ser application/json.',
    'Formato de envío no admitido.',
    'Unsupported request format.',
  ),
  SIGNED_URL_ERROR: def(
    422,
    'E1126',
    'SIGNED_URL_ERROR',
    'The signed address could not be generated.',
    'No se pudo generar la dirección firmada.',
    'No se pudo obtener el archivo.',
    'The file could not be retrieved.',
  ),
  INVALID_MEDIA_URL: def(
    422,
    'E1201',
    'INVALID_MEDIA_URL',
    'The media address is invalid or unreachable.',
    'La dirección del archivo no es válida o no responde.',
    'No se pudo acceder al archivo.',
    'The file could not be reached.',
  ),
  MEDIA_TOO_LARGE: def(
    422,
    'E1202',
    'MEDIA_TOO_LARGE',
    'The media file is over 16 MB.',
    'El archivo supera los 16 MB.',
    'El archivo es demasiado grande.',
    'The file is too large.',
  ),
  UNSUPPORTED_MEDIA_TYPE: def(
    422,
    'E1203',
    'UNSUPPORTED_MEDIA_TYPE',
    'The media format is not supported.',
    'El formato del archivo no está admitido.',
    'Formato de archivo no admitido.',
    'Unsupported file format.',
  ),
  RANGE_NOT_SATISFIABLE: def(
    416,
    'E0416',
    'RANGE_NOT_SATISFIABLE',
    'The requested range is outside the file.',
    'El rango pedido está fuera del archivo.',
    'No se pudo obtener esa parte del archivo.',
    'That part of the file could not be retrieved.',
  ),
  REQUEST_TIMEOUT: def(
    408,
    'E0408',
    'REQUEST_TIMEOUT',
    'The request did not arrive in time.',
    'La petición no llegó a tiempo.',
    'La conexión es demasiado lenta; inténtalo de nuevo.',
    'The connection is too slow; try again.',
  ),
  HEADERS_TOO_LARGE: def(
    431,
    'E0434',
    'HEADERS_TOO_LARGE',
    'The request line or headers are too large (16 KB at most).',
    'La línea de petición o las cabeceras son demasiado grandes (16 KB como máximo).',
    'La petición es demasiado grande.',
    'The request is too large.',
  ),
  RATE_LIMITED: def(
    429,
    'E0429',
    'RATE_LIMITED',
    'Too many requests.',
    'Demasiadas peticiones.',
    'Vas demasiado rápido; inténtalo en un momento.',
    'Too fast; try again in a moment.',
  ),
  SERVICE_UNAVAILABLE: def(
    503,
    'E0503',
    'SERVICE_UNAVAILABLE',
    'The service lost its storage for a moment (the database is unreachable or dropped the connection). Try again after Retry-After (data.retryAfterMs).',
    'El servicio perdió su almacenamiento por un momento (la base de datos no responde o cortó la conexión). Inténtalo de nuevo tras Retry-After (data.retryAfterMs).',
    'El servicio no está disponible en este momento.',
    'The service is unavailable right now.',
  ),
  SERVICE_STOPPING: def(
    503,
    'E0531',
    'SERVICE_STOPPING',
    'This server is shutting down and took no part of the request. Try again after Retry-After (data.retryAfterMs), on a new connection.',
    'Este servidor se está deteniendo y no atendió la petición. Inténtalo de nuevo tras Retry-After (data.retryAfterMs), con una conexión nueva.',
    'El servicio se está reiniciando.',
    'The service is restarting.',
  ),
  UNKNOWN_ERROR: def(
    500,
    'E0000',
    'UNKNOWN_ERROR',
    'Unexpected failure.',
    'Fallo inesperado.',
    'Algo salió mal.',
    'Something went wrong.',
  ),
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorKey = keyof typeof ERRORS;

/** Builds the interface's error body for a catalogue entry. */
export function errorBody(
  key: ErrorKey,
  options: {
    message?: string | string[];
    validationError?: Record<string, string>;
    data?: Record<string, unknown>;
  } = {},
): ErrorBody {
  const d = ERRORS[key];
  return {
    message: options.message ?? d.description,
    statusMessage: 'failed',
    status: 0,
    error: {
      code: d.code,
      key: d.key,
      description: d.description,
      developerMessages: { ...d.developerMessages },
      clientMessages: { ...d.clientMessages },
    },
    validationError: options.validationError ?? {},
    data: options.data ?? {},
  };
}

/** True when a value has the error body's shape (used by clients on any response). */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const e = v['error'] as Record<string, unknown> | undefined;
  return v['status'] === 0 && typeof e === 'object' && e !== null && typeof e['code'] === 'string';
}
