// The static keys (PETSTORE_API_KEYS) and METRICS_TOKEN have no form of their own that log-url.ts could
// recognise, as the stored keys' `pst_` has: a client that pastes one into a path, a query or a header the log
// quotes would put it in the logs. pino's last step before a line is written replaces each one, as sent, as
// JSON escapes it, and with any of its characters percent-encoded, once or more (a URL may encode any character,
// and the log quotes URLs as sent), wherever it stands in the line.
import { REDACTED } from './log-url.js'

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')

/**
 * The key with each character as it is or percent-encoded, once or more (`%2572` decodes to `%72`, then to `r`), in
 * any case of hex digits, as a regular expression.
 */
function percentEncodedSpellings(key: string): RegExp {
  const character = (char: string) => {
    const encoded = [...Buffer.from(char)].map((byte) => `%(?:25)*${byte.toString(16).padStart(2, '0')}`).join('')
    return `(?:${escapeRegExp(char)}|${encoded})`
  }
  // Case-insensitive for the hex digits; a string equal to a key but for the case of its letters is redacted too.
  return new RegExp([...key].map(character).join(''), 'gi')
}

export function redactingStaticKeys(keys: readonly string[]): ((line: string) => string) | undefined {
  const forms = [...new Set(keys.flatMap((key) => [key, JSON.stringify(key).slice(1, -1)]))]
  if (forms.length === 0) return undefined
  const encoded = [...new Set(keys)].map(percentEncodedSpellings)
  return (line) => {
    let redacted = line
    for (const form of forms) if (redacted.includes(form)) redacted = redacted.replaceAll(form, REDACTED)
    // Only a line with a percent sign can hold an encoded key: the others skip the expressions.
    if (redacted.includes('%')) for (const spelling of encoded) redacted = redacted.replace(spelling, REDACTED)
    return redacted
  }
}
