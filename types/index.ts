/**
 * The contract. Constants and functions here have no dependencies; schema
 * files (types/schemas/) import TypeBox and are re-exported as types only, so
 * the browser bundle never pulls the schema library.
 */
export * from './limits.ts';
export * from './enums.ts';
export * from './errors.ts';
export * from './routes.ts';
export type * from './socket.ts';
export type * from './schemas/campaigns.ts';
export type * from './schemas/bot-messages.ts';
export type * from './schemas/widget-create.ts';
export type * from './schemas/rooms.ts';
export type * from './schemas/assets.ts';
export type * from './schemas/widget-objects.ts';
export type * from './schemas/widget-api.ts';
