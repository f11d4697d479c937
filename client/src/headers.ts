// Reading the response headers the client acts on: Retry-After (RFC 9110 §10.2.3) and Link (RFC 8288).

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)'
const WHOLE_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)'
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)'
const TIME = '\\d{2}:\\d{2}:\\d{2}'
/** The three forms of an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, RFC 850's, and asctime's, which names no zone. */
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`)
const RFC_850_DATE = new RegExp(`^${WHOLE_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`)
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`)

/** Retry-After as whole seconds from now (delay-seconds or an HTTP-date), or undefined when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now: number = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim()
  if (!value) return undefined
  if (/^\d+$/.test(value)) return Number(value)
  // Only an HTTP-date, in full: Date.parse alone reads far more (`-5` or `Mon 5` as a day long past, so no wait at
  // all; a numeric offset the HTTP-date has no room for). asctime's form is GMT too, not the local time.
  const date = ASCTIME_DATE.test(value)
    ? Date.parse(`${value} GMT`)
    : IMF_FIXDATE.test(value) || RFC_850_DATE.test(value)
      ? Date.parse(value)
      : Number.NaN
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000))
}

/** The target of the first link with this relation type in a Link header, or undefined. */
export function linkTarget(headers: Headers, relation: string): string | undefined {
  const value = headers.get('link')
  if (!value) return undefined
  // Targets are in angle brackets and cannot contain '>', so a comma outside them separates links.
  for (const match of value.matchAll(/<([^>]*)>([^,<]*)/g)) {
    const parameters = match[2] ?? ''
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(parameters)
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/)
    if (relations.includes(relation.toLowerCase())) return match[1]
  }
  return undefined
}

/** One query parameter of the `rel="next"` link, or undefined when there is no next link or no such parameter. */
export function nextLinkParameter(headers: Headers, name: string): string | undefined {
  const target = linkTarget(headers, 'next')
  if (target === undefined) return undefined
  // A relative target is resolved against a placeholder: only its query string is read.
  return new URL(target, 'http://link.invalid/').searchParams.get(name) ?? undefined
}
