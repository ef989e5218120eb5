/**
 * Enumerations of the interface, as readonly arrays (for run-time checks and
 * schemas) with their union types. No imports.
 */

export const CAMPAIGN_STATUSES = ['PENDING', 'SCHEDULED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** Statuses the list filter accepts (the interface leaves CANCELLED out of the filter). */
export const CAMPAIGN_FILTER_STATUSES = ['COMPLETED', 'PENDING', 'IN_PROGRESS', 'SCHEDULED'] as const;

export const MESSAGE_TYPES = [
  'TEXT',
  'IMAGE',
  'AUDIO',
  'FILE',
  'DOCUMENT',
  'LOCATION',
  'POSTBACK',
  'EVENT',
  'VIDEO',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
/** The eight types a widget sends and renders with their own fields (FILE is named but has none). */
export const SENDABLE_MESSAGE_TYPES = [
  'TEXT',
  'IMAGE',
  'AUDIO',
  'VIDEO',
  'DOCUMENT',
  'LOCATION',
  'POSTBACK',
  'EVENT',
] as const;
export type SendableMessageType = (typeof SENDABLE_MESSAGE_TYPES)[number];
/** Types whose message carries a mediaUrl. */
export const MEDIA_MESSAGE_TYPES = ['IMAGE', 'AUDIO', 'VIDEO', 'DOCUMENT', 'FILE'] as const;
export type MediaMessageType = (typeof MEDIA_MESSAGE_TYPES)[number];

export const MESSAGE_STATUSES = [
  'CREATED',
  'DELIVERED',
  'FAILED',
  'DELIVERED_CHANNEL',
  'DELIVERED_USER',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
/** Order in which statuses advance; a status never moves back (FAILED stands apart). */
export const MESSAGE_STATUS_RANK: Record<MessageStatus, number> = {
  CREATED: 0,
  FAILED: 0,
  DELIVERED: 1,
  DELIVERED_CHANNEL: 2,
  DELIVERED_USER: 3,
};

/**
 * Who wrote a message. The interface's "the service" is Charla itself, so its
 * value is `charla`.
 */
export const MESSAGE_BY = ['user', 'bot', 'charla', 'company', 'client'] as const;
export type MessageBy = (typeof MESSAGE_BY)[number];

/** Member types. The interface's "the service" is Charla itself. Default Client. */
export const MEMBER_TYPES = ['Client', 'Charla'] as const;
export type MemberType = (typeof MEMBER_TYPES)[number];

/** Widget kinds (`widget.properties.type`). */
export const WIDGET_TYPES = ['normal', 'group'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

/** Positional codes for `widget.theme.position`: long names and their two-letter codes. */
export const WIDGET_POSITIONS = [
  'bottom-right',
  'bottom-left',
  'top-right',
  'top-left',
  'br',
  'bl',
  'tr',
  'tl',
] as const;
export type WidgetPosition = (typeof WIDGET_POSITIONS)[number];

/** `widget.theme.colorScheme` values the widget reads (`auto` follows the page's prefers-color-scheme). */
export const WIDGET_COLOR_SCHEMES = ['auto', 'light'] as const;
export type WidgetColorScheme = (typeof WIDGET_COLOR_SCHEMES)[number];

/** Room types (our choice; the interface does not show them). */
export const ROOM_TYPES = ['bot', 'direct', 'group'] as const;
export type RoomType = (typeof ROOM_TYPES)[number];

/** Bot message variants, by `type`. */
export const BOT_MESSAGE_TYPES = ['text', 'contacts', 'voice_call', 'video', 'contact_info_request'] as const;
export type BotMessageType = (typeof BOT_MESSAGE_TYPES)[number];

/** Connection states of a widget's live transport. */
export const CONNECTION_STATES = [
  'idle',
  'connecting',
  'connected',
  'reconnecting',
  'offline',
  'error',
] as const;
export type ConnectionState = (typeof CONNECTION_STATES)[number];

/** Languages of error messages and the widget's catalogues. */
export const LANGUAGES = ['es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
