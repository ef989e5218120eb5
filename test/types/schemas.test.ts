/**
 * Contract tests: every request schema of types/schemas accepts a valid
 * example and rejects invalid ones, for the reason expected, with each limit
 * of INTERFACE.md checked at and just past its bound.
 */
import { describe, expect, it } from 'vitest';
import {
  ADD_MEMBERS_MAX,
  CONTACTS_MAX,
  MESSAGE_TEXT_MAX,
  ROOM_POST_MESSAGES_MAX,
  SENDABLE_MESSAGE_TYPES,
  SHORT_TEXT_MAX,
} from '../../types/index.ts';
import {
  AddMemberBody,
  AddMembersBody,
  AssetsRefreshBody,
  BotContact,
  botMessageSchemaFor,
  BotMessageSchema,
  CampaignCreateBody,
  CampaignListQuery,
  CampaignUpdateBody,
  ContactInfoRequestBotMessage,
  ContactsBotMessage,
  GetMessagesQuery,
  OpenRoomWithUserBody,
  OUTGOING_MESSAGE_SCHEMAS,
  OutgoingMessage,
  RoomPostBody,
  SessionBody,
  SetFlowBody,
  TextBotMessage,
  TextWithOptionsBotMessage,
  UserIdBody,
  VideoBotMessage,
  VoiceCallBotMessage,
  WidgetCreateBody,
  WidgetRefreshBody,
} from '../../types/schemas/index.ts';
import { chars, expectAccepted, expectRejected, withFields } from './helpers.ts';

const UUID = '0b7e4a52-3f0c-4c8e-9d7a-2f1e5b6c7d80';

describe('CampaignListQuery', () => {
  const query = { botId: 'bot-1', startAt: '2026-01-01', endAt: '2026-01-31' };

  it('accepts the required fields alone, and with every optional one', () => {
    expectAccepted(CampaignListQuery, query);
    expectAccepted(CampaignListQuery, {
      ...query,
      page: 3,
      limit: 25,
      elementName: 'promo_enero',
      status: 'SCHEDULED',
      startAt: '2026-01-01T00:00:00Z',
      endAt: '2026-01-31T23:59:59.999-05:00',
    });
  });

  it.each(['botId', 'startAt', 'endAt'])('rejects a query without %s', (field) => {
    expectRejected(CampaignListQuery, withFields(query, { [field]: undefined }), '');
  });

  it('accepts limit 1 and 50, rejects 0, 51 and fractions', () => {
    expectAccepted(CampaignListQuery, { ...query, limit: 1 });
    expectAccepted(CampaignListQuery, { ...query, limit: 50 });
    expectRejected(CampaignListQuery, { ...query, limit: 51 }, '/limit');
    expectRejected(CampaignListQuery, { ...query, limit: 0 }, '/limit');
    expectRejected(CampaignListQuery, { ...query, limit: 10.5 }, '/limit');
  });

  it('rejects page 0', () => {
    expectAccepted(CampaignListQuery, { ...query, page: 1 });
    expectRejected(CampaignListQuery, { ...query, page: 0 }, '/page');
  });

  it('filters by the four listed statuses only', () => {
    for (const status of ['COMPLETED', 'PENDING', 'IN_PROGRESS', 'SCHEDULED']) {
      expectAccepted(CampaignListQuery, { ...query, status });
    }
    expectRejected(CampaignListQuery, { ...query, status: 'CANCELLED' }, '/status');
    expectRejected(CampaignListQuery, { ...query, status: 'scheduled' }, '/status');
  });

  it('rejects dates that are not ISO 8601', () => {
    expectRejected(CampaignListQuery, { ...query, startAt: '01/02/2026' }, '/startAt');
    expectRejected(CampaignListQuery, { ...query, endAt: 'tomorrow' }, '/endAt');
    expectRejected(CampaignListQuery, { ...query, botId: '' }, '/botId');
  });
});

