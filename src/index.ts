/**
 * Charla's ESM entry: `import { createWidget } from 'charla'`. Importing it
 * registers the `charla-*` elements (define.ts); nothing else runs.
 */
import './define.ts';

export {
  createWidget,
  widgets,
  WidgetInstance,
  type FlowStarted,
  type SendableMessage,
  type WidgetOptions,
} from './widget/index.ts';
export type {
  WidgetContext,
  WidgetStores,
  WidgetActions,
  UiState,
  WidgetView,
  HistoryState,
  UploadState,
} from './widget/index.ts';
export type { HostStores } from './stores/index.ts';
export type { OutboxEntry, OutboxStorage, OutboxStorageKind } from './transport/outbox.ts';
export { CharlaError } from './transport/errors.ts';
export * from './events/index.ts';
export * from './define.ts';
export type {
  ApiResponse,
  Contact,
  ConnectionState,
  Member,
  Message,
  MessageStatus,
  MessageType,
  Room,
  ErrorBody,
} from '../types/index.ts';
export { version } from './version.ts';
