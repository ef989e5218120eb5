import Type, { type TLiteral, type TSchema, type TUnion } from 'typebox';
import {
  E164_PATTERN,
  HTTPS_ADDRESS_PATTERN,
  MEDIA_URL_MAX,
  MEDIA_URL_PATTERN,
  MESSAGE_TEXT_MAX,
  NOT_BLANK_PATTERN,
  ONE_LINE_NAME_PATTERN,
  ORIGIN_PATTERN,
  SHORT_TEXT_MAX,
  UUID_PATTERN,
} from '../limits.ts';
import { DATE_MESSAGES, DATE_OR_DATE_TIME_PATTERN, ZONED_DATE_TIME_PATTERN } from '../dates.ts';

/** A non-empty identifier. */
export const Id = Type.String({ minLength: 1, maxLength: 200 });
/** A UUID. */
export const Uuid = Type.String({ pattern: UUID_PATTERN });
/** A message's text: 1 to 4,096 characters, not only white space. */
export const MessageText = Type.String({
  minLength: 1,
  maxLength: MESSAGE_TEXT_MAX,
  pattern: NOT_BLANK_PATTERN,
});
/** A short free text (names, titles, captions). */
export const ShortText = Type.String({ maxLength: SHORT_TEXT_MAX });
/**
 * A person's name as they give it (a session's userNames): like a bot's name, one line of visible
 * text, since it signs their messages (senderNames) and names them in member lists and rooms.
 */
export const PersonName = Type.String({
  minLength: 1,
  maxLength: SHORT_TEXT_MAX,
  pattern: ONE_LINE_NAME_PATTERN,
});
/** A name given to someone else with a contact: empty (none given) or one line of visible text. */
const GIVEN_NAME_PATTERN = `^$|${ONE_LINE_NAME_PATTERN}`;
export const GivenName = Type.String({ maxLength: SHORT_TEXT_MAX, pattern: GIVEN_NAME_PATTERN });
/** Map of string to string (storedParams, eventPayload). */
export const StringMap = Type.Record(Type.String(), Type.String());
/** Any JSON object (payloads, further visual properties). */
export const AnyObject = Type.Record(Type.String(), Type.Unknown());

/** A calendar date or date-time; the service also checks that it parses. */
export const DateOrDateTime = Type.String({
  pattern: DATE_OR_DATE_TIME_PATTERN,
  description: 'date (YYYY-MM-DD) or ISO 8601 date-time',
});
/** ISO 8601 date-time that names its time zone (Z or an offset). */
export const ZonedDateTime = Type.String({
  pattern: ZONED_DATE_TIME_PATTERN,
  description: 'ISO 8601 date-time with time zone',
});
/** An absolute https address (http on loopback is accepted by the service only when configured). */
export const HttpsUrl = Type.String({
  minLength: 9,
  maxLength: MEDIA_URL_MAX,
  pattern: MEDIA_URL_PATTERN,
  description:
    'An https address of a public host (http only to loopback, where the service allows it), without credentials, spaces, control or invisible formatting characters.',
});

/** The error body, for documentation of responses. */
export const ErrorBodySchema = Type.Object({
  message: Type.Union([Type.String(), Type.Array(Type.String())]),
  statusMessage: Type.String(),
  status: Type.Integer(),
  error: Type.Object({
    code: Type.String(),
    key: Type.String(),
    description: Type.String(),
    developerMessages: StringMap,
    clientMessages: StringMap,
  }),
  validationError: StringMap,
  data: AnyObject,
});

/** Literal union of an enumeration; the cast keeps each literal in the static type (a mapped array would give never). */
type LitTuple<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };
export const lit = <T extends readonly string[]>(values: T) =>
  Type.Union(values.map((v) => Type.Literal(v))) as unknown as TUnion<
    LitTuple<T> extends infer U extends TSchema[] ? U : never
  >;

/**
 * What a value failing one of the contract's patterns should be, in words
 * (the service's 400 says this instead of quoting the regular expression).
 */
const patternOf = (schema: TSchema): string => (schema as { pattern?: string }).pattern ?? '';
export const PATTERN_MESSAGES: Readonly<Record<string, string>> = {
  [patternOf(DateOrDateTime)]: DATE_MESSAGES.dateShape,
  [patternOf(ZonedDateTime)]: DATE_MESSAGES.zonedShape,
  [patternOf(HttpsUrl)]: 'must be an absolute https:// address',
  [HTTPS_ADDRESS_PATTERN]: 'must be an absolute https:// address',
  [UUID_PATTERN]: 'must be a UUID',
  [NOT_BLANK_PATTERN]: 'must not be blank (white space or invisible characters only)',
  [ONE_LINE_NAME_PATTERN]:
    'must be one line of visible text (not blank, no control characters or line breaks)',
  [GIVEN_NAME_PATTERN]:
    'must be empty or one line of visible text (not blank, no control characters or line breaks)',
  [E164_PATTERN]: 'must be a phone number in E.164 (+ and 7 to 15 digits)',
  [ORIGIN_PATTERN]: 'must be an origin such as https://shop.example.com or https://*.example.com',
  '^[A-Za-z0-9 _-]*$': 'may hold only letters, digits, spaces, _ and -',
  '^-?[0-9]{1,3}(\\.[0-9]{1,15})?$': 'must be a decimal coordinate such as 19.4326',
};