describe('CampaignUpdateBody', () => {
  it('accepts name, scheduledAt, or both', () => {
    expectAccepted(CampaignUpdateBody, { name: 'Promo de enero' });
    expectAccepted(CampaignUpdateBody, { scheduledAt: '2026-12-01T10:00:00Z' });
    expectAccepted(CampaignUpdateBody, { name: 'Promo', scheduledAt: '2026-12-01T10:00:00.000-05:00' });
    expectAccepted(CampaignUpdateBody, { scheduledAt: '2026-12-01T10:00+0530' });
  });

  it('rejects an empty body', () => {
    expectRejected(CampaignUpdateBody, {}, '');
  });

  it('rejects a body with neither name nor scheduledAt', () => {
    expectRejected(CampaignUpdateBody, { foo: 1 }, '');
    expectRejected(CampaignUpdateBody, { status: 'CANCELLED' }, '');
  });

  it('rejects a scheduledAt without a time zone, or without a time', () => {
    expectRejected(CampaignUpdateBody, { scheduledAt: '2026-12-01T10:00:00' }, '/scheduledAt');
    expectRejected(CampaignUpdateBody, { scheduledAt: '2026-12-01' }, '/scheduledAt');
    expectRejected(CampaignUpdateBody, { scheduledAt: 1767261600000 }, '/scheduledAt');
  });

  it('rejects an empty or overlong name', () => {
    expectAccepted(CampaignUpdateBody, { name: chars(SHORT_TEXT_MAX) });
    expectRejected(CampaignUpdateBody, { name: '' }, '/name');
    expectRejected(CampaignUpdateBody, { name: chars(SHORT_TEXT_MAX + 1) }, '/name');
  });
});

describe('CampaignCreateBody', () => {
  const body = {
    name: 'Promo',
    elementName: 'promo_enero',
    botId: 'bot-1',
    recipients: ['user-1', 'user-2'],
    message: { type: 'text', text: 'Hola' },
  };

  it('accepts a campaign sent at once and a scheduled one with any bot message variant', () => {
    expectAccepted(CampaignCreateBody, body);
    expectAccepted(CampaignCreateBody, { ...body, scheduledAt: '2026-12-01T10:00:00Z' });
    expectAccepted(CampaignCreateBody, {
      ...body,
      message: { type: 'video', mediaUrl: 'https://cdn.example.com/v.mp4', text: 'Mira' },
    });
    expectAccepted(CampaignCreateBody, {
      ...body,
      message: { type: 'text', text: 'Elige', buttons: { options: [{ title: 'Sí' }] } },
    });
  });

  it.each(['name', 'elementName', 'botId', 'recipients', 'message'])('rejects a body without %s', (field) => {
    expectRejected(CampaignCreateBody, withFields(body, { [field]: undefined }), '');
  });

  it('rejects no recipients, an unknown message type and a scheduledAt without zone', () => {
    expectRejected(CampaignCreateBody, { ...body, recipients: [] }, '/recipients');
    expectRejected(CampaignCreateBody, { ...body, message: { type: 'sticker', text: 'x' } }, '/message');
    expectRejected(CampaignCreateBody, { ...body, message: { type: 'text' } }, '/message');
    expectRejected(CampaignCreateBody, { ...body, scheduledAt: '2026-12-01 10:00' }, '/scheduledAt');
  });
});

