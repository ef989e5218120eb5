/** Identity verification in service tests: the userHash a business's backend makes, and sessions opened with any body. */
import { createHmac } from 'node:crypto';
import { ROUTES, type ErrorBody } from '../../../types/index.ts';
import type { SessionResult } from '../../../types/schemas/widget-api.ts';
import type { LiveHarness } from './live.ts';

/** The userHash of a user id: the hex HMAC-SHA256 of the id under the API key's identitySecret. */
export const hashOf = (secret: string, userId: string): string =>
  createHmac('sha256', secret).update(userId, 'utf8').digest('hex');

/** POST /v1/widget/session with `body` as given: the status, and the session or the error body. */
export async function openSession(
  h: LiveHarness,
  body: Record<string, unknown>,
): Promise<{ status: number; body: SessionResult & ErrorBody }> {
  const res = await h.call('POST', ROUTES.widgetSession, { body });
  return { status: res.status, body: (await res.json()) as SessionResult & ErrorBody };
}
