// buildApp: the one Fastify instance, with the same options, hooks and handlers in production and in tests. It
// reads top to bottom: configuration, the store, the services, the cross-cutting plugins in the order a request
// meets them (src/http/<concern>/), the public routes, the features' routes (api-routes.ts), the answer to no route.
import type { FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import { apiRoutes } from './api-routes.js'
import type { Config } from './config.js'
import { tuningWith, type Tuning } from './config/tuning.js'
import type { Store } from './db/store.js'
import { registerAuth } from './http/auth/auth.plugin.js'
import { createFastify } from './http/create-fastify.js'
import { registerErrorHandling, registerNoRouteHandler } from './http/errors/errors.plugin.js'
import { registerHealthRoutes } from './http/health/health.js'
import { registerJsonBodyParser } from './http/json/json-body.js'
import { createMetrics, registerMetrics } from './http/metrics/metrics.js'
import { registerDocumentation } from './http/openapi/openapi.plugin.js'
import { API_PREFIX } from './http/paths.js'
import { registerRequestHooks } from './http/request/request.plugin.js'
import { closeUnusedConnectionsOnClose } from './http/request/unused-connections.js'
import { countRequestsInFlight } from './http/request/requests-in-flight.js'
import { createValidatorCompiler } from './http/validation/validation.js'
import { createServices } from './services.js'
import { DELIVERY_WEBHOOKS } from './webhooks/endpoints/webhook-delivery.openapi.js'
import type { WebhookNetwork } from './webhooks/delivery/outbound-http.js'

export interface AppDependencies {
  /** The open, migrated store. buildApp takes it over: `app.close()` closes it, after everything that uses it. */
  store: Store
  /** Where logs go; standard output when absent. Tests pass a stream to read them. */
  logStream?: DestinationStream
  /** Where webhooks go; the system's resolver and connections when absent. Tests pass their own. */
  webhookNetwork?: WebhookNetwork
  /** Changes to the fixed tuning (config/tuning.ts): tests shorten leases and waits. */
  tuning?: Partial<Tuning>
}

export async function buildApp(
  config: Config,
  { store, logStream, webhookNetwork, tuning: tuningOverrides }: AppDependencies,
): Promise<FastifyInstance> {
  const tuning = tuningWith(tuningOverrides)
  const app = createFastify(config, logStream, () => guard)
  // Registered first, so it runs last: the store closes after every other onClose hook that may still use it.
  app.addHook('onClose', () => store.close())
  const requestsInFlight = countRequestsInFlight(app.server)
  const services = await createServices(config, store, app.log, { webhookNetwork, requestsInFlight, tuning })

  // Request handling, in the order a request meets it: errors first, as a route takes the handler it finds.
  registerErrorHandling(app)
  app.setValidatorCompiler(createValidatorCompiler())
  registerJsonBodyParser(app)
  await registerRequestHooks(app)
  // preClose hooks run in this order: the shutdown guard's (registered above: from then on every answer says
  // Connection: close, and a new request is refused), then the services' (long polls and streams end, a background
  // job in progress finishes before the onClose hooks close the store), then the end of connections never used,
  // synchronous and last, as Fastify stops accepting connections right after it.
  app.addHook('preClose', () => services.stop())
  closeUnusedConnectionsOnClose(app)
  const guard = await registerAuth(app, config, services.authenticator)

  // Public routes, then the API.
  const { limitPublicRoute } = guard.rateLimiter
  const metrics = createMetrics({
    groupCommit: store.groupCommitStats,
    combined: store.combinedStatementStats,
    events: () => services.events.stats(),
    others: services.webhookMetrics,
  })
  registerMetrics(app, metrics, { token: config.metricsToken, limitPublicRoute })
  registerHealthRoutes(app, store)
  await registerDocumentation(app, config, limitPublicRoute, DELIVERY_WEBHOOKS)
  await app.register(apiRoutes, { prefix: API_PREFIX, config, tuning, services, guard, metrics })
  registerNoRouteHandler(app, guard)
  return app
}