describe('WidgetCreateBody', () => {
  const full = {
    bot: { id: 'bot-1' },
    widget: {
      properties: { type: 'group', name: 'Soporte' },
      theme: {
        position: 'br',
        status: true,
        font: { googlefont: true, name: 'Open Sans' },
        colors: { primary: '#0b5fff' },
      },
      credentials: {
        whiteList: ['https://shop.example.com', 'https://*.example.com', 'http://localhost:3000'],
        blackList: [],
      },
      menus: [{ title: 'Inicio' }],
    },
  };

  it('accepts an existing bot with a full configuration, and a new bot with an empty one', () => {
    expectAccepted(WidgetCreateBody, full);
    expectAccepted(WidgetCreateBody, { bot: {}, widget: {} });
    expectAccepted(WidgetCreateBody, {
      bot: { name: 'Nuevo', callingEnabled: true },
      widget: { properties: { type: 'normal' } },
    });
  });

  it('takes credentials.identityVerification as a boolean only', () => {
    expectAccepted(WidgetCreateBody, { bot: {}, widget: { credentials: { identityVerification: true } } });
    expectAccepted(WidgetCreateBody, { bot: {}, widget: { credentials: { identityVerification: false } } });
    expectRejected(
      WidgetCreateBody,
      { bot: {}, widget: { credentials: { identityVerification: 'yes' } } },
      '/widget/credentials/identityVerification',
    );
  });

  it('rejects a body without bot or widget', () => {
    expectRejected(WidgetCreateBody, { widget: {} }, '');
    expectRejected(WidgetCreateBody, { bot: {} }, '');
  });

  it('rejects unknown bot fields and bad typed widget fields', () => {
    expectRejected(WidgetCreateBody, { bot: { token: 'x' }, widget: {} }, '/bot');
    expectRejected(WidgetCreateBody, { bot: { id: '' }, widget: {} }, '/bot/id');
    expectRejected(
      WidgetCreateBody,
      { bot: {}, widget: { properties: { type: 'popup' } } },
      '/widget/properties/type',
    );
    expectRejected(
      WidgetCreateBody,
      { bot: {}, widget: { theme: { position: 'middle' } } },
      '/widget/theme/position',
    );
    expectRejected(
      WidgetCreateBody,
      { bot: {}, widget: { theme: { status: 'yes' } } },
      '/widget/theme/status',
    );
    expectRejected(
      WidgetCreateBody,
      { bot: {}, widget: { theme: { font: { name: 'x;}</style><script>' } } } },
      '/widget/theme/font/name',
    );
    expectRejected(
      WidgetCreateBody,
      { bot: {}, widget: { credentials: { whiteList: ['javascript:alert(1)'] } } },
      '/widget/credentials/whiteList/0',
    );
    expectRejected(
      WidgetCreateBody,
      { bot: {}, widget: { credentials: { blackList: 'https://a.com' } } },
      '/widget/credentials/blackList',
    );
  });
});

