import type { FastifyInstance } from 'fastify'
import type { Store } from '../../db/store.js'
import { ApiError } from '../errors/errors.js'
import { rejectOtherMethods } from '../errors/method-not-allowed.js'

const READINESS_TIMEOUT_MS = 2000
const READINESS_RETRY_AFTER_SECONDS = 5

/** /healthz: the process answers. /readyz: the database answers a read too (Store.ping), within two seconds. */
export function registerHealthRoutes(app: FastifyInstance, store: Pick<Store, 'ping'>): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))
  rejectOtherMethods(app, '/healthz', ['GET'])
  rejectOtherMethods(app, '/readyz', ['GET'])

  app.get('/readyz', { schema: { hide: true } }, async (request) => {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('database ping timed out')), READINESS_TIMEOUT_MS)
    })
    try {
      await Promise.race([store.ping(), timeout])
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed')
      // Load balancers and clients poll again after this long rather than at once (RFC 9110 section 10.2.3).
      throw new ApiError('unavailable', 'The database cannot be reached.', {
        headers: { 'retry-after': String(READINESS_RETRY_AFTER_SECONDS) },
      })
    } finally {
      clearTimeout(timer)
    }
    return { status: 'ready' }
  })
}
