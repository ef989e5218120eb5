/**
 * POST /v1/widget/create: a widget with a new or an existing bot, and its API
 * key. The key is 32 random bytes (base64url) shown once; only its SHA-256
 * (hex) is stored.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  ApiKeyRecord,
  BotRecord,
  WidgetCreateBody,
  WidgetCreateResult,
  WidgetRecord,
} from '../../types/schemas/index.ts';
import { ROUTES } from '../../types/index.ts';
import type { Charla } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { requireBasic } from '../http/auth.ts';
import { hashApiKey } from '../live/session.ts';
import type { Queryable } from '../store/db.ts';
import type { BotRow } from '../bot-message.ts';
import { errorResponses } from './common.ts';

/** A new identity-verification secret: `cis_` and 32 random bytes in base64url. */
export function newIdentitySecret(): string {
  return `cis_${randomBytes(32).toString('base64url')}`;
}

/** A new API key: `ck_` and 32 random bytes in base64url (256 bits of entropy). */
export function newApiKey(): string {
  return `ck_${randomBytes(32).toString('base64url')}`;
}

const iso = (v: Date | string): string => (v instanceof Date ? v : new Date(v)).toISOString();

export function toBotRecord(row: BotRow): BotRecord {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    companyId: row.company_id,
    callingEnabled: Boolean(row.calling_enabled),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

interface WidgetRow {
  id: string;
  bot_id: string;
  company_id: string;
  config: Record<string, unknown> | string;
  created_at: Date | string;
  updated_at: Date | string;
}

export function toWidgetRecord(row: WidgetRow): WidgetRecord {
  const config = (typeof row.config === 'string' ? JSON.parse(row.config) : row.config) as Record<
    string,
    unknown
  >;
  const part = (name: string) => {
    const v = config[name];
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  };
  return {
    id: row.id,
    botId: row.bot_id,
    companyId: row.company_id,
    properties: part('properties'),
    theme: part('theme'),
    credentials: part('credentials'),
    config,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export interface CreatedWidget {
  Bot: BotRecord;
  Widget: WidgetRecord;
  ApiKey: ApiKeyRecord;
}

export interface CreateWidgetOptions {
  /** Fixed ids (the demo seed keeps its bot and widget stable across restarts). */
  botId?: string;
  widgetId?: string;
  /** A fixed key (the demo seed); a random one otherwise. */
  apiKey?: string;
  companyId?: string;
}

/**
 * Creates (or reuses) the bot, the widget and an API key in one transaction.
 * Exported for the demo seed. `bot: { id }` must exist (404).
 */
export async function createWidgetRecord(
  charla: Charla,
  body: WidgetCreateBody,
  options: CreateWidgetOptions = {},
): Promise<CreatedWidget> {
  const companyId = options.companyId ?? charla.config.companyId;
  const key = options.apiKey ?? newApiKey();
  const identitySecret = newIdentitySecret();
  return charla.db.transaction(async (tx: Queryable) => {
    let bot: BotRow | undefined;
    if (body.bot.id !== undefined) {
      bot = (
        await tx.query<BotRow>('SELECT * FROM bots WHERE id = $1 AND company_id = $2', [
          body.bot.id,
          companyId,
        ])
      ).rows[0];
      if (!bot)
        throw new ApiError('NOT_FOUND', {
          message: `Bot ${body.bot.id} does not exist.`,
          data: { botId: body.bot.id },
        });
    } else {
      bot = (
        await tx.query<BotRow>(
          `INSERT INTO bots (id, company_id, name, calling_enabled) VALUES ($1, $2, $3, $4) RETURNING *`,
          [
            options.botId ?? randomUUID(),
            companyId,
            body.bot.name ?? 'Charla Bot',
            body.bot.callingEnabled ?? false,
          ],
        )
      ).rows[0];
    }
    const widget = (
      await tx.query<WidgetRow>(
        'INSERT INTO widgets (id, bot_id, company_id, config) VALUES ($1, $2, $3, $4) RETURNING *',
        [options.widgetId ?? randomUUID(), (bot as BotRow).id, companyId, JSON.stringify(body.widget)],
      )
    ).rows[0] as WidgetRow;
    const apiKey = (
      await tx.query<{ id: number; state: number; widget_id: string; created_at: Date; updated_at: Date }>(
        `INSERT INTO api_keys (widget_id, key_hash, identity_secret) VALUES ($1, $2, $3)
         RETURNING id, state, widget_id, created_at, updated_at`,
        [widget.id, hashApiKey(key), identitySecret],
      )
    ).rows[0];
    if (!apiKey) throw new Error('api key insert returned nothing');
    return {
      Bot: toBotRecord(bot as BotRow),
      Widget: toWidgetRecord(widget),
      ApiKey: {
        id: Number(apiKey.id),
        state: Number(apiKey.state),
        key,
        widgetId: apiKey.widget_id,
        updatedAt: iso(apiKey.updated_at),
        createdAt: iso(apiKey.created_at),
        identitySecret,
      },
    };
  });
}

/** True for `application/json` with or without parameters. */
export function isJsonContentType(header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const mime = header.split(';')[0]?.trim().toLowerCase();
  return mime === 'application/json';
}

export async function widgetRoutes(app: FastifyInstance): Promise<void> {
  const charla = app.charla;
  const auth = requireBasic(charla.config, { allowCompanyToken: true });
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    ROUTES.createWidget,
    {
      schema: {
        tags: ['Widgets'],
        summary: 'Create a widget',
        operationId: 'createWidget',
        description:
          'Creates a widget with a new bot (`bot: {}`) or an existing one (`bot: { id }`), and issues its API key. Content-Type must be application/json.',
        security: [{ basicAuth: [] }, { companyToken: [] }],
        body: WidgetCreateBody,
        response: { 200: WidgetCreateResult, ...errorResponses(400, 401, 404, 415) },
      },
      onRequest: [
        auth,
        async (request) => {
          // Checked before parsing, so an empty body with a wrong type is 415 too.
          if (!isJsonContentType(request.headers['content-type']))
            throw new ApiError('UNSUPPORTED_CONTENT_TYPE');
        },
      ],
    },
    async (request) => {
      const data = await createWidgetRecord(charla, request.body);
      return {
        message: ['Widget created successfully.'],
        statusMessage: 'success',
        status: 1,
        data,
      };
    },
  );
}