describe('bot messages', () => {
  const base = { userId: 'user-1' };
  const options = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ title: `Opción ${i + 1}`, payload: `p${i}` }));

  describe('text', () => {
    it('accepts text, with or without the redundant botId', () => {
      expectAccepted(TextBotMessage, { ...base, type: 'text', text: 'Hola' });
      expectAccepted(TextBotMessage, { ...base, type: 'text', text: 'Hola', botId: 'bot-1' });
      expectAccepted(TextBotMessage, { ...base, type: 'text', text: chars(MESSAGE_TEXT_MAX) });
    });

    it('rejects no text, empty text, overlong text, no userId and another type', () => {
      expectRejected(TextBotMessage, { ...base, type: 'text' }, '');
      expectRejected(TextBotMessage, { ...base, type: 'text', text: '' }, '/text');
      expectRejected(TextBotMessage, { ...base, type: 'text', text: chars(MESSAGE_TEXT_MAX + 1) }, '/text');
      expectRejected(TextBotMessage, { type: 'text', text: 'Hola' }, '');
      expectRejected(TextBotMessage, { ...base, type: 'contacts', text: 'Hola' }, '/type');
    });
  });

  describe('text with options', () => {
    const msg = (buttons: unknown) => ({ ...base, type: 'text', text: 'Elige una opción', buttons });

    it('accepts 1 to 10 options with title, buttonText and descriptions', () => {
      expectAccepted(TextWithOptionsBotMessage, msg({ options: options(1) }));
      expectAccepted(TextWithOptionsBotMessage, msg({ options: options(10) }));
      expectAccepted(
        TextWithOptionsBotMessage,
        msg({
          title: 'Menú',
          buttonText: { type: 'text', text: 'Ver opciones' },
          options: [{ title: 'Ventas', description: 'Hablar con ventas', payload: 'sales' }],
        }),
      );
    });

    it('rejects 0 and 11 options', () => {
      expectRejected(TextWithOptionsBotMessage, msg({ options: options(0) }), '/buttons/options');
      expectRejected(TextWithOptionsBotMessage, msg({ options: options(11) }), '/buttons/options');
      expectRejected(TextWithOptionsBotMessage, msg({ title: 'Sin opciones' }), '/buttons');
    });

    it('accepts an option title of 24 characters and rejects 25', () => {
      expectAccepted(TextWithOptionsBotMessage, msg({ options: [{ title: chars(24) }] }));
      expectRejected(
        TextWithOptionsBotMessage,
        msg({ options: [{ title: chars(25) }] }),
        '/buttons/options/0/title',
      );
      expectRejected(
        TextWithOptionsBotMessage,
        msg({ options: [{ title: '' }] }),
        '/buttons/options/0/title',
      );
      expectRejected(
        TextWithOptionsBotMessage,
        msg({ options: [{ description: 'sin título' }] }),
        '/buttons/options/0',
      );
    });

    it('accepts an option description of 72 characters and rejects 73', () => {
      expectAccepted(TextWithOptionsBotMessage, msg({ options: [{ title: 'A', description: chars(72) }] }));
      expectRejected(
        TextWithOptionsBotMessage,
        msg({ options: [{ title: 'A', description: chars(73) }] }),
        '/buttons/options/0/description',
      );
    });

    it('rejects a buttonText that is not of type text', () => {
      expectRejected(
        TextWithOptionsBotMessage,
        msg({ buttonText: { type: 'url', text: 'Ir' }, options: options(1) }),
        '/buttons/buttonText/type',
      );
      expectRejected(
        TextWithOptionsBotMessage,
        msg({ buttonText: { type: 'text', text: '' }, options: options(1) }),
        '/buttons/buttonText/text',
      );
    });
  });

  describe('contacts', () => {
    const contact = {
      name: { formatted_name: 'Ana Pérez', first_name: 'Ana', last_name: 'Pérez' },
      phones: [{ phone: '+5215512345678', type: 'CELL', wa_id: '5215512345678' }],
      emails: [{ email: 'ana@example.com', type: 'WORK' }],
      addresses: [
        {
          street: 'Av. Reforma 1',
          city: 'CDMX',
          state: 'CDMX',
          zip: '06600',
          country: 'México',
          country_code: 'MX',
          type: 'WORK',
        },
      ],
    };

    it('accepts full contacts and contacts with no fields at all', () => {
      expectAccepted(ContactsBotMessage, { ...base, type: 'contacts', contacts: [contact] });
      expectAccepted(ContactsBotMessage, { ...base, type: 'contacts', contacts: [{}] });
      expectAccepted(ContactsBotMessage, {
        ...base,
        type: 'contacts',
        contacts: Array.from({ length: CONTACTS_MAX }, () => ({})),
      });
    });

    it('accepts E.164 phones of 7 to 15 digits (Niue +683 and Tokelau +690 numbers have 7)', () => {
      for (const phone of ['+6834002', '+12345678', '+442071838750', '+123456789012345']) {
        expectAccepted(BotContact, { phones: [{ phone }] });
      }
    });

    it('rejects phones that are not E.164', () => {
      for (const phone of [
        '5215512345678',
        '+0123456789',
        '+123456',
        '+1234567890123456',
        '+52 55 1234 5678',
        '+52-55-1234',
      ]) {
        expectRejected(BotContact, { phones: [{ phone }] }, '/phones/0/phone');
      }
    });

    it('rejects a bad email, an empty list, too many contacts and a missing list', () => {
      expectRejected(BotContact, { emails: [{ email: 'ana-at-example' }] }, '/emails/0/email');
      expectRejected(ContactsBotMessage, { ...base, type: 'contacts', contacts: [] }, '/contacts');
      expectRejected(
        ContactsBotMessage,
        { ...base, type: 'contacts', contacts: Array.from({ length: CONTACTS_MAX + 1 }, () => ({})) },
        '/contacts',
      );
      expectRejected(ContactsBotMessage, { ...base, type: 'contacts' }, '');
    });
  });

  describe('voice_call', () => {
    const call = { ...base, type: 'voice_call', text: 'Llámanos', parameters: { display_text: 'Llamar' } };

    it('accepts a call button, with or without header', () => {
      expectAccepted(VoiceCallBotMessage, call);
      expectAccepted(VoiceCallBotMessage, { ...call, header: 'Soporte' });
    });

    it('rejects no parameters, no display_text, an empty display_text and no text', () => {
      expectRejected(VoiceCallBotMessage, withFields(call, { parameters: undefined }), '');
      expectRejected(VoiceCallBotMessage, { ...call, parameters: {} }, '/parameters');
      expectRejected(
        VoiceCallBotMessage,
        { ...call, parameters: { display_text: '' } },
        '/parameters/display_text',
      );
      expectRejected(VoiceCallBotMessage, withFields(call, { text: undefined }), '');
    });
  });

  describe('video', () => {
    const video = { ...base, type: 'video', mediaUrl: 'https://cdn.example.com/clip.mp4' };

    it('accepts a video address with or without caption', () => {
      expectAccepted(VideoBotMessage, video);
      expectAccepted(VideoBotMessage, { ...video, text: 'Nuestro producto' });
    });

    it('rejects a missing address, an address that is not http(s) and an overlong caption', () => {
      expectRejected(VideoBotMessage, withFields(video, { mediaUrl: undefined }), '');
      expectRejected(VideoBotMessage, { ...video, mediaUrl: 'ftp://cdn.example.com/clip.mp4' }, '/mediaUrl');
      expectRejected(VideoBotMessage, { ...video, mediaUrl: 'javascript:alert(1)//x' }, '/mediaUrl');
      expectRejected(VideoBotMessage, { ...video, text: chars(MESSAGE_TEXT_MAX + 1) }, '/text');
    });
  });

  describe('contact_info_request', () => {
    it('accepts a request with its text and rejects one without', () => {
      expectAccepted(ContactInfoRequestBotMessage, {
        ...base,
        type: 'contact_info_request',
        text: '¿Nos compartes tus datos?',
      });
      expectRejected(ContactInfoRequestBotMessage, { ...base, type: 'contact_info_request' }, '');
      expectRejected(
        ContactInfoRequestBotMessage,
        { ...base, type: 'contact_info_request', text: '' },
        '/text',
      );
    });
  });

  describe('botMessageSchemaFor()', () => {
    it('picks the variant by type, and by buttons for text', () => {
      expect(botMessageSchemaFor({ type: 'text', text: 'x' })).toBe(TextBotMessage);
      expect(botMessageSchemaFor({ type: 'text', text: 'x', buttons: {} })).toBe(TextWithOptionsBotMessage);
      expect(botMessageSchemaFor({ type: 'contacts' })).toBe(ContactsBotMessage);
      expect(botMessageSchemaFor({ type: 'voice_call' })).toBe(VoiceCallBotMessage);
      expect(botMessageSchemaFor({ type: 'video' })).toBe(VideoBotMessage);
      expect(botMessageSchemaFor({ type: 'contact_info_request' })).toBe(ContactInfoRequestBotMessage);
    });

    it('returns undefined for unknown types and non-objects', () => {
      expect(botMessageSchemaFor({ type: 'sticker' })).toBeUndefined();
      expect(botMessageSchemaFor({})).toBeUndefined();
      expect(botMessageSchemaFor(null)).toBeUndefined();
      expect(botMessageSchemaFor('text')).toBeUndefined();
      expect(botMessageSchemaFor([{ type: 'text' }])).toBeUndefined();
    });

    it('makes a text body with bad buttons fail on the buttons, not pass as plain text', () => {
      const body = { ...base, type: 'text', text: 'Elige', buttons: { options: options(11) } };
      const schema = botMessageSchemaFor(body);
      expect(schema).toBe(TextWithOptionsBotMessage);
      expectRejected(TextWithOptionsBotMessage, body, '/buttons/options');
    });

    it('has every variant in the documentation union', () => {
      expectAccepted(BotMessageSchema, { ...base, type: 'contact_info_request', text: 'x' });
      expectAccepted(BotMessageSchema, { ...base, type: 'video', mediaUrl: 'https://a.example/v.mp4' });
      expectRejected(BotMessageSchema, { ...base, type: 'location', lat: '1', lng: '2' }, '');
    });
  });
});

