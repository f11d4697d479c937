// Where the API lives, and the path a request is routed on.
import type { FastifyRequest } from 'fastify'

/** The path prefix of every API operation (the servers in the OpenAPI document end with it). */
export const API_PREFIX = '/v1'

/**
 * The path the router matches a request on, so that "is this an API response" is decided on the same path:
 * an absolute-form target (`GET http://host/v1/pets`, RFC 9112 section 3.2.2) without its origin, without
 * query or fragment, and percent-decoded (`/%761/pets` is routed as `/v1/pets`).
 */
export function requestPath(request: FastifyRequest): string {
  const origin = request.url.startsWith('/') ? undefined : /^https?:\/\/[^/?#]*/i.exec(request.url)?.[0]
  const target = origin === undefined ? request.url : `/${request.url.slice(origin.length).replace(/^\//, '')}`
  const path = target.split(/[?#]/, 1)[0] ?? ''
  try {
    return decodeURI(path)
  } catch {
    return path
  }
}
