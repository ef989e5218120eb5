/**
 * Campaigns: create, list, cancel, update. State changes are conditional
 * UPDATEs (`... WHERE status = 'SCHEDULED'`), so a cancel and the scheduler's
 * claim can never both win: whichever commits first decides, and the other
 * sees the new state.
 */
import { randomUUID } from 'node:crypto';
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
import { parseDate } from '../../types/dates.ts';
import { listRange } from './dates.ts';

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
    throw validationFailed({ [field]: 'must be a real ISO 8601 date-time with a time zone' });
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
 * Recipients written per statement, the event loop let go between them: on the embedded store
 * (PGlite runs on this thread) one statement of 100,000 rows blocked the event loop for 2.3 s
 * (socket heartbeats, static files, every request's parsing); in pieces of 2,000 the longest
 * block is about 0.3 s (measured on the 2-core development machine), still one transaction.
 * Queries of other requests still wait for the transaction: PGlite runs one at a time.
 */
const RECIPIENTS_PER_INSERT = 2_000;

/**
 * POST /v1/campaigns. Checks everything first (bot, calling, video), then
 * writes the campaign and its recipients in one transaction.
 */
export async function createCampaign(charla: Charla, body: CampaignCreateBody): Promise<Campaign> {
  const scheduledAt = body.scheduledAt === undefined ? null : futureInstant(body.scheduledAt, '/scheduledAt');
  // Recipients are people: a bot's id would make the bot a visitor of its own room.
  await refuseBotIds(charla.db, charla.config.companyId, body.recipients, (i) => `/recipients/${i}`);
  await prepareBotMessage(charla, body.botId, body.message as BotMessageContent, '/message');
  const recipients = [...new Set(body.recipients)];
  const id = randomUUID();
  const status: CampaignStatus = scheduledAt ? 'SCHEDULED' : 'PENDING';
  const row = await charla.db.transaction(async (tx) => {
    const { rows } = await tx.query<CampaignRow>(
      `INSERT INTO campaigns (id, company_id, name, element_name, bot_id, status, message, scheduled_at, total_messages)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [
        id,
        charla.config.companyId,
        body.name,
        body.elementName,
        body.botId,
        status,
        JSON.stringify(body.message),
        scheduledAt,
        recipients.length,
      ],
    );
    for (let i = 0; i < recipients.length; i += RECIPIENTS_PER_INSERT) {
      await tx.query(
        'INSERT INTO campaign_recipients (campaign_id, user_id) SELECT $1, u FROM unnest($2::text[]) AS u',
        [id, recipients.slice(i, i + RECIPIENTS_PER_INSERT)],
      );
      await new Promise((resolve) => setImmediate(resolve));
    }
    return rows[0] as CampaignRow;
  });
  if (status === 'PENDING') listeners.get(charla)?.(id);
  return toCampaign(row);
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

/** 404 when the campaign does not exist, 409 (with its status) when it exists in another state. */
async function explainMiss(charla: Charla, campaignId: string, action: string): Promise<never> {
  const { rows } = await charla.db.query<{ status: CampaignStatus }>(
    'SELECT status FROM campaigns WHERE id = $1 AND company_id = $2',
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
    `SELECT ${COLUMNS} FROM campaigns WHERE id = $1 AND company_id = $2`,
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
