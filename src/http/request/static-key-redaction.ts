// The static keys (PETSTORE_API_KEYS) and METRICS_TOKEN have no form of their own that log-url.ts could
// recognise, as the stored keys' `pst_` has: a client that pastes one into a path, a query or a header the log
// quotes would put it in the logs. pino's last step before a line is written replaces each one, as sent, as
// JSON escapes it, and with any of its characters percent-encoded, once or more (a URL may encode any character,
// and the log quotes URLs as sent), wherever it stands in the line.
import { anyEncodingOf, REDACTED } from './log-url.js'

// Case-insensitive for the hex digits; a string equal to a key but for the case of its letters is redacted too.
const percentEncodedSpellings = (key: string) => new RegExp(anyEncodingOf(key), 'gi')

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
