/**
 * Dates of the campaign operations, read strictly: a real calendar date
 * (no 2024-02-30), a real time, an offset within ±14:00. Date-times without a
 * zone (accepted by the list filters only) are read as UTC.
 */

const RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

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
export const MIN_INSTANT_MS = utc(1, 0, 1);
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

/** The list range: [from, toExclusive). A date-only end takes in the whole day. */
export function listRange(
  startAt: string,
  endAt: string,
): { from: Date; to: Date } | { errors: Record<string, string> } {
  const start = parseDate(startAt);
  const end = parseDate(endAt);
  const errors: Record<string, string> = {};
  if (!start) errors['querystring:/startAt'] = 'must be a real date (YYYY-MM-DD) or ISO 8601 date-time';
  if (!end) errors['querystring:/endAt'] = 'must be a real date (YYYY-MM-DD) or ISO 8601 date-time';
  if (!start || !end) return { errors };
  // Exclusive end, kept inside the storable range (9999-12-31 takes in its whole day all the same).
  const to = Math.min(end.dateOnly ? end.ms + 86_400_000 : end.ms + 1, MAX_INSTANT_MS);
  // Compared as ranges: a date-only end on the start's own day is that whole day, so not before it.
  const last = end.dateOnly ? end.ms + 86_399_999 : end.ms;
  if (last < start.ms) return { errors: { 'querystring:/endAt': 'must not be before startAt' } };
  return { from: new Date(start.ms), to: new Date(to) };
}
