// What every request meets first, in this order: the Host check, its request id and security headers (and an
// OPTIONS request's Allow), the refusal while shutting down, and the refusal of repeated Host, Authorization or
// Content-Type headers (before anything, authentication included, reads them); then a Content-Type where no body is
// taken is dropped (json-body.ts). One synchronous hook instead of six: each hook is a step of Fastify's hook runner
// on every request, and none of these needs to wait for anything.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { missingHostError } from '../errors/client-errors.js'
import { dropContentTypeWhereNoBodyIsTaken } from '../json/json-body.js'
import { ACCEPT_PATCH } from '../json/media-type.js'
import { duplicateHeaderError } from './duplicate-headers.js'
import type { ApiError } from '../errors/errors.js'
import { applySecurityHeaders } from './security-headers.js'

/**
 * OPTIONS, a CORS preflight or not, says which methods the path takes (RFC 9110 section 9.3.7), where the path
 * exists: CORS answers OPTIONS on any path. The same Allow as a 405 on the path: its operations' methods and HEAD.
 * A path that takes PATCH also says which patch formats (Accept-Patch, RFC 5789 section 3.1).
 */
function allowOptions(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): void {
  // `OPTIONS *` asks about the server, not a path (the router reads it as `/`): no path's methods.
  if (request.url === '*') return
  const known = app.knownPaths.find(request.url)
  if (!known) return
  reply.header('allow', known.allow)
  if (known.allow.split(', ').includes('PATCH')) reply.header('accept-patch', ACCEPT_PATCH)
}

export function registerFirstHook(app: FastifyInstance, shuttingDown: () => ApiError | undefined): void {
  app.addHook('onRequest', (request, reply, done) => {
    const withoutHost = missingHostError(request)
    if (withoutHost) return done(withoutHost)
    reply.header('x-request-id', request.id)
    applySecurityHeaders(request, reply)
    if (request.method === 'OPTIONS') allowOptions(app, request, reply)
    const refused = shuttingDown() ?? duplicateHeaderError(request)
    if (!refused) dropContentTypeWhereNoBodyIsTaken(request)
    done(refused)
  })
}
