// RFC 3339 date-times (section 5.6), read strictly: a real calendar date and time of day with an explicit
// offset. JavaScript's Date parser accepts far more (and rolls 2026-02-30 over into March), so the text is
// checked field by field first. The service keeps milliseconds, so more fractional digits are refused rather
// than silently truncated, and leap seconds (:60) are refused because they cannot be stored exactly.
const RFC3339_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?([Zz]|[+-](\d{2}):(\d{2}))$/

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

/**
 * The instant a date-time denotes, in the canonical UTC form `YYYY-MM-DDTHH:MM:SS.sssZ`, or undefined when the
 * text is not a valid RFC 3339 date-time this service can keep exactly (years 0000 to 9999 in UTC).
 */
export function normaliseDateTime(text: string): string | undefined {
  const match = RFC3339_DATE_TIME.exec(text)
  if (!match) return undefined
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  const [offsetHours, offsetMinutes] = [Number(match[9] ?? 0), Number(match[10] ?? 0)]
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined
  const offset = match[8] === undefined || /^[Zz]$/.test(match[8]) ? 'Z' : match[8]
  const milliseconds = (match[7] ?? '.0').slice(1).padEnd(3, '0')
  const date = new Date(`${match.slice(1, 4).join('-')}T${match.slice(4, 7).join(':')}.${milliseconds}${offset}`)
  const normalised = Number.isNaN(date.getTime()) ? undefined : date.toISOString()
  // An offset can carry the instant outside years 0000–9999, which has no RFC 3339 UTC form.
  return normalised !== undefined && /^\d{4}-/.test(normalised) ? normalised : undefined
}

export function isDateTime(text: string): boolean {
  return normaliseDateTime(text) !== undefined
}
