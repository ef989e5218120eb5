/**
 * The OpenAPI 3.1 document, generated from the route schemas by
 * @fastify/swagger and served at GET /v1/openapi.json (no credentials).
 * Register before the routes it describes (it collects them as they are added).
 */
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { ROUTES } from '../types/index.ts';
import { UPLOAD_IMAGE_MAX_BYTES, UPLOAD_MEDIA_MAX_BYTES, UPLOAD_MEDIA_TYPES } from '../types/limits.ts';

const MB = 1024 * 1024;
import { errorResponses } from './routes/common.ts';
import {
  ApiResponse,
  MembersResult,
  MessagesResult,
  Room,
  RoomList,
  SessionResult,
  SignedUrlResult,
  UploadResult,
} from '../types/schemas/index.ts';
import Type from 'typebox';

/**
 * What the widget API answers besides 400, 413, 415 and 500 (server/live/widget-routes.ts): every
 * route behind the session token 401 (no token, or one that ended) and 403 (a page origin the
 * widget refuses, or a room the user is not a member of); some 404 or 422 of their own.
 */
const WIDGET_API_STATUSES = [401, 403];
/**
 * By method and path. 429 on opening a session, a room or a membership: the address's new users
 * of the hour are used up (a user the service has not seen); on an upload, its own allowance.
 */
const WIDGET_ROUTE_STATUSES: Record<string, number[]> = {
  [`POST ${ROUTES.widgetSession}`]: [401, 403, 404, 429],
  [`POST ${ROUTES.widgetDirectRoom}`]: [404, 429],
  [`POST ${ROUTES.widgetRoomMembers}`]: [429],
  [`POST ${ROUTES.widgetRoomMembersBulk}`]: [429],
  [`POST ${ROUTES.widgetRoomJoin}`]: [429],
  [`GET ${ROUTES.widgetRoomMessages}`]: [404],
  [`POST ${ROUTES.widgetFlow}`]: [404],
  [`POST ${ROUTES.widgetUpload}`]: [400, 413, 415, 422, 429],
  [`POST ${ROUTES.widgetAssetsRefresh}`]: [422],
};
/**
 * The widget API's answers, for the document only: its routes serialize without a response schema
 * (one would drop what it does not list), so these are described here, from the same TypeBox
 * schemas the widget reads them with (a service test checks real answers against them).
 */
