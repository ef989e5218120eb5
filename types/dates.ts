/**
 * Dates of the campaign operations, read strictly: a real calendar date
 * (no 2024-02-30), a real time, an offset within ±14:00 (`Z`, `+05`, `+0530`
 * or `+05:30`). Date-times without a zone (accepted by the list filters only)
 * are read as UTC. Plain code: the service and charla/api read dates with it,
 * so the client refuses exactly what the service would.
 */
/** What a date filter may be: YYYY-MM-DD, or a date-time with or without its zone (T, t or a space between). */
export const DATE_OR_DATE_TIME_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}([Tt ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?([Zz]|[+-]\\d{2}(:?\\d{2})?)?)?$';
/** What scheduledAt may be: an ISO 8601 date-time (T between) that names its zone: `Z`, `+05`, `+0530`, `+05:30`. */
export const ZONED_DATE_TIME_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?([Zz]|[+-]\\d{2}(:?\\d{2})?)$';

/**
 * What the service and charla/api say of a date that is not one: one that does not have the
 * pattern's shape, or has it but is no real date or instant (2024-02-30, 24:00).
 */
export const DATE_MESSAGES = {
  // A query value: an offset's unencoded + arrives as a space (application/x-www-form-urlencoded).
  dateShape:
    "must be a date (YYYY-MM-DD) or an ISO 8601 date-time (in the address, an offset's + is written %2B)",
  realDate: 'must be a real date (YYYY-MM-DD) or ISO 8601 date-time',
  zonedShape: 'must be an ISO 8601 date-time with a time zone (Z or an offset)',
  realZoned: 'must be a real ISO 8601 date-time with a time zone',
} as const;

const RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

export interface ParsedDate {
  /** Milliseconds since the epoch. */
  ms: number;
  /** True for YYYY-MM-DD alone. */
  dateOnly: boolean;
  /** True when a zone (Z or an offset) was given. */
  zoned: boolean;
}

/** Date.UTC for any year (Date.UTC maps years 0-99 to 1900-1999). */
function utc(year: number, month: number, day: number, h = 0, mi = 0, s = 0, ms = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(h, mi, s, ms);
  return d.getTime();
}

/**
 * The instants a date may name, in UTC: years 0001 to 9999 (what ISO 8601's
 * four digits and PostgreSQL's timestamps both hold; `9999-12-31T23:00-05:00`
 * is in year 10000 once in UTC, so it is refused, not stored).
 */
const MIN_INSTANT_MS = utc(1, 0, 1);
export const MAX_INSTANT_MS = utc(9999, 11, 31, 23, 59, 59, 999);

function daysIn(year: number, month: number): number {
  return new Date(utc(year, month, 0)).getUTCDate();
}

/** Parses a date or ISO 8601 date-time; null when it is not a real one. */
export function parseDate(text: string): ParsedDate | null {
  const m = RE.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (year < 1) return null;
  if (h === undefined) return { ms: utc(year, month - 1, day), dateOnly: true, zoned: false };
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (hour > 23 || minute > 59 || second > 59) return null;
  const millis = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  let offsetMin = 0;
  if (sign !== undefined) {
    const ohn = Number(oh);
    const omn = om === undefined ? 0 : Number(om);
    if (ohn > 14 || omn > 59 || (ohn === 14 && omn > 0)) return null;
    offsetMin = (sign === '-' ? -1 : 1) * (ohn * 60 + omn);
  }
  const ms = utc(year, month - 1, day, hour, minute, second, millis) - offsetMin * 60_000;
  if (!Number.isFinite(ms) || ms < MIN_INSTANT_MS || ms > MAX_INSTANT_MS) return null;
  return { ms, dateOnly: false, zoned: zone !== undefined };
}
