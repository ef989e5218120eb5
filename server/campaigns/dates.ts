/**
 * The campaign list's date range, from dates read as types/dates.ts reads them.
 */
import { DATE_MESSAGES, MAX_INSTANT_MS, parseDate } from '../../types/dates.ts';

/** The list range: [from, toExclusive). A date-only end takes in the whole day. */
export function listRange(
  startAt: string,
  endAt: string,
): { from: Date; to: Date } | { errors: Record<string, string> } {
  const start = parseDate(startAt);
  const end = parseDate(endAt);
  const errors: Record<string, string> = {};
  if (!start) errors['querystring:/startAt'] = DATE_MESSAGES.realDate;
  if (!end) errors['querystring:/endAt'] = DATE_MESSAGES.realDate;
  if (!start || !end) return { errors };
  // Exclusive end, kept inside the storable range (9999-12-31 takes in its whole day all the same).
  const to = Math.min(end.dateOnly ? end.ms + 86_400_000 : end.ms + 1, MAX_INSTANT_MS);
  // Compared as ranges: a date-only end on the start's own day is that whole day, so not before it.
  const last = end.dateOnly ? end.ms + 86_399_999 : end.ms;
  if (last < start.ms) return { errors: { 'querystring:/endAt': 'must not be before startAt' } };
  return { from: new Date(start.ms), to: new Date(to) };
}
