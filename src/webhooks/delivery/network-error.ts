// What the delivery log says of an attempt that got no answer: the error's code and message, bounded, and for a
// TLS failure only what went wrong.

/** Longest error text kept in the delivery log. */
const MAX_ERROR_LENGTH = 500

const shorten = (text: string) => (text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text)

// An entry of OpenSSL's error queue, as Node quotes it in a TLS error's message:
// `<thread>:error:<code>:<library>:<function>:<reason>:<source file>:<line>:<data>`. The delivery log is read by
// key holders: the reason (and its data, e.g. an alert number) says what went wrong, the rest is OpenSSL's own.
const OPENSSL_ERROR_ENTRY = /[0-9A-F]+:error:[0-9A-F]+:[^:\n]*:[^:\n]*:([^:\n]*):[^:\n]*:\d+:([^\n]*)\n?/gi

function describeTlsFailure(message: string): string {
  const reasons = [...message.matchAll(OPENSSL_ERROR_ENTRY)].map(([, reason = '', data = '']) =>
    data.trim() === '' ? reason.trim() : `${reason.trim()} (${data.trim()})`,
  )
  if (reasons.length === 0) return message
  const before = message.slice(0, message.search(OPENSSL_ERROR_ENTRY)).trim()
  return before === '' ? `TLS: ${reasons.join('; ')}` : `${before} (TLS: ${reasons.join('; ')})`
}

export function describeNetworkError(error: unknown): string {
  const code = (error as { code?: unknown }).code
  const message = describeTlsFailure(error instanceof Error ? error.message : String(error))
  return shorten(typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message)
}
