// The one error a bad variable raises: one line that starts with the variable's name.

export class ConfigError extends Error {
  readonly variable: string

  /** `value` is what the message shows; leave it out when the value is a secret. */
  constructor(variable: string, allowed: string, value?: string) {
    super(`${variable}${value === undefined ? '' : `=${JSON.stringify(value)}`} is not valid: ${allowed}`)
    this.name = 'ConfigError'
    this.variable = variable
  }
}

/**
 * A URL's password must not reach a terminal or a log collector just because the URL was rejected, least of all
 * when it was rejected for a typo (`postgres//`, a leading space, one slash): everything between the user's `:`
 * and the host's `@` is masked, whatever comes before it. A password holding an unencoded `@` or `/` is masked
 * whole too.
 */
export function withoutPassword(value: string): string {
  const at = value.indexOf('@')
  if (at === -1) return value
  const slashes = value.lastIndexOf('//', at)
  const start = slashes === -1 ? value.lastIndexOf('/', at) + 1 : slashes + 2
  const colon = value.indexOf(':', start)
  // `user@host`: no password to hide.
  if (colon === -1 || colon > at) return value
  const path = value.indexOf('/', at)
  const hostAt = value.lastIndexOf('@', path === -1 ? value.length : path)
  return `${value.slice(0, colon + 1)}***${value.slice(hostAt)}`
}
