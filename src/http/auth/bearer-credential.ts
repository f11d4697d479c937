// The Bearer credential of an Authorization header (RFC 6750 section 2.1), for API keys and the metrics token.
// The scheme is case-insensitive. The token may be any visible ASCII, wider than the b64token grammar, because
// static keys (PETSTORE_API_KEYS) allow such characters; validity is decided by the digest comparison, not by the
// grammar.
// One pass: a match is the Bearer scheme (then a space or the end); the group, the token when the credential is
// well formed (one token, spaces around it allowed).
const BEARER = /^Bearer(?:$| (?: *([\x21-\x7E]+) *$)?)/i

/**
 * The token; '' for a malformed Bearer credential (no token, two tokens); undefined when there is no header or it
 * uses another scheme (Basic, a bare key), which RFC 6750 section 3.1 answers with a challenge without error code.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const match = BEARER.exec(header)
  return match === null ? undefined : (match[1] ?? '')
}
