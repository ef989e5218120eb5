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
import { WIDGET_COLOR_SCHEMES } from '../../types/enums.ts';
import { HEX_COLOUR_PATTERN } from '../../types/limits.ts';
import { originHostProblem } from '../../types/origins.ts';
import type { Charla } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { requireBasic } from '../http/auth.ts';
import { hashApiKey } from '../live/session.ts';
import type { Queryable } from '../store/db.ts';
import type { BotRow } from '../bot-message.ts';
import { check, validatorCompiler, type Checked } from '../http/validation.ts';
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

/**
 * An origin pattern spelled as browsers spell the origins it must match, what
 * `new URL(pattern).origin` gives: `https://example.com:00080` becomes
 * `https://example.com:80`, `https://Shop.Example.com:443` becomes
 * `https://shop.example.com`, so the widget's configuration reads as the
 * pages it lets in (the sessions' check, live/origin.ts, matches either
 * spelling). A pattern URL cannot read (a wildcard: `https://*.example.com`) is kept as written.
 */
function canonicalOrigin(pattern: string): string {
  try {
    return new URL(pattern).origin;
  } catch {
    return pattern;
  }
}

/** The configuration as stored: its white and black lists in canonical origins. */
function withCanonicalOrigins(config: WidgetCreateBody['widget']): WidgetCreateBody['widget'] {
  if (!config.credentials) return config;
  const credentials = { ...config.credentials };
  for (const list of ['whiteList', 'blackList'] as const) {
    const patterns = credentials[list];
    if (Array.isArray(patterns)) credentials[list] = patterns.map(canonicalOrigin);
  }
  return { ...config, credentials };
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
        [
          options.widgetId ?? randomUUID(),
          (bot as BotRow).id,
          companyId,
          JSON.stringify(withCanonicalOrigins(body.widget)),
        ],
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

const HEX_COLOUR = new RegExp(HEX_COLOUR_PATTERN);

/**
 * The visual properties the widget reads beyond the interface's typed ones
 * (README, Theming): a value it could not use would be stored and then
 * silently ignored, so it is refused here.
 */
function themeProblems(theme: object, known: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const t = theme as Record<string, unknown>;
  const colors = t['colors'];
  const colours: Array<[string, unknown]> = [
    ['/widget/theme/primaryColor', t['primaryColor']],
    ['/widget/theme/color', t['color']],
  ];
  if (typeof colors === 'object' && colors !== null && !Array.isArray(colors))
    colours.push(['/widget/theme/colors/primary', (colors as Record<string, unknown>)['primary']]);
  else if (colors !== undefined)
    out['/widget/theme/colors'] = 'must be an object such as { "primary": "#4f46e5" }';
  for (const [at, value] of colours)
    if (value !== undefined && !(typeof value === 'string' && HEX_COLOUR.test(value.trim())))
      out[at] = 'must be a hex colour: #rgb or #rrggbb';
  const scheme = t['colorScheme'];
  if (scheme !== undefined && !(WIDGET_COLOR_SCHEMES as readonly unknown[]).includes(scheme))
    out['/widget/theme/colorScheme'] = `must be one of ${WIDGET_COLOR_SCHEMES.join(', ')}`;
  if (t['darkMode'] !== undefined && typeof t['darkMode'] !== 'boolean')
    out['/widget/theme/darkMode'] = 'must be boolean';
  for (const at of Object.keys(out)) if (at in known) delete out[at];
  return out;
}

/**
 * The body of widget creation: the schema, then what it cannot say. A new
 * bot's settings beside the id of an existing one are refused (the bot is
 * reused as it is, so they would be ignored), and so are origins no browser
 * sends and theme values the widget cannot use.
 */
export function checkWidgetCreate(data: unknown): Checked {
  const top = check(WidgetCreateBody, data);
  const errors: Record<string, string> = top.ok ? {} : { ...top.errors };
  const body = data as { bot?: Record<string, unknown>; widget?: { credentials?: Record<string, unknown> } };
  const bot = body?.bot;
  if (typeof bot === 'object' && bot !== null && typeof bot['id'] === 'string') {
    for (const field of ['name', 'callingEnabled'])
      if (bot[field] !== undefined && !(`/bot/${field}` in errors))
        errors[`/bot/${field}`] = 'is not allowed with /bot/id: an existing bot is reused as it is';
  }
  const theme = (body?.widget as { theme?: unknown } | undefined)?.theme;
  if (typeof theme === 'object' && theme !== null) Object.assign(errors, themeProblems(theme, errors));
  const credentials = body?.widget?.credentials;
  if (typeof credentials === 'object' && credentials !== null) {
    for (const list of ['whiteList', 'blackList']) {
      const patterns = credentials[list];
      if (!Array.isArray(patterns)) continue;
      patterns.forEach((pattern, i) => {
        const at = `/widget/credentials/${list}/${i}`;
        const problem = typeof pattern === 'string' ? originHostProblem(pattern) : null;
        if (problem && !(at in errors)) errors[at] = problem;
      });
    }
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, value: data };
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
        response: { 200: WidgetCreateResult, ...errorResponses(401, 404) },
      },
      validatorCompiler: validatorCompiler({ body: checkWidgetCreate }),
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
