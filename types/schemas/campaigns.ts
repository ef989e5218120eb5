import Type from 'typebox';
import { CAMPAIGN_FILTER_STATUSES, CAMPAIGN_STATUSES } from '../enums.ts';
import {
  CAMPAIGN_LIST_LIMIT_DEFAULT,
  CAMPAIGN_LIST_LIMIT_MAX,
  CAMPAIGN_LIST_PAGE_DEFAULT,
  CAMPAIGN_LIST_PAGE_MAX,
  CAMPAIGN_RECIPIENTS_MAX,
  NOT_BLANK_PATTERN,
  SHORT_TEXT_MAX,
} from '../limits.ts';
import { DateOrDateTime, Id, Uuid, ZonedDateTime, lit } from './common.ts';
import { BotMessageContent } from './bot-messages.ts';

export const Campaign = Type.Object({
  id: Type.String(),
  name: Type.String(),
  elementName: Type.String(),
  botId: Type.String(),
  status: lit(CAMPAIGN_STATUSES),
  totalMessages: Type.Integer(),
  deliveredMessages: Type.Integer(),
  failedMessages: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  /** Ours: when a SCHEDULED campaign is due (null for one sent at once). */
  scheduledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type Campaign = Type.Static<typeof Campaign>;

export const Pagination = Type.Object({
  limit: Type.Integer(),
  page: Type.Integer(),
  total: Type.Integer(),
  offset: Type.Integer(),
  totalPages: Type.Integer(),
});
export type Pagination = Type.Static<typeof Pagination>;

export const CampaignListQuery = Type.Object({
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: CAMPAIGN_LIST_PAGE_MAX, default: CAMPAIGN_LIST_PAGE_DEFAULT }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: CAMPAIGN_LIST_LIMIT_MAX, default: CAMPAIGN_LIST_LIMIT_DEFAULT }),
  ),
  botId: Id,
  startAt: DateOrDateTime,
  endAt: DateOrDateTime,
  elementName: Type.Optional(Type.String({ minLength: 1, maxLength: SHORT_TEXT_MAX })),
  status: Type.Optional(lit(CAMPAIGN_FILTER_STATUSES)),
});
export type CampaignListQuery = Type.Static<typeof CampaignListQuery>;

export const CampaignListResponse = Type.Object({
  message: Type.Array(Type.String()),
  status: Type.String(),
  data: Type.Object({ results: Type.Array(Campaign), pagination: Pagination }),
});
export type CampaignListResponse = Type.Static<typeof CampaignListResponse>;

export const CampaignIdParams = Type.Object({ campaignId: Id });

/** PUT body: name, scheduledAt, or both. */
export const CampaignUpdateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: SHORT_TEXT_MAX, pattern: NOT_BLANK_PATTERN })),
    scheduledAt: Type.Optional(ZonedDateTime),
  },
  // Send name, scheduledAt, or both: a body with neither (only unknown fields) is refused.
  { anyOf: [{ required: ['name'] }, { required: ['scheduledAt'] }] },
);
export type CampaignUpdateBody = Type.Static<typeof CampaignUpdateBody>;

/** Ours: POST /v1/campaigns creates a campaign (a way in for the scheduler). */
export const CampaignCreateBody = Type.Object({
  /**
   * Ours, optional: the campaign's id, a UUID of the caller's making. The same request again
   * (a retry after a timeout) answers the campaign it made instead of making another; the same id
   * with another request is 400.
   */
  id: Type.Optional(Uuid),
  name: Type.String({ minLength: 1, maxLength: SHORT_TEXT_MAX, pattern: NOT_BLANK_PATTERN }),
  elementName: Type.String({ minLength: 1, maxLength: SHORT_TEXT_MAX, pattern: NOT_BLANK_PATTERN }),
  botId: Id,
  recipients: Type.Array(Id, { minItems: 1, maxItems: CAMPAIGN_RECIPIENTS_MAX }),
  message: BotMessageContent,
  scheduledAt: Type.Optional(ZonedDateTime),
});
export type CampaignCreateBody = Type.Static<typeof CampaignCreateBody>;

/** Ours: the body of create, cancel and update answers. */
export const CampaignResult = Type.Object({
  message: Type.Array(Type.String()),
  statusMessage: Type.String(),
  status: Type.Integer(),
  data: Campaign,
});
export type CampaignResult = Type.Static<typeof CampaignResult>;
