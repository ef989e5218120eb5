/**
 * Identity verification (credentials.identityVerification): the hash a
 * business's backend puts in its page next to the user id, so the widget's
 * session proves the page was made for that user. Lowercase hex of
 * HMAC-SHA256(identitySecret, userId); Web Crypto, so it runs in Node 20+,
 * Deno, Bun and workers alike. Keep identitySecret on the server.
 */
export async function userHash(identitySecret: string, userId: string): Promise<string> {
  if (typeof identitySecret !== 'string' || identitySecret.length === 0)
    throw new TypeError('userHash: identitySecret must be a non-empty string');
  if (typeof userId !== 'string' || userId.length === 0)
    throw new TypeError('userHash: userId must be a non-empty string');
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    'raw',
    enc.encode(identitySecret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, enc.encode(userId)));
  let hex = '';
  for (const byte of mac) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
