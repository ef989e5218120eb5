/**
 * `charla/api`: the typed client of Charla's server-side HTTP operations.
 *
 * ```ts
 * import { createClient } from 'charla/api';
 * const charla = createClient({ baseUrl: 'https://charla.example.com', clientId, clientSecret });
 * await charla.sendText(botId, userId, 'Hola');
 * ```
 */
export { createClient, authorizationFor } from './client.ts';
export type { CharlaClient, ClientOptions, OpenApiDocument, VoiceCallArgs } from './client.ts';
export { CharlaApiError, isCharlaApiError } from './errors.ts';
export type { ClientErrorKey, RequestInfo } from './errors.ts';
export {
  checkAssetsRefresh,
  checkBotMessage,
  checkButtons,
  checkCampaignCreate,
  checkCampaignUpdate,
  checkContact,
  checkListQuery,
  checkRoomPost,
  checkWidgetCreate,
  isE164,
  isHttpsUrl,
  isUuid,
  videoAddressProblem,
} from './validate.ts';
export type { Problems, ValidateOptions } from './validate.ts';
export { base64Utf8 } from './base64.ts';
export { userHash } from './identity.ts';
export type {
  AssetsRefreshBody,
  BotContact,
  BotMessage,
  BotMessageResult,
  BotMessageStatus,
  ButtonOption,
  Buttons,
  CampaignCreateBody,
  CampaignStatus,
  CampaignUpdateBody,
  ErrorBody,
  Pagination,
  RoomPostBody,
  RoomPostMessage,
  RoomPostResult,
  SignedUrlResult,
  WidgetCreateResult,
  WidgetPosition,
  WidgetType,
} from '../../types/index.ts';
export type {
  Campaign,
  CampaignFilterStatus,
  CampaignListQuery,
  CampaignListResponse,
  CampaignResult,
  WidgetConfigInput,
  WidgetCreateBody,
} from './types.ts';
/** Version of the client: the package's (src/version.ts). */
export { version as apiVersion } from '../version.ts';
