import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify'
import { ApiError } from '../errors/errors.js'

/**
 * The body of a request to an operation that takes none, as the body parsers hand it on: present, but neither
 * read as JSON nor judged by its media type, coding or charset, so that whatever it is, the operation answers the
 * same 400 (and an operation that takes no body for another reason, a method not allowed, its own status).
 */
export const UNREAD_BODY = Symbol('a request body the operation does not take')

const bodyRefused = () =>
  new ApiError('invalid_request', 'Invalid request: this operation takes no request body.', {
    details: [{ path: 'body', message: 'must be absent' }],
  })

/**
 * No body: none announced, or one of length 0, whatever its media type says. Node's parser takes only digits as a
 * Content-Length, and `00` is 0 as well (RFC 9110 section 8.6: 1*DIGIT).
 */
export function hasNoBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  if (length !== undefined) return Number(length) === 0
  return request.headers['transfer-encoding'] === undefined
}

/**
 * For operations that take no request body (actions on a resource's address, DELETE): one sent is refused, not ignored.
 */
export async function refuseBody(request: FastifyRequest): Promise<void> {
  if (request.body !== undefined) throw bodyRefused()
}

const refuseAnnouncedBody: preValidationHookHandler = (request, _reply, done) =>
  done(hasNoBody(request) ? undefined : bodyRefused())

/**
 * GET (and the HEAD answered like it) takes no body either, but Fastify reads none for them: a body announced
 * (Content-Length above 0, or Transfer-Encoding) is refused from the headers, unread, after authentication, as
 * the body of any other operation that takes none. Ignoring it would let a read carry a body of any size, and
 * content in a GET is a known way to make two HTTP parsers disagree about where a request ends (RFC 9110 section
 * 9.3.1). For the routes of the scope it is called in, registered after it.
 */
export function refuseBodiesOfReads(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat()
    if (!methods.includes('GET') && !methods.includes('HEAD')) return
    route.preValidation = [...[route.preValidation ?? []].flat(), refuseAnnouncedBody]
  })
}
