// RFC 3339 date-times, as --updates writes updated_at and reads since.

/** `ms` since 1970 as an RFC 3339 date-time in UTC: 2026-11-30T08:00:00Z, with milliseconds only when it has some. */
export function rfc3339(ms) {
  const text = new Date(ms).toISOString();
  return text.endsWith('.000Z') ? `${text.slice(0, -5)}Z` : text;
}

const RFC3339_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const isLeapYear = (year) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/**
 * Milliseconds since 1970 of an RFC 3339 date-time (section 5.6: `2026-11-30T08:00:00Z`,
 * `2026-11-30t09:00:00.25+01:00`; T and Z in either case, a fraction of any length, a leap second 60
 * read as the next minute's first), or null for anything else: a date alone, a space for the T, no
 * offset, a field out of range (month 13, February 30, hour 24, offset +24:00).
 */
export function parseRfc3339(text) {
  const match = RFC3339_DATE_TIME.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const days = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (days === undefined || day < 1 || day > days || hour > 23 || minute > 59 || second > 60) return null;
  let offsetMinutes = 0;
  if (match[8] === undefined) {
    const [hours, minutes] = [Number(match[10]), Number(match[11])];
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, years 0-99 stay themselves
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime() - offsetMinutes * 60_000 + (match[7] === undefined ? 0 : Number(`0${match[7]}`) * 1000);
}
