/**
 * The OpenAPI 3.1 document, generated from the route schemas by
 * @fastify/swagger and served at GET /v1/openapi.json (no credentials).
 * Register before the routes it describes (it collects them as they are added).
 */
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { ROUTES } from '../types/index.ts';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
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
        },
      },
      tags: [
        { name: 'Campaigns' },
        { name: 'Widgets' },
        { name: 'Bot messages' },
        { name: 'Rooms' },
        { name: 'Resources' },
      ],
    },
  });
  app.get(ROUTES.openapi, { schema: { hide: true } }, async () => app.swagger());
}
