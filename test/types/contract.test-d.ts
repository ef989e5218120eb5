/**
 * Type tests of the contract (checked by tsc through Vitest's typecheck mode):
 * the unions discriminate, the constants keep their literal values, the
 * schemas' static types match the interface.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { Static } from 'typebox';
import {
  DEFAULT_BUTTON_TEXT,
  OPTIONS_MAX,
  OPTION_TITLE_MAX,
  SIGNED_URL_TTL_MIN,
  errorBody,
  routePath,
  type Ack,
  type ApiResponse,
  type BotMessage,
  type Campaign,
  type Member,
  type MemberType,
  type WidgetCreateBody,
  type WidgetPosition,
  type WidgetType,
  type BotMessageContent,
  type BotMessageType,
  type CampaignStatus,
  type ClientToServerEvents,
  type Contact,
  type ErrorBody,
  type ErrorKey,
  type Message,
  type MessageStatus,
  type MessageType,
  type OutgoingMessage,
  type Room,
  type ServerToClientEvents,
  type TextWithOptionsBotMessage,
  type VideoBotMessage,
} from '../../types/index.ts';
import type { AssetsRefreshBody, CampaignListQuery, CampaignUpdateBody } from '../../types/schemas/index.ts';
import type { OutboxEntry, OutboxStorage, WidgetInstance, WidgetOptions } from '../../src/index.ts';

describe('constants', () => {
  it('keep their literal values in the type', () => {
    expectTypeOf<typeof DEFAULT_BUTTON_TEXT>().toEqualTypeOf<'Opciones'>();
    expectTypeOf<typeof OPTIONS_MAX>().toEqualTypeOf<10>();
    expectTypeOf<typeof OPTION_TITLE_MAX>().toEqualTypeOf<24>();
    expectTypeOf<typeof SIGNED_URL_TTL_MIN>().toEqualTypeOf<900>();
  });
});

describe('BotMessage', () => {
  it('is a union discriminated by type', () => {
    expectTypeOf<BotMessage['type']>().toEqualTypeOf<BotMessageType>();
    expectTypeOf<Extract<BotMessage, { type: 'video' }>>().toEqualTypeOf<VideoBotMessage>();
    expectTypeOf<Extract<BotMessage, { type: 'video' }>['mediaUrl']>().toEqualTypeOf<string>();
    expectTypeOf<Extract<BotMessage, { type: 'voice_call' }>['parameters']>().toEqualTypeOf<{
      display_text: string;
    }>();
  });

  it('tells text with options apart by buttons', () => {
    const narrow = (m: Extract<BotMessage, { type: 'text' }>) => ('buttons' in m ? m.buttons : undefined);
    expectTypeOf(narrow).returns.toEqualTypeOf<TextWithOptionsBotMessage['buttons'] | undefined>();
    expectTypeOf<TextWithOptionsBotMessage['buttons']['options'][number]['title']>().toEqualTypeOf<string>();
  });

  it('requires userId and type, and drops them (userId, botId) for campaign content', () => {
    expectTypeOf<BotMessage>().toHaveProperty('userId').toEqualTypeOf<string>();
    expectTypeOf<BotMessageContent>().not.toHaveProperty('userId');
    // @ts-expect-error a text message needs its text
    const bad: BotMessage = { type: 'text', userId: 'u' };
    void bad;
  });
});

describe('Message', () => {
  it('narrows by type', () => {
    const fields = (m: Message) => {
      switch (m.type) {
        case 'TEXT':
          return m.text;
        case 'LOCATION':
          return `${m.lat},${m.lng}`;
        case 'EVENT':
          return m.eventPayload['key'];
        case 'POSTBACK':
          return m.payload;
        default:
          return m.mediaUrl;
      }
    };
    expectTypeOf(fields).parameter(0).toEqualTypeOf<Message>();
    expectTypeOf<Extract<Message, { type: 'IMAGE' }>['caption']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Message['type']>().toEqualTypeOf<MessageType>();
    expectTypeOf<Message['status']>().toEqualTypeOf<MessageStatus>();
  });

  it('outgoing messages carry no service-made fields', () => {
    expectTypeOf<OutgoingMessage>().not.toHaveProperty('status');
    expectTypeOf<OutgoingMessage>().toHaveProperty('id').toEqualTypeOf<string>();
    expectTypeOf<OutgoingMessage['type']>().toEqualTypeOf<
      'TEXT' | 'IMAGE' | 'AUDIO' | 'VIDEO' | 'DOCUMENT' | 'LOCATION' | 'POSTBACK' | 'EVENT'
    >();
  });
});

describe('schemas and their static types', () => {
  it('give the interface fields their types', () => {
    expectTypeOf<CampaignListQuery['limit']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<CampaignListQuery['botId']>().toEqualTypeOf<string>();
    expectTypeOf<CampaignUpdateBody>().toEqualTypeOf<{ name?: string; scheduledAt?: string }>();
    expectTypeOf<AssetsRefreshBody>().toEqualTypeOf<{ resourceUrl: string; ttl: number }>();
    expectTypeOf<
      Static<typeof import('../../types/schemas/index.ts').ApiResponse>
    >().toEqualTypeOf<ApiResponse>();
    expectTypeOf<CampaignStatus>().toEqualTypeOf<
      'PENDING' | 'SCHEDULED' | 'IN_PROGRESS' | 'COMPLETED' | 'CANCELLED'
    >();
    expectTypeOf<Contact['id']>().toEqualTypeOf<string | number>();
    expectTypeOf<Room['membersInfo'][number]['memberType']>().toEqualTypeOf<'Client' | 'Charla'>();
    expectTypeOf<Message['by']>().toEqualTypeOf<'user' | 'bot' | 'charla' | 'company' | 'client'>();
    expectTypeOf<Room['type']>().toEqualTypeOf<'bot' | 'direct' | 'group'>();
  });

  it('keep every enumerated field a union of its values (never collapsed to never)', () => {
    expectTypeOf<Campaign['status']>().toEqualTypeOf<CampaignStatus>();
    expectTypeOf<NonNullable<CampaignListQuery['status']>>().toEqualTypeOf<
      'COMPLETED' | 'PENDING' | 'IN_PROGRESS' | 'SCHEDULED'
    >();
    expectTypeOf<
      NonNullable<NonNullable<WidgetCreateBody['widget']['theme']>['position']>
    >().toEqualTypeOf<WidgetPosition>();
    expectTypeOf<
      NonNullable<NonNullable<WidgetCreateBody['widget']['properties']>['type']>
    >().toEqualTypeOf<WidgetType>();
    expectTypeOf<Member['memberType']>().toEqualTypeOf<MemberType>();
  });
});

describe('errors, routes and the socket protocol', () => {
  it('types the error helpers', () => {
    expectTypeOf(errorBody).parameter(0).toEqualTypeOf<ErrorKey>();
    expectTypeOf(errorBody).returns.toEqualTypeOf<ErrorBody>();
    expectTypeOf<ErrorBody['message']>().toEqualTypeOf<string | string[]>();
    expectTypeOf(routePath).returns.toBeString();
  });

  it('acknowledges with data or the error body', () => {
    const read = (a: Ack<Message>) => (a.ok ? a.data.id : a.error.error.code);
    expectTypeOf(read).returns.toEqualTypeOf<string | number>();
    expectTypeOf<Parameters<ClientToServerEvents['message:send']>[0]>().toEqualTypeOf<OutgoingMessage>();
    expectTypeOf<Parameters<ServerToClientEvents['message:new']>[0]>().toEqualTypeOf<Message>();
  });
});

describe('WidgetInstance', () => {
  it("setFlow promises the ApiResponse with the bot room and the flow (README's table)", () => {
    type Started = Awaited<ReturnType<WidgetInstance['setFlow']>>;
    expectTypeOf<Started>().toHaveProperty('roomId').toEqualTypeOf<string>();
    expectTypeOf<Started>().toHaveProperty('flowId').toEqualTypeOf<string>();
    expectTypeOf<Started>().toHaveProperty('status').toEqualTypeOf<boolean>();
    expectTypeOf<Started>().toHaveProperty('message').toEqualTypeOf<string[]>();
  });
});

describe('WidgetOptions', () => {
  it('takes what the README says a container and an outbox storage may be', () => {
    expectTypeOf<ShadowRoot>().toExtend<NonNullable<WidgetOptions['container']>>();
    expectTypeOf<SVGGElement>().toExtend<NonNullable<WidgetOptions['container']>>();
    // `document.getElementById('chat') ?? undefined` under exactOptionalPropertyTypes.
    expectTypeOf<undefined>().toExtend<WidgetOptions['container']>();
    expectTypeOf<null>().toExtend<WidgetOptions['container']>();
    expectTypeOf<string>().not.toExtend<WidgetOptions['container']>();
    const own = {
      load: async (): Promise<OutboxEntry[]> => [],
      put: async (_entry: OutboxEntry) => {},
      remove: async (_id: string) => {},
    };
    expectTypeOf(own).toExtend<OutboxStorage>();
    expectTypeOf(own).toExtend<NonNullable<WidgetOptions['outboxStorage']>>();
  });
});