const WIDGET_ANSWERS: Record<string, [description: string, schema: object]> = {
  [`POST ${ROUTES.widgetSession}`]: [
    'The session: its token, the user, the widget, its bot and the bot room',
    SessionResult,
  ],
  [`GET ${ROUTES.widgetRooms}`]: ["The user's rooms", RoomList],
  [`POST ${ROUTES.widgetDirectRoom}`]: ['The room of the two users (made on first need)', Room],
  [`GET ${ROUTES.widgetRoom}`]: ['The room', Room],
  [`GET ${ROUTES.widgetRoomMembers}`]: ["The room's members", MembersResult],
  [`POST ${ROUTES.widgetRoomMembers}`]: ['Done (or already a member)', ApiResponse],
  [`POST ${ROUTES.widgetRoomMembersBulk}`]: ['Done, a line per member', ApiResponse],
  [`POST ${ROUTES.widgetRoomJoin}`]: ['Done (or already a member)', ApiResponse],
  [`POST ${ROUTES.widgetRoomLeave}`]: ['Done (or not a member)', ApiResponse],
  [`GET ${ROUTES.widgetRoomMessages}`]: ['A page of messages, oldest first', MessagesResult],
  [`POST ${ROUTES.widgetFlow}`]: [
    'The flow started, in the bot room',
    Type.Object({ ...ApiResponse.properties, roomId: Type.String(), flowId: Type.String() }),
  ],
  [`POST ${ROUTES.widgetUpload}`]: ['The stored file, to send in a message', UploadResult],
  [`POST ${ROUTES.widgetAssetsRefresh}`]: ['A fresh signed address of the same resource', SignedUrlResult],
};
/** OpenAPI's path for a fastify route (`:roomId` -> `{roomId}`). */
const openApiPath = (route: string) => route.replace(/:(\w+)/g, '{$1}');

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    transform: ({ schema, url, route }) => {
      // CORS preflight handlers, the static files (the widget bundles, the demo pages) and
      // catch-all paths (signed media, /v1/media/*) are plumbing, not operations.
      if (route.method === 'OPTIONS' || !url.startsWith('/v1/') || url.includes('*'))
        return { schema: { ...schema, hide: true }, url };
      // The widget API (all but opening a session) needs the session's Bearer token.
      const widgetApi =
        url.startsWith('/v1/widget/') && url !== ROUTES.widgetSession && url !== ROUTES.createWidget;
      // What any operation may also answer, with the error body (the routes list only their own):
      // 400 for a malformed path, query or body; 413 and 415 for a body too large or not JSON; 500
      // for an unexpected failure. The widget API's 200s are described from WIDGET_ANSWERS.
      const operation = `${route.method as string} ${url}`;
      const answer = WIDGET_ANSWERS[operation];
      const given = (schema?.response ??
        (answer
          ? { 200: { description: answer[0], content: { 'application/json': { schema: answer[1] } } } }
          : { 200: { description: 'Default Response' } })) as Record<string, unknown>;
      const also = errorResponses(
        500,
        ...(schema?.params || schema?.querystring || schema?.body ? [400] : []),
        ...(schema?.body ? [413, 415] : []),
        ...(widgetApi ? WIDGET_API_STATUSES : []),
        ...(WIDGET_ROUTE_STATUSES[operation] ?? []),
      );
      return {
        schema: {
          ...schema,
          response: { ...also, ...given },
          ...(widgetApi && !schema?.security ? { security: [{ widgetSession: [] }] } : {}),
        },
        url,
      };
    },
    // The upload takes multipart/form-data, which its route reads itself (no body schema to describe).
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const { openapiObject } = documentObject;
      const upload = (openapiObject as { paths?: Record<string, Record<string, object>> }).paths?.[
        openApiPath(ROUTES.widgetUpload)
      ]?.['post'];
      if (upload)
        Object.assign(upload, {
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['file'],
                  properties: {
                    roomId: {
                      type: 'string',
                      maxLength: 200,
                      description:
                        'The room the file is for: only its members may upload (optional). Given once, before the file part (a roomId given twice is a 400; one after the file is not read).',
                    },
                    file: {
                      type: 'string',
                      format: 'binary',
                      description:
                        `One file, of one of these types: ${Object.values(UPLOAD_MEDIA_TYPES).flat().join(', ')}. ` +
                        `An image of at most ${UPLOAD_IMAGE_MAX_BYTES / MB} MB, anything else of at most ${UPLOAD_MEDIA_MAX_BYTES / MB} MB.`,
                    },
                  },
                },
              },
            },
          },
        });
      return openapiObject;
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Charla',
        description:
          'Messaging, campaigns, widgets and rooms. Every operation needs `Authorization: Basic base64(clientId:clientSecret)`; widget creation and room posting also accept `Basic <COMPANY_TOKEN>`.',
        version: '1.0.0',
      },
      components: {
        securitySchemes: {
          basicAuth: { type: 'http', scheme: 'basic', description: 'Basic base64(clientId:clientSecret)' },
          companyToken: { type: 'http', scheme: 'basic', description: 'Basic <COMPANY_TOKEN>' },
          widgetSession: {
            type: 'http',
            scheme: 'bearer',
            description: 'The widget session token from POST /v1/widget/session (the widget API only)',
          },
        },
      },
      tags: [
        { name: 'Campaigns' },
        { name: 'Widgets' },
        { name: 'Bot messages' },
        { name: 'Rooms' },
        { name: 'Resources' },
        { name: 'Widget API', description: 'What the embedded widget calls, with its session token' },
      ],
    },
  });
  app.get(ROUTES.openapi, { schema: { hide: true } }, async () => app.swagger());
}
