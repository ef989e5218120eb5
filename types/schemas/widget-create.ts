import Type from 'typebox';
import { WIDGET_POSITIONS, WIDGET_TYPES } from '../enums.ts';
import { ONE_LINE_NAME_PATTERN, ORIGIN_LIST_MAX, ORIGIN_MAX, ORIGIN_PATTERN } from '../limits.ts';
import { AnyObject, Id, ShortText, lit } from './common.ts';

/**
 * An origin pattern: `https://shop.example.com`, `https://*.example.com`, `http://localhost:3000`.
 * Stored as browsers spell origins (`new URL(pattern).origin`): `https://example.com:00080`
 * as `https://example.com:80`, `https://Shop.Example.com:443` as `https://shop.example.com`.
 */
export const OriginPattern = Type.String({
  minLength: 8,
  maxLength: ORIGIN_MAX,
  pattern: ORIGIN_PATTERN,
});

export const WidgetTheme = Type.Object(
  {
    position: Type.Optional(lit(WIDGET_POSITIONS)),
    status: Type.Optional(Type.Boolean()),
    font: Type.Optional(
      Type.Object(
        {
          googlefont: Type.Optional(Type.Boolean()),
          name: Type.Optional(Type.String({ maxLength: 100, pattern: '^[A-Za-z0-9 _-]*$' })),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
);
export type WidgetTheme = Type.Static<typeof WidgetTheme> & Record<string, unknown>;

export const WidgetCredentials = Type.Object(
  {
    blackList: Type.Optional(Type.Array(OriginPattern, { maxItems: ORIGIN_LIST_MAX })),
    whiteList: Type.Optional(Type.Array(OriginPattern, { maxItems: ORIGIN_LIST_MAX })),
    /**
     * Ours. When true, a widget session needs the page's userId and its
     * userHash: hex HMAC-SHA256 of the userId under the key's identitySecret,
     * computed by the business's backend (so a visitor cannot claim another
     * user's id). Default false.
     */
    identityVerification: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type WidgetCredentials = Type.Static<typeof WidgetCredentials>;

/** Widget configuration: the typed fields plus any further visual properties, stored whole. */
export const WidgetConfig = Type.Object(
  {
    properties: Type.Optional(
      Type.Object(
        {
          type: Type.Optional(lit(WIDGET_TYPES)),
          name: Type.Optional(ShortText),
        },
        { additionalProperties: true },
      ),
    ),
    theme: Type.Optional(WidgetTheme),
    credentials: Type.Optional(WidgetCredentials),
  },
  { additionalProperties: true },
);
export type WidgetConfig = Type.Static<typeof WidgetConfig> & Record<string, unknown>;

export const WidgetCreateBody = Type.Object({
  /** `{ id }` reuses a bot; `{}` creates one (optionally named, with calling on or off). */
  bot: Type.Object(
    {
      id: Type.Optional(Id),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: ONE_LINE_NAME_PATTERN })),
      callingEnabled: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  widget: WidgetConfig,
});
export type WidgetCreateBody = Type.Static<typeof WidgetCreateBody>;

export const BotRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  companyId: Type.String(),
  callingEnabled: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type BotRecord = Type.Static<typeof BotRecord>;

export const WidgetRecord = Type.Object({
  id: Type.String(),
  botId: Type.String(),
  companyId: Type.String(),
  properties: AnyObject,
  theme: AnyObject,
  credentials: AnyObject,
  config: AnyObject,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type WidgetRecord = Type.Static<typeof WidgetRecord>;

export const ApiKeyRecord = Type.Object({
  id: Type.Integer(),
  state: Type.Integer(),
  key: Type.String(),
  widgetId: Type.String(),
  updatedAt: Type.String(),
  createdAt: Type.String(),
  /**
   * Ours: the secret the business's backend signs user ids with for identity
   * verification (credentials.identityVerification). Shown once, at creation;
   * keep it on the server, never in a page.
   */
  identitySecret: Type.String(),
});
export type ApiKeyRecord = Type.Static<typeof ApiKeyRecord>;

export const WidgetCreateResult = Type.Object({
  message: Type.Array(Type.String()),
  statusMessage: Type.String(),
  status: Type.Integer(),
  data: Type.Object({ Bot: BotRecord, Widget: WidgetRecord, ApiKey: ApiKeyRecord }),
});
export type WidgetCreateResult = Type.Static<typeof WidgetCreateResult>;
