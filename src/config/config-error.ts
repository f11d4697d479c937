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

/** A URL's password must not reach a terminal or a log collector just because the URL was rejected. */
export function withoutPassword(value: string): string {
  return value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@:]*:)[^/?#]*@/, '$1***@')
}
