/**
 * A campaign created with a client's own `id` (POST /v1/campaigns) keeps a digest of the request
 * that made it, so that a retry of that request answers the campaign instead of making a second
 * one, and the same id with another request is refused (server/campaigns/service.ts).
 */
import type { Migration } from '../migrate.ts';

export const campaignRequestMigration: Migration = {
  id: '006_campaign_request',
  sql: `ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS request_hash text;`,
};
