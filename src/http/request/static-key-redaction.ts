// The static keys (PETSTORE_API_KEYS) and METRICS_TOKEN have no form of their own that log-url.ts could
// recognise, as the stored keys' `pst_` has: a client that pastes one into a path, a query or a header the log
// quotes would put it in the logs. pino's last step before a line is written replaces each one, as sent, as
// JSON escapes it and as a URL percent-encodes it, wherever it stands in the line.
import { REDACTED } from './log-url.js'

export function redactingStaticKeys(keys: readonly string[]): ((line: string) => string) | undefined {
  const forms = [...new Set(keys.flatMap((key) => [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)]))]
  if (forms.length === 0) return undefined
  return (line) => {
    let redacted = line
    for (const form of forms) if (redacted.includes(form)) redacted = redacted.replaceAll(form, REDACTED)
    return redacted
  }
}
