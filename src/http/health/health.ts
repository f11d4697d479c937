import type { FastifyInstance } from 'fastify'
import type { Store } from '../../db/store.js'
import { ApiError } from '../errors/errors.js'
import { rejectOtherMethods } from '../errors/method-not-allowed.js'
import { sharedPing } from './shared-ping.js'

const READINESS_TIMEOUT_MS = 2000
const READINESS_RETRY_AFTER_SECONDS = 5

/**
 * /healthz: the process answers. /readyz: the database answers a read too (Store.ping), within two seconds; the
 * requests that arrive while a ping is in flight share its answer. Neither is rate limited: see shared-ping.ts.
 */
export function registerHealthRoutes(app: FastifyInstance, store: Pick<Store, 'ping'>): void {
  const ping = sharedPing(() => store.ping(), READINESS_TIMEOUT_MS)
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))
  rejectOtherMethods(app, '/healthz', ['GET'])
  rejectOtherMethods(app, '/readyz', ['GET'])

  app.get('/readyz', { schema: { hide: true } }, async (request) => {
    try {
      await ping()
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed')
      // Load balancers and clients poll again after this long rather than at once (RFC 9110 section 10.2.3).
      throw new ApiError('unavailable', 'The database cannot be reached.', {
        headers: { 'retry-after': String(READINESS_RETRY_AFTER_SECONDS) },
      })
    }
    return { status: 'ready' }
  })
}
