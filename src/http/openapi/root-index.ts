// GET /: what a person (or a crawler) finds at the service's address: where the documentation and the health
// routes are. Not in the OpenAPI document, which describes the API under /v1 (its paths are relative to the
// servers, which end in /v1).
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify'
import { API_INFO } from './openapi-info.js'
import { rejectOtherMethods } from '../errors/method-not-allowed.js'
import { noRouteError } from '../errors/no-route.js'
import { API_PREFIX, requestPath } from '../paths.js'

export function registerRootIndex(app: FastifyInstance, limitPublicRoute: onRequestAsyncHookHandler): void {
  // Relative links: right behind any proxy, whatever Host the request carried.
  const body = JSON.stringify({
    name: API_INFO.title,
    version: API_INFO.version,
    links: { docs: '/docs', openapi: `${API_PREFIX}/openapi.json`, health: '/healthz', ready: '/readyz' },
  })
  app.get('/', { schema: { hide: true }, onRequest: limitPublicRoute }, async (request, reply) => {
    // The router also sends the asterisk-form target (`GET *`, meaningful only for OPTIONS) here: it names no resource.
    if (requestPath(request) !== '/') throw noRouteError(request)
    return reply.type('application/json; charset=utf-8').send(body)
  })
  // The asterisk-form target names no resource, whatever the method: 404 there too, not 405.
  rejectOtherMethods(app, '/', ['GET'], async function limitAndRefuseAsterisk(request, reply) {
    await limitPublicRoute.call(this, request, reply)
    if (requestPath(request) !== '/') throw noRouteError(request)
  })
}
