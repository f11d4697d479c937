import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from './errors.js'
import { requestPath } from '../paths.js'

/**
 * The method an error message names: HEAD is answered as GET would be (RFC 9110 section 9.3.2), so its headers,
 * Content-Length included, are GET's; its body, which names the method, is never sent.
 */
export function methodAsAnswered(request: FastifyRequest): string {
  return request.method === 'HEAD' ? 'GET' : request.method
}

/** The 404 for a path no route serves, quoting the path as the router read it (shortened). */
export function noRouteError(request: FastifyRequest): ApiError {
  const path = requestPath(request)
  const quoted = path.length > 200 ? `${path.slice(0, 200)}…` : path
  return new ApiError('not_found', `No route ${methodAsAnswered(request)} ${quoted}.`)
}

/**
 * The router matches `/v1/pets/` to `/pets/:petId` with an empty id. That path names no resource, so it is
 * answered like any path without a route (404), not as a deprecated getPet call with an invalid id. Added
 * after authentication in the API scope, so it runs before the routes' own hooks.
 */
export function refuseEmptyPathParameters(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const params = request.params as Record<string, unknown> | null
    done(params !== null && Object.values(params).includes('') ? noRouteError(request) : undefined)
  })
}
