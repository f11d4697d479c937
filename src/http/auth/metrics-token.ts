// METRICS_TOKEN: the metrics say which routes are used, how often and by which keys; an operator can keep
// them to the scraper.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { onRequestAsyncHookHandler } from 'fastify'
import { ApiError } from '../errors/errors.js'
import { bearerToken } from './bearer-credential.js'

const REALM = 'Bearer realm="metrics"'

const digest = (text: string) => createHash('sha256').update(text).digest()

export function requireMetricsToken(token: string): onRequestAsyncHookHandler {
  const expected = digest(token)
  return async (request) => {
    const presented = bearerToken(request.headers.authorization)
    if (presented === undefined) {
      throw new ApiError('unauthorized', 'The metrics need a token: send Authorization: Bearer <METRICS_TOKEN>.', {
        headers: { 'www-authenticate': REALM },
      })
    }
    // Digests of equal length compared in constant time: the time taken says nothing about the token.
    if (!timingSafeEqual(digest(presented), expected)) {
      throw new ApiError('unauthorized', 'The metrics token is not valid.', {
        headers: {
          'www-authenticate': `${REALM}, error="invalid_token", error_description="The metrics token is not valid"`,
        },
      })
    }
  }
}
