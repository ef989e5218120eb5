/**
 * Campaigns: create, list, cancel, update. State changes are conditional
 * UPDATEs (`... WHERE status = 'SCHEDULED'`), so a cancel and the scheduler's
 * claim can never both win: whichever commits first decides, and the other
 * sees the new state. A campaign is written hidden (CREATING) and shown by one
 * statement once all its recipients are stored: see createCampaign.
 */
import { createHash, randomUUID } from 'node:crypto';
import { canonicalJson } from '../../types/canonical-json.ts';
import { types as pgliteTypes } from '@electric-sql/pglite';
import pg from 'pg';
import type {
  BotMessageContent,
  Campaign,
  CampaignCreateBody,
  CampaignListQuery,
  CampaignStatus,
  Pagination,
} from '../../types/index.ts';
import { CAMPAIGN_LIST_LIMIT_DEFAULT, CAMPAIGN_LIST_PAGE_DEFAULT } from '../../types/index.ts';
import type { Charla } from '../context.ts';
import { ApiError, validationFailed } from '../http/errors.ts';
import { prepareBotMessage } from '../bot-message.ts';
import { refuseBotIds } from '../live/rooms.ts';
import { DATE_MESSAGES, parseDate } from '../../types/dates.ts';
import { listRange } from './dates.ts';
import { letOthersRun } from '../store/db.ts';

export interface CampaignRow {
  id: string;
  company_id: string;
  name: string;
  element_name: string;
  bot_id: string;
  status: CampaignStatus;
  message: BotMessageContent;
  scheduled_at: Date | string | null;
  total_messages: number;
  delivered_messages: number;
  failed_messages: number;
  created_at: Date | string;
  updated_at: Date | string;
  completed_at: Date | string | null;
  claimed_by: string | null;
  claimed_at: Date | string | null;
}

const iso = (v: Date | string): string => (v instanceof Date ? v : new Date(v)).toISOString();
const isoOrNull = (v: Date | string | null): string | null => (v === null ? null : iso(v));

/** The wire form of a campaign row. */
export function toCampaign(row: CampaignRow): Campaign {
  return {
    id: row.id,
    name: row.name,
    elementName: row.element_name,
    botId: row.bot_id,
    status: row.status,
    totalMessages: Number(row.total_messages),
    deliveredMessages: Number(row.delivered_messages),
    failedMessages: Number(row.failed_messages),
    createdAt: iso(row.created_at),
    completedAt: isoOrNull(row.completed_at),
    scheduledAt: isoOrNull(row.scheduled_at),
  };
}

const COLUMNS =
  'id, name, element_name, bot_id, status, total_messages, delivered_messages, failed_messages, created_at, completed_at, scheduled_at';

/** A future instant from a zoned date-time, or 400 naming the field. */
function futureInstant(text: string, field: string, now = Date.now()): Date {
  const parsed = parseDate(text);
  if (!parsed || parsed.dateOnly || !parsed.zoned) {
    throw validationFailed({ [field]: DATE_MESSAGES.realZoned });
  }
  if (parsed.ms <= now) throw validationFailed({ [field]: 'must be in the future' });
  return new Date(parsed.ms);
}

/** Who hears that a PENDING campaign exists (the scheduler of this process). */
export type CampaignListener = (campaignId: string) => void;
const listeners = new WeakMap<Charla, CampaignListener>();
export function onCampaignCreated(charla: Charla, listener: CampaignListener | null): void {
  if (listener) listeners.set(charla, listener);
  else listeners.delete(charla);
}

/**
 * The status of a campaign whose recipients are still being written. No reader sees it: the list
 * leaves it out (charla_list_campaigns, migration 005), cancel and update answer 404 as for a
 * campaign that does not exist, the scheduler claims only SCHEDULED, PENDING and IN_PROGRESS.
 * Not a status of the interface: it never leaves the service.
 */
export const CREATING = 'CREATING';

/**
 * A creation's lease. While a campaign is CREATING, claimed_by names its creation and claimed_at
 * is renewed by every piece of recipients written (each takes a fraction of a second); a CREATING
 * campaign whose lease is older than this was left by a process that died or lost its storage
 * mid-way, and sweepAbandonedCampaigns deletes it. Long, so that a creation in progress in
 * another process, however slowed down, is never taken for an abandoned one.
 */
