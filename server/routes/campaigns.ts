/**
 * Campaigns: GET /v1/campaigns (list), POST /v1/campaigns (ours: create),
 * DELETE /v1/campaigns/{id} (cancel), PUT /v1/campaigns/{id} (update).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import {
  CampaignCreateBody,
  CampaignIdParams,
  CampaignListQuery,
  CampaignListResponse,
  CampaignResult,
  CampaignUpdateBody,
} from '../../types/schemas/index.ts';
import { ROUTES } from '../../types/index.ts';
import { requireBasic } from '../http/auth.ts';
import { check, validatorCompiler, type Checked } from '../http/validation.ts';
import { cancelCampaign, createCampaign, listCampaigns, updateCampaign } from '../campaigns/service.ts';
import { checkBotMessageContent } from './bot-messages.ts';
import { errorResponses, ok } from './common.ts';

const CreateWithoutMessage = Type.Omit(CampaignCreateBody, ['message']);
/**
 * Largest create body, in bytes: 100,000 recipients of the longest id
 * (200 ASCII characters) come to about 20.3 MB of JSON.
 */
export const CAMPAIGN_BODY_LIMIT = 32 * 1024 * 1024;

/** The create body, with its message checked against the variant its `type` names. */
export function checkCampaignCreate(data: unknown): Checked {
  const top = check(CreateWithoutMessage, data);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return top;
  const errors: Record<string, string> = top.ok ? {} : { ...top.errors };
  const message = (data as Record<string, unknown>)['message'];
  if (message === undefined) errors['/message'] = 'is required';
  else {
    if (typeof message === 'object' && message !== null) {
      // The recipients name the users; a userId here would be silently ignored.
      if ('userId' in message) errors['/message/userId'] = 'is not allowed: recipients name the users';
      // Each recipient's copy has an id of its own: the campaign's `id` is the retry's key.
      if ('id' in message) errors['/message/id'] = 'is not allowed: give the campaign its id';
      // As in a direct send, a botId in the message must be the campaign's bot.
      const botId = (message as Record<string, unknown>)['botId'];
      if (botId !== undefined && botId !== (data as Record<string, unknown>)['botId'])
        errors['/message/botId'] = 'must match the botId of the campaign';
    }
    const m = checkBotMessageContent(message, '/message');
    if (!m.ok) Object.assign(errors, m.errors);
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, value: data };
}

export async function campaignRoutes(app: FastifyInstance): Promise<void> {
  const charla = app.charla;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const auth = requireBasic(charla.config);
  const security = [{ basicAuth: [] }];

  r.get(
    ROUTES.listCampaigns,
    {
      schema: {
        tags: ['Campaigns'],
        summary: 'List campaigns',
        operationId: 'listCampaigns',
        description:
          'Campaigns of a bot created between startAt and endAt (the range filters on createdAt; a date-only endAt takes in that whole day, UTC), newest first.',
        security,
        querystring: CampaignListQuery,
        response: { 200: CampaignListResponse, ...errorResponses(401) },
      },
      onRequest: auth,
    },
    async (request) => {
      const data = await listCampaigns(charla, request.query);
      return { message: ['Campaigns listed successfully.'], status: 'success', data };
    },
  );

  r.post(
    ROUTES.createCampaign,
    {
      schema: {
        tags: ['Campaigns'],
        summary: 'Create a campaign',
        operationId: 'createCampaign',
        description:
          "Ours. With a future scheduledAt the campaign is SCHEDULED; without one it is PENDING and sent at once. The message is a bot message without userId (a botId in it must be the campaign's); a video address that is not a public https address is 422 INVALID_MEDIA_URL. With an id (a UUID of the caller's making) the same request again answers the campaign it made; the same id with another request is 400; a retry while the first is still writing it waits up to 15 s, then 409 with data.retryAfterMs.",
        security,
        body: CampaignCreateBody,
        response: { 200: CampaignResult, ...errorResponses(401, 403, 404, 409, 422) },
      },
      validatorCompiler: validatorCompiler({ body: checkCampaignCreate }),
      // Up to CAMPAIGN_RECIPIENTS_MAX recipient ids: more than the service's 1 MB default.
      bodyLimit: CAMPAIGN_BODY_LIMIT,
      onRequest: auth,
    },
    async (request) => {
      const { campaign, earlier } = await createCampaign(charla, request.body);
      return ok(
        earlier
          ? 'Campaign already created by an earlier request with this id.'
          : 'Campaign created successfully.',
        campaign,
      );
    },
  );

  r.delete(
    ROUTES.campaign,
    {
      schema: {
        tags: ['Campaigns'],
        summary: 'Cancel a scheduled campaign',
        operationId: 'cancelCampaign',
        description: 'A SCHEDULED campaign becomes CANCELLED and reaches no recipient. Other states: 409.',
        security,
        params: CampaignIdParams,
        response: { 200: CampaignResult, ...errorResponses(401, 404, 409) },
      },
      onRequest: auth,
    },
    async (request) =>
      ok('Campaign cancelled successfully.', await cancelCampaign(charla, request.params.campaignId)),
  );

  r.put(
    ROUTES.campaign,
    {
      schema: {
        tags: ['Campaigns'],
        summary: 'Update a scheduled campaign',
        operationId: 'updateCampaign',
        description:
          'name, scheduledAt (ISO 8601 with a time zone, later than the current scheduled date), or both. Only while SCHEDULED (409 otherwise).',
        security,
        params: CampaignIdParams,
        body: CampaignUpdateBody,
        response: { 200: CampaignResult, ...errorResponses(401, 404, 409) },
      },
      onRequest: auth,
    },
    async (request) =>
      ok(
        'Campaign updated successfully.',
        await updateCampaign(charla, request.params.campaignId, request.body),
      ),
  );
}