describe('RoomPostBody', () => {
  const body = {
    senderId: 'bot-1',
    messages: [
      { id: UUID, type: 'TEXT', text: 'Tu pedido salió' },
      {
        id: '1b7e4a52-3f0c-4c8e-9d7a-2f1e5b6c7d81',
        type: 'IMAGE',
        mediaUrl: 'https://cdn.example.com/a.png',
      },
      {
        id: '2b7e4a52-3f0c-4c8e-9d7a-2f1e5b6c7d82',
        type: 'VIDEO',
        mediaUrl: 'https://cdn.example.com/a.mp4',
      },
      {
        id: '3b7e4a52-3f0c-4c8e-9d7a-2f1e5b6c7d83',
        type: 'DOCUMENT',
        mediaUrl: 'https://cdn.example.com/a.pdf',
        caption: 'Factura',
      },
    ],
  };

  it('accepts text and media messages', () => {
    expectAccepted(RoomPostBody, body);
    expectAccepted(RoomPostBody, {
      senderId: 'x',
      messages: Array.from({ length: ROOM_POST_MESSAGES_MAX }, () => ({ id: UUID, type: 'TEXT', text: 'a' })),
    });
  });

  it('rejects text without text and media without mediaUrl', () => {
    expectRejected(RoomPostBody, { senderId: 's', messages: [{ id: UUID, type: 'TEXT' }] }, '/messages/0');
    expectRejected(
      RoomPostBody,
      { senderId: 's', messages: [{ id: UUID, type: 'TEXT', text: '' }] },
      '/messages/0',
    );
    expectRejected(RoomPostBody, { senderId: 's', messages: [{ id: UUID, type: 'IMAGE' }] }, '/messages/0');
    expectRejected(
      RoomPostBody,
      { senderId: 's', messages: [{ id: UUID, type: 'DOCUMENT', text: 'x' }] },
      '/messages/0',
    );
  });

  it('rejects an id that is not a UUID, an unknown type, no sender and no or too many messages', () => {
    expectRejected(
      RoomPostBody,
      { senderId: 's', messages: [{ id: 'msg-1', type: 'TEXT', text: 'a' }] },
      '/messages/0',
    );
    expectRejected(
      RoomPostBody,
      { senderId: 's', messages: [{ id: UUID, type: 'STICKER', mediaUrl: 'https://a.example/s.webp' }] },
      '/messages/0',
    );
    expectRejected(RoomPostBody, withFields(body, { senderId: undefined }), '');
    expectRejected(RoomPostBody, { senderId: 's', messages: [] }, '/messages');
    expectRejected(
      RoomPostBody,
      {
        senderId: 's',
        messages: Array.from({ length: ROOM_POST_MESSAGES_MAX + 1 }, () => ({
          id: UUID,
          type: 'TEXT',
          text: 'a',
        })),
      },
      '/messages',
    );
  });
});

