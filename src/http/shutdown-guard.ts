import type { FastifyInstance } from 'fastify'
import { ApiError } from './errors.js'

/**
 * While the server closes, requests already running finish, and new ones (on connections that were
 * already open) get 503 in the Error body, with Connection: close so clients move to another instance.
 * Fastify's built-in return503OnClosing answers in its own shape, so it is turned off in favour of this.
 */
export function registerShutdownGuard(app: FastifyInstance): void {
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', async () => {
    if (closing) {
      throw new ApiError('unavailable', 'The service is shutting down; retry the request.', {
        headers: { connection: 'close', 'retry-after': '1' },
      })
    }
  })
}
