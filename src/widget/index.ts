/** The widget core's public surface. */
export { createWidget, widgets } from './create-widget.ts';
export { WidgetInstance, type FlowStarted, type SendableMessage } from './instance.ts';
export { WidgetCore, type WidgetOptions } from './core.ts';
export type {
  WidgetContext,
  WidgetStores,
  WidgetActions,
  UiState,
  WidgetView,
  HistoryState,
  UploadState,
} from './context.ts';
