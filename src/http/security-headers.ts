import type { FastifyInstance } from 'fastify'

/** Headers that keep API responses out of caches and stop browsers from guessing content types. */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff')
    if (request.url.startsWith('/v1/')) reply.header('cache-control', 'no-store')
  })
}
