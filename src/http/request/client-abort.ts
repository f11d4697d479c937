import type { FastifyRequest } from 'fastify'

/**
 * True when a request failed because its client closed the connection before sending all of it: Node then
 * fails the request stream (ECONNRESET, "aborted") and the body reader passes that error on. The client's
 * doing, not a failure of ours and not the database's (whose resets arrive on its own sockets), so it is
 * neither logged as an error nor answered as an outage.
 */
export function isClientAbort(request: FastifyRequest, error: unknown): boolean {
  return error instanceof Error && request.raw.errored === error
}
