import type { FastifyInstance } from 'fastify'
import { ApiError } from '../errors/errors.js'

/**
 * While the server closes, requests already running finish, and new ones (on connections that were
 * already open) get 503 in the Error body, with Connection: close so clients move to another instance.
 * Fastify's built-in return503OnClosing answers in its own shape, so it is turned off in favour of this.
 * Returns the refusal of a new request while closing (undefined before), which the first hook answers.
 */
export function registerShutdownGuard(app: FastifyInstance): () => ApiError | undefined {
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  // A request that was already running when closing began still gets its answer, but not "keep-alive": Node
  // drops the connection after it anyway, and a client that believed the header would send its next request
  // into a closed socket instead of opening a new connection elsewhere.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })
  return () =>
    closing
      ? new ApiError('unavailable', 'The service is shutting down; retry the request.', {
          headers: { connection: 'close', 'retry-after': '1' },
        })
      : undefined
}