describe('AssetsRefreshBody', () => {
  const url = 'https://media.example.com/r/abc.jpg';

  it('accepts ttl 900 and 3600, rejects 899 and 3601', () => {
    expectAccepted(AssetsRefreshBody, { resourceUrl: url, ttl: 900 });
    expectAccepted(AssetsRefreshBody, { resourceUrl: url, ttl: 3600 });
    expectRejected(AssetsRefreshBody, { resourceUrl: url, ttl: 899 }, '/ttl');
    expectRejected(AssetsRefreshBody, { resourceUrl: url, ttl: 3601 }, '/ttl');
  });

  it('rejects a fractional ttl, a missing ttl or address, and an address that is not https', () => {
    expectRejected(AssetsRefreshBody, { resourceUrl: url, ttl: 1800.5 }, '/ttl');
    expectRejected(AssetsRefreshBody, { resourceUrl: url }, '');
    expectRejected(AssetsRefreshBody, { ttl: 900 }, '');
    expectRejected(
      AssetsRefreshBody,
      { resourceUrl: 'http://media.example.com/r/abc.jpg', ttl: 900 },
      '/resourceUrl',
    );
    expectRejected(
      AssetsRefreshBody,
      { resourceUrl: 'media.example.com/r/abc.jpg', ttl: 900 },
      '/resourceUrl',
    );
  });
});

describe('SessionBody', () => {
  const apiKey = chars(32, 'k');

  it('accepts an API key alone, or with a user, names and language', () => {
    expectAccepted(SessionBody, { apiKey });
    expectAccepted(SessionBody, { apiKey, userId: 'user-1', userNames: 'Ana', language: 'es' });
    expectAccepted(SessionBody, { apiKey: chars(16) });
    // A short or long key is a wrong key (401 from the service), not a malformed body.
    expectAccepted(SessionBody, { apiKey: 'wrong-key' });
    expectAccepted(SessionBody, { apiKey: chars(1024) });
  });

  it('rejects a missing or short key and an empty user id', () => {
    expectRejected(SessionBody, {}, '');
    expectRejected(SessionBody, { apiKey: '' }, '/apiKey');
    expectRejected(SessionBody, { apiKey: chars(1025) }, '/apiKey');
    expectRejected(SessionBody, { apiKey, userId: '' }, '/userId');
  });

  it('takes a userHash (identity verification) up to 200 characters', () => {
    expectAccepted(SessionBody, { apiKey, userId: 'user-1', userHash: chars(64, 'a') });
    expectAccepted(SessionBody, { apiKey, userId: 'user-1', userHash: chars(200, 'a') });
    expectRejected(SessionBody, { apiKey, userId: 'user-1', userHash: chars(201, 'a') }, '/userHash');
    expectRejected(SessionBody, { apiKey, userId: 'user-1', userHash: 64 }, '/userHash');
  });
});

