// What every request meets first, in this order: the Host check, its request id and security headers, the
// refusal while shutting down, and the refusal of repeated Host, Authorization or Content-Type headers (before
// anything, authentication included, reads them). One synchronous hook instead of five: each hook is a step of
// Fastify's hook runner on every request, and none of these needs to wait for anything.
import type { FastifyInstance } from 'fastify'
import { missingHostError } from '../errors/client-errors.js'
import { duplicateHeaderError } from './duplicate-headers.js'
import type { ApiError } from '../errors/errors.js'
import { applySecurityHeaders } from './security-headers.js'

export function registerFirstHook(app: FastifyInstance, shuttingDown: () => ApiError | undefined): void {
  app.addHook('onRequest', (request, reply, done) => {
    const withoutHost = missingHostError(request)
    if (withoutHost) return done(withoutHost)
    reply.header('x-request-id', request.id)
    applySecurityHeaders(request, reply)
    done(shuttingDown() ?? duplicateHeaderError(request))
  })
}
