import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { API_PREFIX, requestPath } from './paths.js'

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
