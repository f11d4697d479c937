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
 * when it was rejected for a typo (`postgres//`, a leading space, one slash) or for a password that is not
 * percent-encoded (`q7//Zx`, `p@ss`): everything from the user's `:` to the host's `@`, the last before any query,
 * is masked, whatever precedes it, and so is a `password=` in the query. Masking too much costs nothing.
 */
export function withoutPassword(value: string): string {
  const masked = value.replace(/([?&]password=)[^&#]*/gi, '$1***')
  const at = masked.indexOf('@')
  if (at === -1) return masked
  // The user starts after the scheme's `//` (the first one: a password may hold another), or its one slash.
  const slashes = masked.indexOf('//')
  const scheme = slashes !== -1 && slashes < at
  const slash = masked.indexOf('/')
  const start = scheme ? slashes + 2 : slash !== -1 && slash < at ? slash + 1 : 0
  const after = masked.indexOf(':', start)
  // Without the scheme's `//`, a `/` before the `@` may be the password's own: then the first `:` starts it.
  const colon = after !== -1 && after < at ? after : scheme ? -1 : masked.indexOf(':')
  // `user@host`: no password to hide.
  if (colon === -1 || colon > at) return masked
  const query = masked.search(/[?#]/)
  const hostAt = masked.lastIndexOf('@', query === -1 ? masked.length : query)
  return `${masked.slice(0, colon + 1)}***${masked.slice(hostAt)}`
}
