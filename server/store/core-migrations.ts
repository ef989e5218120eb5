/** The core schema: companies, bots, widgets, API keys, campaigns, media. */
import type { Migration } from './migrate.ts';
import { campaignCreationMigration } from './migrations/005_campaign_creation.ts';
import { campaignRequestMigration } from './migrations/006_campaign_request.ts';

export const coreMigrations: Migration[] = [
  {
    id: '001_core',
    sql: `
CREATE TABLE IF NOT EXISTS companies (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS bots (
  id text PRIMARY KEY,
  company_id text NOT NULL REFERENCES companies(id),
  name text NOT NULL,
  type text NOT NULL DEFAULT 'bot',
  calling_enabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS widgets (
  id text PRIMARY KEY,
  bot_id text NOT NULL REFERENCES bots(id),
  company_id text NOT NULL REFERENCES companies(id),
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS api_keys (
  id serial PRIMARY KEY,
  widget_id text NOT NULL REFERENCES widgets(id),
  key_hash text NOT NULL UNIQUE,
  state integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS campaigns (
  id text PRIMARY KEY,
  company_id text NOT NULL REFERENCES companies(id),
  name text NOT NULL,
  element_name text NOT NULL,
  bot_id text NOT NULL,
  status text NOT NULL,
  message jsonb NOT NULL,
  scheduled_at timestamptz,
  total_messages integer NOT NULL DEFAULT 0,
  delivered_messages integer NOT NULL DEFAULT 0,
  failed_messages integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  claimed_by text,
  claimed_at timestamptz
);
CREATE INDEX IF NOT EXISTS campaigns_bot_created ON campaigns (bot_id, created_at DESC, id);
CREATE INDEX IF NOT EXISTS campaigns_status_due ON campaigns (status, scheduled_at);
CREATE TABLE IF NOT EXISTS campaign_recipients (
  campaign_id text NOT NULL REFERENCES campaigns(id),
  user_id text NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  message_id text,
  error text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (campaign_id, user_id)
);
CREATE INDEX IF NOT EXISTS campaign_recipients_pending ON campaign_recipients (campaign_id, status);
CREATE TABLE IF NOT EXISTS media (
  key text PRIMARY KEY,
  company_id text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  name text NOT NULL,
  data bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    // The list filters (bot + createdAt range, with status or elementName) and the scheduler's stale-claim scan.
    id: '002_campaign_filters',
    sql: `
CREATE INDEX IF NOT EXISTS campaigns_bot_status_created ON campaigns (bot_id, status, created_at DESC, id);
CREATE INDEX IF NOT EXISTS campaigns_bot_element_created ON campaigns (bot_id, element_name, created_at DESC, id);
CREATE INDEX IF NOT EXISTS campaigns_in_progress_claim ON campaigns (claimed_at) WHERE status = 'IN_PROGRESS';
`,
  },
  {
    // GET /v1/campaigns in one call: the total and the page (rows as arrays, timestamps in their text
    // form), read under one snapshot (STABLE). A PL/pgSQL function keeps the plans of its statements
    // for the session, so a list no longer parses and plans its SQL on every request; one branch per
    // filter shape, so each plan fits its index. The page is not read when it starts past the end.
    id: '003_campaign_list_function',
    sql: `
CREATE OR REPLACE FUNCTION charla_list_campaigns(p_bot_id text, p_from timestamptz, p_to timestamptz,
  p_status text, p_element_name text, p_limit bigint, p_offset bigint)
RETURNS json LANGUAGE plpgsql STABLE AS $list$
DECLARE
  n bigint;
  page json;
BEGIN
  IF p_status IS NULL AND p_element_name IS NULL THEN
    SELECT count(*) INTO n FROM campaigns c
    WHERE c.bot_id = p_bot_id AND c.created_at >= p_from AND c.created_at < p_to;
    IF n > p_offset THEN
      SELECT json_agg(json_build_array(c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages,
          c.delivered_messages, c.failed_messages, c.created_at::text, c.completed_at::text, c.scheduled_at::text)
        ORDER BY c.created_at DESC, c.id DESC) INTO page
      FROM (SELECT c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages, c.delivered_messages,
          c.failed_messages, c.created_at, c.completed_at, c.scheduled_at FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.created_at >= p_from AND c.created_at < p_to
        ORDER BY c.created_at DESC, c.id DESC LIMIT p_limit OFFSET p_offset) c;
    END IF;
  ELSIF p_element_name IS NULL THEN
    SELECT count(*) INTO n FROM campaigns c
    WHERE c.bot_id = p_bot_id AND c.status = p_status AND c.created_at >= p_from AND c.created_at < p_to;
    IF n > p_offset THEN
      SELECT json_agg(json_build_array(c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages,
          c.delivered_messages, c.failed_messages, c.created_at::text, c.completed_at::text, c.scheduled_at::text)
        ORDER BY c.created_at DESC, c.id DESC) INTO page
      FROM (SELECT c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages, c.delivered_messages,
          c.failed_messages, c.created_at, c.completed_at, c.scheduled_at FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.status = p_status AND c.created_at >= p_from AND c.created_at < p_to
        ORDER BY c.created_at DESC, c.id DESC LIMIT p_limit OFFSET p_offset) c;
    END IF;
  ELSIF p_status IS NULL THEN
    SELECT count(*) INTO n FROM campaigns c
    WHERE c.bot_id = p_bot_id AND c.element_name = p_element_name AND c.created_at >= p_from AND c.created_at < p_to;
    IF n > p_offset THEN
      SELECT json_agg(json_build_array(c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages,
          c.delivered_messages, c.failed_messages, c.created_at::text, c.completed_at::text, c.scheduled_at::text)
        ORDER BY c.created_at DESC, c.id DESC) INTO page
      FROM (SELECT c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages, c.delivered_messages,
          c.failed_messages, c.created_at, c.completed_at, c.scheduled_at FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.element_name = p_element_name AND c.created_at >= p_from AND c.created_at < p_to
        ORDER BY c.created_at DESC, c.id DESC LIMIT p_limit OFFSET p_offset) c;
    END IF;
  ELSE
    SELECT count(*) INTO n FROM campaigns c
    WHERE c.bot_id = p_bot_id AND c.status = p_status AND c.element_name = p_element_name AND c.created_at >= p_from AND c.created_at < p_to;
    IF n > p_offset THEN
      SELECT json_agg(json_build_array(c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages,
          c.delivered_messages, c.failed_messages, c.created_at::text, c.completed_at::text, c.scheduled_at::text)
        ORDER BY c.created_at DESC, c.id DESC) INTO page
      FROM (SELECT c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages, c.delivered_messages,
          c.failed_messages, c.created_at, c.completed_at, c.scheduled_at FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.status = p_status AND c.element_name = p_element_name AND c.created_at >= p_from AND c.created_at < p_to
        ORDER BY c.created_at DESC, c.id DESC LIMIT p_limit OFFSET p_offset) c;
    END IF;
  END IF;
  RETURN json_build_array(n, coalesce(page, '[]'::json));
END
$list$;
`,
  },
  {
    // server/signing-keys.ts: a fingerprint of each signing key (never the key), to tell a process
    // that signs with another key than the others of its database.
    id: '004_signing_keys',
    sql: `
CREATE TABLE IF NOT EXISTS signing_keys (
  key_id text PRIMARY KEY,
  fingerprint text NOT NULL,
  instance_id text NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  campaignCreationMigration,
  campaignRequestMigration,
];
