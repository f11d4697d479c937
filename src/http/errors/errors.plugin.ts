// Every error leaves as the Error body: those Node's HTTP parser raises before Fastify sees a request, those of
// routes and hooks (error-handler.ts), and paths no route matches (no-route.ts).
import type { FastifyInstance } from 'fastify'
import { API_PREFIX, requestPath } from '../paths.js'
import { guardRequest, type ApiGuard } from '../auth/auth.js'
import { handOverRequestsNodeWouldRefuse, refuseConnect } from './client-errors.js'
import { methodNotAllowed, registerKnownPaths } from './known-paths.js'
import { registerErrorHandler } from './error-handler.js'
import { noRouteError } from './no-route.js'

/** Before any route: a route takes the error handler the app has when the route is added. */
export function registerErrorHandling(app: FastifyInstance): void {
  handOverRequestsNodeWouldRefuse(app)
  refuseConnect(app)
  registerKnownPaths(app)
  registerErrorHandler(app)
}

/** The answer to a path no route matches: under the API prefix, only once the request has passed the guard. */
export function registerNoRouteHandler(app: FastifyInstance, guard: ApiGuard): void {
  app.setNotFoundHandler(async (request, reply) => {
    // Under the API prefix, authentication (and its rate limit) comes first even for routes that do not exist.
    // The path as the router reads it (absolute-form and percent-encoded targets included).
    const path = requestPath(request)
    const known = app.knownPaths.match(app, request)
    if (!known?.isPublic && (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)))
      await guardRequest(request, reply, guard)
    if (!known) throw noRouteError(request)
    await known.limit?.call(app, request, reply)
    throw methodNotAllowed(request, known.allow)
  })
}
