// The options of `petstore keys create` that limit a key: which scopes, and until when. Parsed here, apart
// from the command, so that every refusal can be checked without starting a process.
import { normaliseDateTime } from '../http/date-time.js'
import { isScope, SCOPES, type Scope } from './scopes.js'

/** A value the operator must correct; the message names the option and what it takes. */
export class KeyOptionError extends Error {}

const DURATION_UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `--scopes pets:read,orders:read`: every name must be a scope; undefined when the option is absent (all scopes). */
export function parseScopeList(text: string | undefined): Scope[] | undefined {
  if (text === undefined) return undefined
  const names = text.split(',').map((name) => name.trim())
  const unknown = names.find((name) => !isScope(name))
  if (unknown !== undefined)
    throw new KeyOptionError(
      `--scopes takes a comma-separated list of ${SCOPES.join(', ')}; ${JSON.stringify(unknown)} is not one`,
    )
  return names.filter(isScope)
}

/**
 * `--expires-in 30d` or `--expires-at 2027-01-01T00:00:00Z`: the expiry instant in the stored form (RFC 3339
 * UTC with milliseconds), or undefined when neither is given (the key never expires).
 */
export function parseExpiry(
  options: { expiresIn: string | undefined; expiresAt: string | undefined },
  now: number,
): string | undefined {
  const { expiresIn, expiresAt } = options
  if (expiresIn !== undefined && expiresAt !== undefined)
    throw new KeyOptionError('give --expires-in or --expires-at, not both')
  if (expiresIn !== undefined) {
    const match = /^([1-9][0-9]{0,5})([mhd])$/.exec(expiresIn)
    if (!match)
      throw new KeyOptionError(
        '--expires-in takes 1 to 999999 whole minutes, hours or days (90m, 12h, 30d), not ' + JSON.stringify(expiresIn),
      )
    return new Date(now + Number(match[1]) * (DURATION_UNITS_MS[match[2] ?? 'd'] ?? 0)).toISOString()
  }
  if (expiresAt === undefined) return undefined
  const instant = normaliseDateTime(expiresAt)
  if (instant === undefined)
    throw new KeyOptionError(
      '--expires-at takes an RFC 3339 date-time with an offset (2027-01-01T00:00:00Z), not ' +
        `${JSON.stringify(expiresAt)}`,
    )
  if (!(Date.parse(instant) > now)) throw new KeyOptionError(`--expires-at ${expiresAt} is not in the future`)
  return instant
}
