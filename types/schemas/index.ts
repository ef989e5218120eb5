/** Run-time schemas (TypeBox). Server and tests only; never import from src/. */
export * from './common.ts';
export * from './campaigns.ts';
export * from './bot-messages.ts';
export * from './widget-create.ts';
export * from './rooms.ts';
export * from './assets.ts';
export * from './widget-objects.ts';
export * from './widget-api.ts';