describe('OutgoingMessage', () => {
  const base = { id: UUID, roomId: 'room-1' };
  const valid = {
    TEXT: { ...base, type: 'TEXT', text: 'Hola' },
    IMAGE: { ...base, type: 'IMAGE', mediaUrl: 'https://cdn.example.com/a.png', caption: 'Foto' },
    AUDIO: { ...base, type: 'AUDIO', mediaUrl: 'https://cdn.example.com/a.ogg' },
    VIDEO: { ...base, type: 'VIDEO', mediaUrl: 'https://cdn.example.com/a.mp4' },
    DOCUMENT: { ...base, type: 'DOCUMENT', mediaUrl: 'https://cdn.example.com/a.pdf', caption: 'Contrato' },
    LOCATION: { ...base, type: 'LOCATION', lat: '19.4326', lng: '-99.1332' },
    POSTBACK: { ...base, type: 'POSTBACK', text: 'Ventas', payload: { option: 'sales' } },
    EVENT: {
      ...base,
      type: 'EVENT',
      slug: 'cart-viewed',
      description: 'Vio el carrito',
      eventPayload: { sku: 'A1' },
    },
  } as const;

  it('has one schema per sendable type', () => {
    expect(Object.keys(OUTGOING_MESSAGE_SCHEMAS).sort()).toEqual([...SENDABLE_MESSAGE_TYPES].sort());
  });

  it.each(SENDABLE_MESSAGE_TYPES)('accepts a %s message, by its own schema and the union', (type) => {
    expectAccepted(OUTGOING_MESSAGE_SCHEMAS[type], valid[type]);
    expectAccepted(OutgoingMessage, valid[type]);
    expectAccepted(OutgoingMessage, { ...valid[type], senderNames: 'Ana' });
  });

  it.each(SENDABLE_MESSAGE_TYPES)(
    'rejects a %s message whose id is not a UUID or that has no room',
    (type) => {
      expectRejected(OUTGOING_MESSAGE_SCHEMAS[type], { ...valid[type], id: 'abc' }, '/id');
      expectRejected(OUTGOING_MESSAGE_SCHEMAS[type], withFields(valid[type], { roomId: undefined }), '');
    },
  );

  it('rejects each type without its own fields', () => {
    expectRejected(OUTGOING_MESSAGE_SCHEMAS.TEXT, { ...valid.TEXT, text: '' }, '/text');
    expectRejected(
      OUTGOING_MESSAGE_SCHEMAS.TEXT,
      { ...valid.TEXT, text: chars(MESSAGE_TEXT_MAX + 1) },
      '/text',
    );
    expectRejected(OUTGOING_MESSAGE_SCHEMAS.IMAGE, withFields(valid.IMAGE, { mediaUrl: undefined }), '');
    expectRejected(
      OUTGOING_MESSAGE_SCHEMAS.AUDIO,
      { ...valid.AUDIO, mediaUrl: 'file:///etc/passwd' },
      '/mediaUrl',
    );
    expectRejected(
      OUTGOING_MESSAGE_SCHEMAS.VIDEO,
      { ...valid.VIDEO, mediaUrl: 'javascript:alert(1)' },
      '/mediaUrl',
    );
    expectRejected(
      OUTGOING_MESSAGE_SCHEMAS.DOCUMENT,
      { ...valid.DOCUMENT, caption: chars(SHORT_TEXT_MAX + 1) },
      '/caption',
    );
    expectRejected(OUTGOING_MESSAGE_SCHEMAS.LOCATION, { ...valid.LOCATION, lat: 'norte' }, '/lat');
    expectRejected(OUTGOING_MESSAGE_SCHEMAS.LOCATION, withFields(valid.LOCATION, { lng: undefined }), '');
    expectRejected(OUTGOING_MESSAGE_SCHEMAS.POSTBACK, withFields(valid.POSTBACK, { payload: undefined }), '');
    expectRejected(
      OUTGOING_MESSAGE_SCHEMAS.EVENT,
      { ...valid.EVENT, eventPayload: { count: 3 } },
      '/eventPayload/count',
    );
    expectRejected(OUTGOING_MESSAGE_SCHEMAS.EVENT, { ...valid.EVENT, slug: '' }, '/slug');
  });

  it('rejects FILE and unknown types, which a widget does not send', () => {
    expectRejected(OutgoingMessage, { ...base, type: 'FILE', mediaUrl: 'https://cdn.example.com/a.bin' }, '');
    expectRejected(
      OutgoingMessage,
      { ...base, type: 'STICKER', mediaUrl: 'https://cdn.example.com/a.webp' },
      '',
    );
  });
});

