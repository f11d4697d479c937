import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, onRequestAsyncHookHandler } from 'fastify'
import { API_PREFIX } from '../paths.js'
import { methodNotAllowed } from './known-paths.js'

// HEAD follows GET, and OPTIONS belongs to CORS preflight.
const ANSWERED_ELSEWHERE = new Set(['HEAD', 'OPTIONS'])

/**
 * Answers 405 with an Allow header for the methods a path does not support (instead of a misleading 404):
 * every method the router knows (TRACE and QUERY included), not only the common ones, and through knownPaths the
 * methods it does not know (known-paths.ts). `limit`, for a public route outside the API's guard, counts the
 * refusal against the client address like the route's own requests.
 */
export function rejectOtherMethods(
  app: FastifyInstance,
  url: string,
  allowed: HTTPMethods[],
  limit?: onRequestAsyncHookHandler,
): void {
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ')
  app.knownPaths.add(`${app.prefix}${url}`, { allow, isPublic: !app.prefix.startsWith(API_PREFIX), limit })
  const refuse = (request: FastifyRequest, _reply: FastifyReply, done: (error: Error) => void) => {
    done(methodNotAllowed(request, allow))
  }
  app.route({
    method: app.supportedMethods.filter(
      (method) => !ANSWERED_ELSEWHERE.has(method) && !allowed.includes(method as HTTPMethods),
    ) as HTTPMethods[],
    url,
    schema: { hide: true },
    // Refused before the body is read: for a method that carries one (PUT, QUERY) its type and size do not matter.
    onRequest: limit ? [limit, refuse] : refuse,
    handler: async () => undefined,
  })
}
