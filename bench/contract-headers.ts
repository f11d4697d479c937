// The headers the service puts on every authenticated answer, for the bench's own servers that answer as it does
// (F′ and M): a new request id, the two security headers, the two CORS headers and the two rate-limit headers.
const EXPOSED =
  'Link, Location, X-Request-Id, Deprecation, Sunset, WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy, ' +
  'Idempotent-Replayed, ETag, Allow, Accept-Patch, Accept-Encoding'

let remaining = 1_000_000_000

/** The seven headers, the quota left counting down by one per call as the service's does. */
export function contractHeaders(requestId: string): Record<string, string> {
  remaining -= 1
  return {
    'x-request-id': requestId,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSED,
    'ratelimit-policy': '"default";q=1000000000;w=60',
    ratelimit: `"default";r=${remaining};t=60`,
  }
}
