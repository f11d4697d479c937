import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { API_PREFIX } from './openapi-info.js'

/** Headers that keep API responses out of caches and stop browsers from guessing content types. */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff')
  const path = request.url.split('?', 1)[0] ?? ''
  if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) reply.header('cache-control', 'no-store')
}

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    applySecurityHeaders(request, reply)
  })
}
