/**
 * The client's public types: the contract's, with the enumerated fields spelt
 * out. TypeBox infers `Type.Union(LIST.map(Type.Literal))` as `never`, so
 * types/ gives Campaign.status, the list filter's status and the widget's
 * type and position no usable type; these restore them from the enums.
 */
import type {
  Campaign as ContractCampaign,
  CampaignListQuery as ContractListQuery,
  CampaignStatus,
  Pagination,
  WidgetCreateBody as ContractWidgetCreateBody,
  WidgetPosition,
  WidgetType,
} from '../../types/index.ts';
import type { CAMPAIGN_FILTER_STATUSES, WidgetColorScheme } from '../../types/enums.ts';

/** A campaign, as the service answers it. */
export type Campaign = Omit<ContractCampaign, 'status'> & { status: CampaignStatus };

/** Statuses the list filter accepts. */
export type CampaignFilterStatus = (typeof CAMPAIGN_FILTER_STATUSES)[number];

/** GET /v1/campaigns query: botId, startAt and endAt required; page 1 and limit 10 (at most 50) by default. */
export type CampaignListQuery = Omit<ContractListQuery, 'status'> & { status?: CampaignFilterStatus };

export interface CampaignListResponse {
  message: string[];
  status: string;
  data: { results: Campaign[]; pagination: Pagination };
}

/** Create, cancel and update answer with the campaign as it now is. */
export interface CampaignResult {
  message: string[];
  statusMessage: string;
  status: number;
  data: Campaign;
}

type ContractWidget = ContractWidgetCreateBody['widget'];
type ContractTheme = NonNullable<ContractWidget['theme']>;

/** Widget configuration: the typed fields and any further visual properties. */
export type WidgetConfigInput = Omit<ContractWidget, 'properties' | 'theme'> & {
  properties?: { type?: WidgetType; name?: string } & Record<string, unknown>;
  theme?: Omit<ContractTheme, 'position'> & {
    position?: WidgetPosition;
    /** Brand colour: `#rgb` or `#rrggbb` (`''` keeps the default); so are `color` and `colors.primary`. */
    primaryColor?: string;
    color?: string;
    colors?: { primary?: string } & Record<string, unknown>;
    colorScheme?: WidgetColorScheme;
    darkMode?: boolean;
  } & Record<string, unknown>;
} & Record<string, unknown>;

/** POST /v1/widget/create body. */
export interface WidgetCreateBody {
  /**
   * `{ id }` reuses a bot as it is (a name or callingEnabled beside the id is
   * refused); `{}` creates one, optionally named, calling on or off.
   */
  bot: { id: string; name?: never; callingEnabled?: never } | Omit<ContractWidgetCreateBody['bot'], 'id'>;
  widget: WidgetConfigInput;
}
