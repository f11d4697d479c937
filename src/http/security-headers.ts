import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { API_PREFIX } from './openapi-info.js'

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

/** Headers that keep API responses out of caches and stop browsers from guessing content types. */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff')
  const path = requestPath(request)
  if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) reply.header('cache-control', 'no-store')
}

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    applySecurityHeaders(request, reply)
    done()
  })
}
