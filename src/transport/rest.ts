/**
 * REST client of the widget's own API: fetch with a timeout, JSON in and out,
 * the session's bearer token, and a CharlaError carrying the service's error
 * body on any failure. A 401 on an authenticated call reopens the session once
 * and retries.
 */
import { clientError, errorFromResponse, CharlaError } from './errors.ts';
import { stringify } from '../util/json.ts';

export interface RestOptions {
  baseUrl: string;
  /** Current session token, or null before the session opens. */
  getToken: () => string | null;
  /** Opens a new session after a 401; resolves true when a new token is there. */
  renewSession?: () => Promise<boolean>;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined | null>;
  /** Send the bearer token (default true). */
  auth?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface UploadOptions extends RequestOptions {
  /**
   * The share of the file sent so far (0 to 1), where the browser tells it
   * (XMLHttpRequest; fetch cannot). An upload times out only after timeoutMs
   * without progress, so a large file on a slow line is not cut off.
   */
  onProgress?: (sent: number) => void;
}

export const DEFAULT_TIMEOUT_MS = 15_000;

export class RestClient {
  readonly #options: RestOptions;
  readonly #controllers = new Set<AbortController>();

  constructor(options: RestOptions) {
    this.#options = options;
  }

  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  /** Full URL of a path with its query string. */
  url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(this.#options.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    }
    return url.href;
  }

  get<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return this.request<T>('GET', path, options);
  }

  post<T>(path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.request<T>('POST', path, { ...options, body });
  }

  /** One request; a 401 with a token renews the session once and retries. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    try {
      return await this.#once<T>(method, path, options);
    } catch (error) {
      const renew = this.#options.renewSession;
      if (
        error instanceof CharlaError &&
        error.httpStatus === 401 &&
        options.auth !== false &&
        renew &&
        (await renew().catch(() => false))
      ) {
        return this.#once<T>(method, path, options);
      }
      throw error;
    }
  }

  /** Sends a multipart form (uploads); same errors as request(). */
  async upload<T>(path: string, form: FormData, options: UploadOptions = {}): Promise<T> {
    if (this.#options.fetch || typeof XMLHttpRequest !== 'function')
      return this.#once<T>('POST', path, { ...options, body: form });
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const xhr = new XMLHttpRequest();
    const controller = new AbortController();
    this.#controllers.add(controller);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        xhr.abort();
      }, timeoutMs);
    };
    const abort = () => xhr.abort();
    controller.signal.addEventListener('abort', abort);
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        xhr.open('POST', this.url(path, options.query));
        xhr.setRequestHeader('accept', 'application/json');
        const token = options.auth !== false && this.#options.getToken();
        if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
        xhr.upload.onprogress = (e) => {
          idle();
          if (e.lengthComputable && e.total > 0) options.onProgress?.(e.loaded / e.total);
        };
        xhr.onprogress = idle;
        xhr.onload = () => resolve(xhr.status);
        xhr.onerror = () => reject(clientError('NETWORK_ERROR'));
        xhr.onabort = () =>
          reject(
            timedOut
              ? clientError('TIMEOUT', `POST ${path} made no progress for ${timeoutMs} ms`)
              : clientError('DESTROYED', `POST ${path} was aborted`),
          );
        idle();
        xhr.send(form);
      });
      return this.#read<T>(status, xhr.responseText);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      this.#controllers.delete(controller);
    }
  }

  /** Aborts every request in flight (destroy). */
  abortAll(): void {
    for (const c of this.#controllers) c.abort();
    this.#controllers.clear();
  }

  async #once<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    const doFetch = this.#options.fetch ?? globalThis.fetch.bind(globalThis);
    const controller = new AbortController();
    this.#controllers.add(controller);
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const headers: Record<string, string> = { accept: 'application/json' };
    let body: BodyInit | undefined;
    if (options.body instanceof FormData) {
      body = options.body;
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = stringify(options.body);
    }
    if (options.auth !== false) {
      const token = this.#options.getToken();
      if (token) headers['authorization'] = `Bearer ${token}`;
    }

    let response: Response;
    try {
      response = await doFetch(this.url(path, options.query), {
        method,
        headers,
        body: body ?? null,
        signal: controller.signal,
        credentials: 'omit',
      });
    } catch (error) {
      if (timedOut) throw clientError('TIMEOUT', `${method} ${path} timed out after ${timeoutMs} ms`);
      if (controller.signal.aborted) throw clientError('DESTROYED', `${method} ${path} was aborted`);
      throw clientError('NETWORK_ERROR', error instanceof Error ? error.message : undefined);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      this.#controllers.delete(controller);
    }

    return this.#read<T>(response.status, await response.text().catch(() => ''));
  }

  /** A response's body as JSON (or text), or its CharlaError when it is not a success. */
  #read<T>(status: number, text: string): T {
    let parsed: unknown = undefined;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (status < 200 || status > 299) throw errorFromResponse(parsed, status);
    return parsed as T;
  }
}