describe('AddMembersBody', () => {
  it('accepts members with the default and both member types', () => {
    expectAccepted(AddMembersBody, {
      members: [
        { referenceId: 'user-1' },
        { referenceId: 'user-2', names: 'Ana', memberType: 'Client' },
        { referenceId: 'agent-1', memberType: 'Charla' },
      ],
    });
    expectAccepted(AddMembersBody, {
      members: Array.from({ length: ADD_MEMBERS_MAX }, (_, i) => ({ referenceId: `u${i}` })),
    });
  });

  it('rejects an unknown member type, a missing referenceId and no or too many members', () => {
    expectRejected(
      AddMembersBody,
      { members: [{ referenceId: 'u1', memberType: 'Admin' }] },
      '/members/0/memberType',
    );
    expectRejected(AddMembersBody, { members: [{ names: 'Ana' }] }, '/members/0');
    expectRejected(AddMembersBody, { members: [{ referenceId: '' }] }, '/members/0/referenceId');
    expectRejected(AddMembersBody, { members: [] }, '/members');
    expectRejected(
      AddMembersBody,
      { members: Array.from({ length: ADD_MEMBERS_MAX + 1 }, (_, i) => ({ referenceId: `u${i}` })) },
      '/members',
    );
  });
});

describe('the widget API bodies', () => {
  it('AddMemberBody takes a Contact or a bare id', () => {
    expectAccepted(AddMemberBody, { member: 'user-1' });
    expectAccepted(AddMemberBody, {
      member: { id: 42, names: 'Ana', avatar: 'https://a.example/a.png', color: '#f00', type: 'agent' },
    });
    expectRejected(AddMemberBody, { member: '' }, '/member');
    expectRejected(AddMemberBody, { member: { names: 'sin id' } }, '/member');
  });

  it('UserIdBody, OpenRoomWithUserBody, SetFlowBody, GetMessagesQuery, WidgetRefreshBody', () => {
    expectAccepted(UserIdBody, { userId: 'user-1' });
    expectRejected(UserIdBody, { userId: '' }, '/userId');

    expectAccepted(OpenRoomWithUserBody, { id: 7, names: 'Ana' });
    expectAccepted(OpenRoomWithUserBody, { id: 'user-7' });
    expectRejected(OpenRoomWithUserBody, { names: 'Ana' }, '');

    expectAccepted(SetFlowBody, {});
    expectAccepted(SetFlowBody, { storedParams: { plan: 'pro', city: 'Lima' } });
    expectRejected(SetFlowBody, { storedParams: { attempts: 3 } }, '/storedParams/attempts');

    expectAccepted(GetMessagesQuery, {});
    expectAccepted(GetMessagesQuery, { limit: 20, id: 'msg-9' });
    expectRejected(GetMessagesQuery, { limit: 0 }, '/limit');
    expectRejected(GetMessagesQuery, { id: '' }, '/id');

    expectAccepted(WidgetRefreshBody, { resourceUrl: 'https://charla.example/v1/media/k?exp=1' });
    expectRejected(WidgetRefreshBody, { resourceUrl: 'x' }, '/resourceUrl');
  });
});

describe('the contract test helpers', () => {
  it('fail on an accepted value and on a rejection for another field', () => {
    const url = 'https://media.example.com/r/abc.jpg';
    expect(() => expectRejected(AssetsRefreshBody, { resourceUrl: url, ttl: 1200 }, '/ttl')).toThrow();
    expect(() => expectRejected(AssetsRefreshBody, { resourceUrl: url, ttl: 10 }, '/resourceUrl')).toThrow();
    expect(() => expectAccepted(AssetsRefreshBody, { resourceUrl: url, ttl: 10 })).toThrow();
  });
});
