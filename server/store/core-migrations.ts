/** The core schema: companies, bots, widgets, API keys, campaigns, media. */
import type { Migration } from './migrate.ts';

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
];