export const CREATION_LEASE_MS = 5 * 60_000;

/**
 * Recipients written per statement, each statement a transaction of its own, the event loop let
 * go between them. On the embedded store (PGlite runs on this thread, one query at a time, a
 * transaction holds it whole) one transaction for all of them held back every other request's
 * queries for the whole creation: 4 to 7 s for 100,000 recipients (measured on the 2-core
 * development machine). Between two pieces the queries of other requests run; the campaign stays
 * CREATING (hidden) until one last statement makes it PENDING or SCHEDULED, so no reader ever
 * sees half a campaign.
 */
const RECIPIENTS_PER_INSERT = 2_000;
/** Recipients of an abandoned creation deleted per statement (as they were written: in pieces). */
const RECIPIENTS_PER_DELETE = 2_000;

/** A creation that lost its lease (a sweep took it for abandoned): it writes nothing more. */
class CreationAbandoned extends Error {
  constructor(campaignId: string) {
    super(`campaign ${campaignId} was abandoned while its recipients were written (its lease ran out)`);
  }
}

/**
 * POST /v1/campaigns. Checks everything first (bot, calling, video), then writes the campaign
 * hidden (CREATING), its recipients in pieces, and makes it PENDING or SCHEDULED in one statement.
 * When anything fails on the way, what was written is deleted before the error is answered (if
 * the storage itself is gone, a later sweep deletes it). `earlier` when an earlier request with
 * the same id made it (a retry).
 */
export async function createCampaign(
  charla: Charla,
  body: CampaignCreateBody,
): Promise<{ campaign: Campaign; earlier: boolean }> {
  // With the caller's own id, a retry of the request answers what the first try made.
  const key = body.id?.toLowerCase();
  const requestHash =
    key === undefined
      ? null
      : createHash('sha256')
          .update(canonicalJson({ ...body, id: key }))
          .digest('hex');
  for (;;) {
    if (key !== undefined && requestHash !== null) {
      const made = await madeBefore(charla, key, requestHash);
      if (made) return { campaign: made, earlier: true };
    }
    const made = await create(charla, body, key, requestHash);
    if (made) return { campaign: made, earlier: false };
    // Taken by the same request a moment earlier (a retry racing its first try): read it.
  }
}

/**
 * The campaign an earlier request with this id made, once that request has finished writing it;
 * undefined when there is none. The same id from another request (another body, another company)
 * is 400; a creation still under way after CREATION_WAIT_MS is 409 with a time to try again.
 */
