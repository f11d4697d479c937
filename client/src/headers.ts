// Reading the response headers the client acts on: Retry-After (RFC 9110 §10.2.3) and Link (RFC 8288).

/** Retry-After as whole seconds from now (delay-seconds or an HTTP-date), or undefined when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now: number = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim()
  if (!value) return undefined
  if (/^\d+$/.test(value)) return Number(value)
  // All three forms of an HTTP-date start with the day's name. Date.parse alone reads far more than dates:
  // `-5` or `5.5` would be a year or a day long past, and so no wait at all.
  if (!/^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)/i.test(value)) return undefined
  // asctime's form names no zone, and HTTP-dates are always GMT: without it, it would be read as local time.
  const date = Date.parse(/ GMT$/i.test(value) ? value : `${value} GMT`)
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
