/** Paths of every HTTP operation, shared by the service, the widget and the API client. No imports. */

export const API_PREFIX = '/v1';

export const ROUTES = {
  listCampaigns: '/v1/campaigns',
  createCampaign: '/v1/campaigns',
  campaign: '/v1/campaigns/:campaignId',
  createWidget: '/v1/widget/create',
  botMessages: '/v1/bots/:botId/messages',
  botMessage: '/v1/bots/:botId/messages/:messageId',
  roomMessage: '/v1/rooms/:roomId/message',
  assetsRefresh: '/v1/external/assets/refresh',
  openapi: '/v1/openapi.json',
  /** Signed media is served here: `/v1/media/<key>?kid=..&exp=..&sig=..`. */
  media: '/v1/media/*',

  // The widget's own API (session token).
  widgetSession: '/v1/widget/session',
  widgetRooms: '/v1/widget/rooms',
  widgetRoom: '/v1/widget/rooms/:roomId',
  widgetRoomMembers: '/v1/widget/rooms/:roomId/members',
  widgetRoomMembersBulk: '/v1/widget/rooms/:roomId/members/bulk',
  widgetRoomJoin: '/v1/widget/rooms/:roomId/join',
  widgetRoomLeave: '/v1/widget/rooms/:roomId/leave',
  widgetRoomMessages: '/v1/widget/rooms/:roomId/messages',
  widgetDirectRoom: '/v1/widget/rooms/direct',
  widgetFlow: '/v1/widget/flows/:flowId',
  widgetUpload: '/v1/widget/uploads',
  widgetAssetsRefresh: '/v1/widget/assets/refresh',
} as const;

/** Fills `:name` placeholders of a route with URI-encoded values. */
export function routePath(route: string, params: Record<string, string | number> = {}): string {
  return route.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing route parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}

/** Path of the socket.io endpoint. */
export const SOCKET_PATH = '/socket.io';
