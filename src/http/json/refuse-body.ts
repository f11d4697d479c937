import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors/errors.js'

/**
 * The body of a request to an operation that takes none, as the body parsers hand it on: present, but neither
 * read as JSON nor judged by its media type, coding or charset, so that whatever it is, the operation answers the
 * same 400 (and an operation that takes no body for another reason, a method not allowed, its own status).
 */
export const UNREAD_BODY = Symbol('a request body the operation does not take')

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
