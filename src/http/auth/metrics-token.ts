// METRICS_TOKEN: the metrics say which routes are used, how often and by which keys; an operator can keep
// them to the scraper.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { onRequestAsyncHookHandler } from 'fastify'
import { ApiError } from '../errors/errors.js'

const REALM = 'Bearer realm="metrics"'
const BEARER = /^Bearer +([\x21-\x7E]+) *$/i

const digest = (text: string) => createHash('sha256').update(text).digest()

export function requireMetricsToken(token: string): onRequestAsyncHookHandler {
  const expected = digest(token)
  return async (request) => {
    const header = request.headers.authorization
    if (header === undefined) {
      throw new ApiError('unauthorized', 'The metrics need a token: send Authorization: Bearer <METRICS_TOKEN>.', {
        headers: { 'www-authenticate': REALM },
      })
    }
    const presented = BEARER.exec(header)?.[1]
    // Digests of equal length compared in constant time: the time taken says nothing about the token.
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      throw new ApiError('unauthorized', 'The metrics token is not valid.', {
        headers: {
          'www-authenticate': `${REALM}, error="invalid_token", error_description="The metrics token is not valid"`,
        },
      })
    }
  }
}