async function madeBefore(charla: Charla, id: string, requestHash: string): Promise<Campaign | undefined> {
  const until = Date.now() + CREATION_WAIT_MS;
  for (;;) {
    const { rows } = await charla.db.query<CampaignRow & { request_hash: string | null }>(
      `SELECT ${COLUMNS}, company_id, request_hash FROM campaigns WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (row.company_id !== charla.config.companyId || row.request_hash !== requestHash)
      throw validationFailed({ '/id': 'already names another campaign (a retry must repeat its request)' });
    if ((row.status as string) !== CREATING) return toCampaign(row);
    if (Date.now() >= until)
      throw new ApiError('INVALID_STATE', {
        message: `Campaign ${id} is still being created by an earlier request: try again later.`,
        data: { campaignId: id, retryAfterMs: CREATION_WAIT_MS },
      });
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** How long a request waits for an earlier one with its id to finish creating the campaign. */
const CREATION_WAIT_MS = 15_000;

/** Checks and writes a new campaign; undefined when its id was taken meanwhile. */
async function create(
  charla: Charla,
  body: CampaignCreateBody,
  key: string | undefined,
  requestHash: string | null,
): Promise<Campaign | undefined> {
  const scheduledAt = body.scheduledAt === undefined ? null : futureInstant(body.scheduledAt, '/scheduledAt');
  // Recipients are people: a bot's id would make the bot a visitor of its own room.
  await refuseBotIds(charla.db, charla.config.companyId, body.recipients, (i) => `/recipients/${i}`);
  await prepareBotMessage(charla, body.botId, body.message as BotMessageContent, '/message');
  const recipients = [...new Set(body.recipients)];
  const id = key ?? randomUUID();
  const status: CampaignStatus = scheduledAt ? 'SCHEDULED' : 'PENDING';
  // This creation's own name: instance ids repeat (a restarted process keeps its id).
  const lease = `${charla.config.instanceId}/${randomUUID()}`;
  const inserted = await charla.db.query(
    `INSERT INTO campaigns (id, company_id, name, element_name, bot_id, status, message, scheduled_at, total_messages,
       claimed_by, claimed_at, request_hash)
     VALUES ($1, $2, $3, $4, $5, '${CREATING}', $6, $7, $8, $9, now(), $10)
     ON CONFLICT (id) DO NOTHING`,
    [
      id,
      charla.config.companyId,
      body.name,
      body.elementName,
      body.botId,
      JSON.stringify(body.message),
      scheduledAt,
      recipients.length,
      lease,
      requestHash,
    ],
  );
  if (inserted.rowCount === 0) return undefined;
  let row: CampaignRow | undefined;
  try {
    for (let i = 0; i < recipients.length; i += RECIPIENTS_PER_INSERT) {
      await letOthersRun();
      const piece = recipients.slice(i, i + RECIPIENTS_PER_INSERT);
      // Renews the lease in the statement that writes: a creation a sweep abandoned writes nothing.
      const written = await charla.db.query(
        `WITH c AS (
           UPDATE campaigns SET claimed_at = now() WHERE id = $1 AND status = '${CREATING}' AND claimed_by = $2
           RETURNING id
         )
         INSERT INTO campaign_recipients (campaign_id, user_id) SELECT c.id, u FROM c, unnest($3::text[]) AS u`,
        [id, lease, piece],
      );
      if (written.rowCount !== piece.length) throw new CreationAbandoned(id);
    }
    const { rows } = await charla.db.query<CampaignRow>(
      `UPDATE campaigns SET status = $3, claimed_by = NULL, claimed_at = NULL, updated_at = now()
       WHERE id = $1 AND status = '${CREATING}' AND claimed_by = $2 RETURNING ${COLUMNS}`,
      [id, lease, status],
    );
    row = rows[0];
    if (!row) throw new CreationAbandoned(id);
  } catch (err) {
    try {
      await charla.db.query(
        `UPDATE campaigns SET claimed_by = NULL WHERE id = $1 AND status = '${CREATING}' AND claimed_by = $2`,
        [id, lease],
      );
      await deleteAbandoned(charla, id);
    } catch {
      // The storage failed again (or is closed): the campaign stays hidden, and a sweep deletes it
      // once its lease has run out. The error answered is the first one.
    }
    throw err;
  }
  if (status === 'PENDING') listeners.get(charla)?.(id);
  return toCampaign(row);
}

/**
 * Deletes an abandoned creation (CREATING, no lease holder): its recipients in pieces, then the
 * campaign. Deletes nothing of a campaign in any other state. Answers whether it was deleted.
 */
async function deleteAbandoned(
  charla: Charla,
  campaignId: string,
  shouldStop: () => boolean = () => false,
): Promise<boolean> {
  for (;;) {
    if (shouldStop()) return false;
    const gone = await charla.db.query(
      `DELETE FROM campaign_recipients
       WHERE campaign_id = $1
         AND user_id IN (SELECT user_id FROM campaign_recipients WHERE campaign_id = $1 LIMIT $2)
         AND EXISTS (SELECT 1 FROM campaigns WHERE id = $1 AND status = '${CREATING}' AND claimed_by IS NULL)`,
      [campaignId, RECIPIENTS_PER_DELETE],
    );
    if (gone.rowCount === 0) break;
    await letOthersRun();
  }
  const gone = await charla.db.query(
    `DELETE FROM campaigns
     WHERE id = $1 AND status = '${CREATING}' AND claimed_by IS NULL
       AND NOT EXISTS (SELECT 1 FROM campaign_recipients WHERE campaign_id = $1)`,
    [campaignId],
  );
  return gone.rowCount > 0;
}

/**
 * Deletes the creations of this company that were abandoned: a CREATING campaign whose lease is
 * older than leaseMs (its creator died or lost its storage), or which its creator gave up but could
 * not delete. On the embedded store (one process per store, server/store/dir-lock.ts) a creation
 * begun before the store was opened is abandoned too, whatever its age: nobody can be writing it.
 * A creation in progress, here or in another process, renews its lease and is left alone.
 * The campaign scheduler calls this when it starts and then now and again. Answers how many
 * campaigns were deleted.
 */
export async function sweepAbandonedCampaigns(
  charla: Charla,
  options: { leaseMs?: number; shouldStop?: () => boolean } = {},
): Promise<number> {
  const companyId = charla.config.companyId;
  // Abandoning is one conditional statement: a creator renewing its lease at the same moment
  // either renews first (and is left alone) or finds itself abandoned and writes no more.
  await charla.db.query(
    `UPDATE campaigns SET claimed_by = NULL, updated_at = now()
     WHERE company_id = $1 AND status = '${CREATING}' AND claimed_by IS NOT NULL
       AND (claimed_at < now() - make_interval(secs => $2::double precision / 1000)
         OR ($3 AND claimed_at < pg_postmaster_start_time()))`,
    [companyId, options.leaseMs ?? CREATION_LEASE_MS, charla.db.kind === 'pglite'],
  );
  const { rows } = await charla.db.query<{ id: string }>(
    `SELECT id FROM campaigns WHERE company_id = $1 AND status = '${CREATING}' AND claimed_by IS NULL`,
    [companyId],
  );
  let deleted = 0;
  for (const { id } of rows) {
    if (await deleteAbandoned(charla, id, options.shouldStop)) deleted++;
  }
  return deleted;
}

/** A row of charla_list_campaigns' page: the columns in COLUMNS order, timestamps as text. */
type ListedRow = [
  id: string,
  name: string,
  elementName: string,
  botId: string,
  status: CampaignStatus,
  totalMessages: number,
  deliveredMessages: number,
  failedMessages: number,
  createdAt: string,
  completedAt: string | null,
  scheduledAt: string | null,
];

/**
 * The storage driver's own reading of a timestamptz in text form, so a listed
 * date is exactly what a selected column of that driver gives.
 */
type TimestampParser = (text: string) => Date | string;
const pgTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as TimestampParser;
const pgliteTimestamp: TimestampParser = (text) => pgliteTypes.parseType(text, pgliteTypes.TIMESTAMPTZ);

/**
 * A timestamptz text in UTC (`2025-03-01 12:34:56.123456+00`, years 1000 to
 * 9999) rewritten as its ISO form, milliseconds cut as both drivers cut them
 * (checked against both for every microsecond fraction and every such year);
 * anything else (another offset, a BC date) goes through the driver's parser.
 */
const UTC_TEXT = /^([1-9]\d{3}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;
function isoFromText(text: string, parse: TimestampParser): string {
  const m = UTC_TEXT.exec(text);
  if (!m) return iso(parse(text));
  const fraction = m[3] === undefined ? '000' : m[3].length >= 3 ? m[3].slice(0, 3) : m[3].padEnd(3, '0');
  return `${m[1]}T${m[2]}.${fraction}Z`;
}

/**
 * GET /v1/campaigns. The range filters on createdAt.
 *
 * One call of charla_list_campaigns (migration 003): the count and the page
 * under one snapshot, with plans the session keeps, and the page as one JSON
 * value instead of a row of eleven columns per campaign.
 */
export async function listCampaigns(
  charla: Charla,
  query: CampaignListQuery,
): Promise<{ results: Campaign[]; pagination: Pagination }> {
  const range = listRange(query.startAt, query.endAt);
  if ('errors' in range) throw validationFailed(range.errors);
  const limit = query.limit ?? CAMPAIGN_LIST_LIMIT_DEFAULT;
  const page = query.page ?? CAMPAIGN_LIST_PAGE_DEFAULT;
  const offset = (page - 1) * limit;
  // Another company's bot lists nothing, as a bot that does not exist (its campaigns are its
  // company's). The check rides in the same statement: one index probe, no second round trip.
  const { rows } = await charla.db.query<{ list: [total: number | string, page: ListedRow[]] }>(
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM bots WHERE id = $1 AND company_id <> $8)
       THEN json_build_array(0, '[]'::json)
       ELSE charla_list_campaigns($1, $2, $3, $4, $5, $6, $7) END AS list`,
    [
      query.botId,
      range.from,
      range.to,
      query.status ?? null,
      query.elementName ?? null,
      limit,
      offset,
      charla.config.companyId,
    ],
  );
  const [count, listed] = rows[0]?.list ?? [0, []];
  const total = Number(count);
  const timestamp = charla.db.kind === 'pglite' ? pgliteTimestamp : pgTimestamp;
  const results = listed.map((r): Campaign => ({
    id: r[0],
    name: r[1],
    elementName: r[2],
    botId: r[3],
    status: r[4],
    totalMessages: Number(r[5]),
    deliveredMessages: Number(r[6]),
    failedMessages: Number(r[7]),
    createdAt: isoFromText(r[8], timestamp),
    completedAt: r[9] === null ? null : isoFromText(r[9], timestamp),
    scheduledAt: r[10] === null ? null : isoFromText(r[10], timestamp),
  }));
  return {
    results,
    pagination: { limit, page, total, offset, totalPages: Math.ceil(total / limit) },
  };
}

/**
 * 404 when the campaign does not exist (or is still being created: nobody was told its id yet),
 * 409 (with its status) when it exists in another state.
 */
async function explainMiss(charla: Charla, campaignId: string, action: string): Promise<never> {
  const { rows } = await charla.db.query<{ status: CampaignStatus }>(
    `SELECT status FROM campaigns WHERE id = $1 AND company_id = $2 AND status <> '${CREATING}'`,
    [campaignId, charla.config.companyId],
  );
  const found = rows[0];
  if (!found)
    throw new ApiError('NOT_FOUND', {
      message: `Campaign ${campaignId} does not exist.`,
      data: { campaignId },
    });
  throw new ApiError('INVALID_STATE', {
    message: `Only a SCHEDULED campaign can be ${action}; this one is ${found.status}.`,
    data: { campaignId, status: found.status },
  });
}

/** DELETE /v1/campaigns/{id}: SCHEDULED -> CANCELLED, atomically against the scheduler's claim. */
export async function cancelCampaign(charla: Charla, campaignId: string): Promise<Campaign> {
  const { rows } = await charla.db.query<CampaignRow>(
    `UPDATE campaigns SET status = 'CANCELLED', updated_at = now()
     WHERE id = $1 AND company_id = $2 AND status = 'SCHEDULED' RETURNING ${COLUMNS}`,
    [campaignId, charla.config.companyId],
  );
  const row = rows[0];
  if (!row) return explainMiss(charla, campaignId, 'cancelled');
  return toCampaign(row);
}

/** PUT /v1/campaigns/{id}: name and/or a later scheduledAt, only while SCHEDULED. */
export async function updateCampaign(
  charla: Charla,
  campaignId: string,
  body: { name?: string; scheduledAt?: string },
): Promise<Campaign> {
  const scheduledAt = body.scheduledAt === undefined ? null : futureInstant(body.scheduledAt, '/scheduledAt');
  const { rows } = await charla.db.query<CampaignRow>(
    `UPDATE campaigns
     SET name = COALESCE($2, name), scheduled_at = COALESCE($3, scheduled_at), updated_at = now()
     WHERE id = $1 AND company_id = $4 AND status = 'SCHEDULED'
       AND ($3::timestamptz IS NULL OR $3::timestamptz > scheduled_at)
     RETURNING ${COLUMNS}`,
    [campaignId, body.name ?? null, scheduledAt, charla.config.companyId],
  );
  const row = rows[0];
  if (row) return toCampaign(row);
  const { rows: found } = await charla.db.query<CampaignRow>(
    `SELECT ${COLUMNS} FROM campaigns WHERE id = $1 AND company_id = $2 AND status <> '${CREATING}'`,
    [campaignId, charla.config.companyId],
  );
  const current = found[0];
  if (current?.status === 'SCHEDULED' && scheduledAt) {
    throw validationFailed({
      '/scheduledAt': `must be later than the current scheduled date ${isoOrNull(current.scheduled_at)}`,
    });
  }
  return explainMiss(charla, campaignId, 'updated');
}
