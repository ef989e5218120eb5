import { describe, expect, it } from 'vitest';
import { errorBody } from '../../../types/errors.ts';
import { RestClient } from '../../../src/transport/rest.ts';
import { CharlaError } from '../../../src/transport/errors.ts';

/** A stand-in for the network (not our code): answers by path. */
function network(handler: (url: URL, init: RequestInit) => Response | Promise<Response>) {
  const calls: { url: URL; init: RequestInit }[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    calls.push({ url, init });
    return handler(url, init);
  }) as typeof fetch;
  return { fetchFn, calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('RestClient', () => {
  it('sends JSON with the bearer token and returns the parsed answer', async () => {
    const { fetchFn, calls } = network(() => json(200, { ok: 1 }));
    const rest = new RestClient({ baseUrl: 'https://charla.test', getToken: () => 'tok', fetch: fetchFn });
    expect(await rest.post('/v1/x', { a: 1 }, { query: { limit: 5, id: null } })).toEqual({ ok: 1 });
    const call = calls[0];
    expect(call?.url.href).toBe('https://charla.test/v1/x?limit=5');
    const headers = call?.init.headers as Record<string, string>;
    expect(headers['authorization']).toBe('Bearer tok');
    expect(headers['content-type']).toBe('application/json');
    expect(call?.init.body).toBe('{"a":1}');
  });

  it('rejects with a CharlaError carrying the service error body and status', async () => {
    const body = errorBody('SIGNED_URL_ERROR');
    const { fetchFn } = network(() => json(422, body));
    const rest = new RestClient({ baseUrl: 'https://charla.test', getToken: () => null, fetch: fetchFn });
    const e = await rest.get('/v1/y').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(CharlaError);
    expect((e as CharlaError).httpStatus).toBe(422);
    expect((e as CharlaError).code).toBe('E1126');
    expect((e as CharlaError).body).toEqual(body);
  });

  it('gives a typed error for a body that is not the error shape', async () => {
    const { fetchFn } = network(() => new Response('<html>oops</html>', { status: 502 }));
    const rest = new RestClient({ baseUrl: 'https://charla.test', getToken: () => null, fetch: fetchFn });
    const e = (await rest.get('/v1/y').catch((err: unknown) => err)) as CharlaError;
    expect(e.key).toBe('UNKNOWN_ERROR');
    expect(e.transient).toBe(true);
  });

  it('times out', async () => {
    const { fetchFn } = network(
      (_url, init) =>
        new Promise((_, reject) =>
          init.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    );
    const rest = new RestClient({
      baseUrl: 'https://charla.test',
      getToken: () => null,
      fetch: fetchFn,
      timeoutMs: 20,
    });
    const e = (await rest.get('/v1/slow').catch((err: unknown) => err)) as CharlaError;
    expect(e.key).toBe('TIMEOUT');
  });

  it('reports a network failure as NETWORK_ERROR', async () => {
    const { fetchFn } = network(() => {
      throw new TypeError('fetch failed');
    });
    const rest = new RestClient({ baseUrl: 'https://charla.test', getToken: () => null, fetch: fetchFn });
    const e = (await rest.get('/v1/down').catch((err: unknown) => err)) as CharlaError;
    expect(e.key).toBe('NETWORK_ERROR');
  });

  it('renews the session once after a 401 and retries with the new token', async () => {
    let token = 'old';
    const { fetchFn, calls } = network((_url, init) => {
      const auth = (init.headers as Record<string, string>)['authorization'];
      return auth === 'Bearer new' ? json(200, { fine: true }) : json(401, errorBody('UNAUTHORIZED'));
    });
    let renewals = 0;
    const rest = new RestClient({
      baseUrl: 'https://charla.test',
      getToken: () => token,
      renewSession: async () => {
        renewals++;
        token = 'new';
        return true;
      },
      fetch: fetchFn,
    });
    expect(await rest.get('/v1/z')).toEqual({ fine: true });
    expect(renewals).toBe(1);
    expect(calls).toHaveLength(2);
  });
});

describe('widget error bodies', () => {
  it('are the catalogue entries of types/errors.ts', async () => {
    const { ERRORS, errorBody: catalogueBody } = await import('../../../types/errors.ts');
    const { WIDGET_ERRORS, errorBody: widgetBody } = await import('../../../src/transport/errors.ts');
    for (const key of Object.keys(WIDGET_ERRORS) as (keyof typeof WIDGET_ERRORS)[]) {
      expect(ERRORS[key]).toBeDefined();
      expect(widgetBody(key)).toEqual(catalogueBody(key));
    }
  });
});

describe('CharlaError.transient', () => {
  it('holds for the service’s 503s in a socket acknowledgement, which carries no HTTP status', () => {
    expect(new CharlaError(errorBody('SERVICE_UNAVAILABLE'), 0).transient).toBe(true);
    expect(new CharlaError(errorBody('SERVICE_STOPPING'), 0).transient).toBe(true);
    expect(new CharlaError(errorBody('UNKNOWN_ERROR'), 0).transient).toBe(false);
    expect(new CharlaError(errorBody('NOT_A_MEMBER'), 0).transient).toBe(false);
  });
});
