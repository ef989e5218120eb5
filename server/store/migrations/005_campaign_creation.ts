/**
 * Campaigns written in pieces (server/campaigns/service.ts, createCampaign): a campaign is
 * inserted as CREATING, its recipients are written in short transactions of their own, and one
 * last statement makes it PENDING or SCHEDULED. Until then no reader may see it: the list
 * function below leaves CREATING out (the other readers filter on their own statuses already).
 * While CREATING, claimed_by/claimed_at are the creator's lease (renewed with every piece), so
 * that a sweep can tell an abandoned creation from one in progress in another process.
 *
 * The counts without a status filter are written as all the rows less the CREATING ones: each part
 * is an index-only count (campaigns_bot_created or campaigns_bot_element_created, and
 * campaigns_bot_status_created for the few CREATING rows), where `status <> 'CREATING'` in one
 * count made it read the table (about 0.3 ms more per list call on PGlite, a third more). The
 * pages read the rows anyway: there the condition is a plain filter.
 */
import type { Migration } from '../migrate.ts';

export const campaignCreationMigration: Migration = {
  id: '005_campaign_creation',
  sql: `
CREATE OR REPLACE FUNCTION charla_list_campaigns(p_bot_id text, p_from timestamptz, p_to timestamptz,
  p_status text, p_element_name text, p_limit bigint, p_offset bigint)
RETURNS json LANGUAGE plpgsql STABLE AS $list$
DECLARE
  n bigint;
  page json;
BEGIN
  IF p_status = 'CREATING' THEN
    RETURN json_build_array(0, '[]'::json);
  END IF;
  IF p_status IS NULL AND p_element_name IS NULL THEN
    SELECT (SELECT count(*) FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.created_at >= p_from AND c.created_at < p_to)
      - (SELECT count(*) FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.status = 'CREATING' AND c.created_at >= p_from AND c.created_at < p_to)
    INTO n;
    IF n > p_offset THEN
      SELECT json_agg(json_build_array(c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages,
          c.delivered_messages, c.failed_messages, c.created_at::text, c.completed_at::text, c.scheduled_at::text)
        ORDER BY c.created_at DESC, c.id DESC) INTO page
      FROM (SELECT c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages, c.delivered_messages,
          c.failed_messages, c.created_at, c.completed_at, c.scheduled_at FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.status <> 'CREATING' AND c.created_at >= p_from AND c.created_at < p_to
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
    SELECT (SELECT count(*) FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.element_name = p_element_name AND c.created_at >= p_from AND c.created_at < p_to)
      - (SELECT count(*) FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.status = 'CREATING' AND c.element_name = p_element_name
          AND c.created_at >= p_from AND c.created_at < p_to)
    INTO n;
    IF n > p_offset THEN
      SELECT json_agg(json_build_array(c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages,
          c.delivered_messages, c.failed_messages, c.created_at::text, c.completed_at::text, c.scheduled_at::text)
        ORDER BY c.created_at DESC, c.id DESC) INTO page
      FROM (SELECT c.id, c.name, c.element_name, c.bot_id, c.status, c.total_messages, c.delivered_messages,
          c.failed_messages, c.created_at, c.completed_at, c.scheduled_at FROM campaigns c
        WHERE c.bot_id = p_bot_id AND c.element_name = p_element_name AND c.status <> 'CREATING'
        AND c.created_at >= p_from AND c.created_at < p_to
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
};
