import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors/errors.js'

/**
 * For operations that take no request body (actions on a resource's address, DELETE): one sent is refused, not ignored.
 */
export async function refuseBody(request: FastifyRequest): Promise<void> {
  if (request.body !== undefined) {
    throw new ApiError('invalid_request', 'Invalid request: this operation takes no request body.', {
      details: [{ path: 'body', message: 'must be absent' }],
    })
  }
}
