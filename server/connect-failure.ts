/**
 * Why a first connection (PostgreSQL, Redis) failed, in a few words for the one line a failed
 * start prints: the system's code (ECONNREFUSED, ENOTFOUND…), else the server's or client's own
 * message; a client's timeout as "no answer within N s".
 */
export function connectFailure(err: unknown, timeoutMs: number): string {
  const e = err as { code?: unknown; message?: unknown; errors?: { code?: unknown }[] };
  const code = e.code ?? e.errors?.[0]?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  const message = String(e.message ?? err);
  return /timeout/i.test(message) ? `no answer within ${timeoutMs / 1000} s` : message;
}
