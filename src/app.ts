// buildApp: the one Fastify instance, with the same options, hooks and handlers in production and in tests.
import cors from '@fastify/cors'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import type { Config } from './config.js'
import { tuningWith, type Tuning } from './config/tuning.js'
import type { Store } from './db/store.js'
import { EventsSchema } from './event-document.js'
import { DELIVERY_WEBHOOKS } from './webhooks/webhook-delivery.openapi.js'
import { eventRoutes } from './events/event.routes.js'
import { AccessLog } from './http/access-log.js'
import { decoratePrincipal, guardApi, guardRequest, type ApiGuard } from './http/auth.js'
import { handleClientError, handOverRequestsNodeWouldRefuse } from './http/client-errors.js'
import { registerDocs, registerOpenApi } from './http/docs.js'
import { handleFrameworkError, registerErrorHandler } from './http/error-handler.js'
import { registerFirstHook } from './http/first-hook.js'
import { registerHealthRoutes } from './http/health.js'
import { registerJsonBodyParser } from './http/json-body.js'
import { BODY_LIMIT_BYTES, HEADER_LIMIT_BYTES } from './http/limits.js'
import { serializeRequest } from './http/log-url.js'
import { createMetrics, registerMetrics } from './http/metrics.js'
import { noRouteError, refuseEmptyPathParameters } from './http/no-route.js'
import { API_PREFIX, requestPath } from './http/paths.js'
import { preferringKnownJson } from './http/prepared-json.js'
import { registerRateLimit } from './http/rate-limit.js'
import { requestIdFor } from './http/request-id.js'
import { registerRootIndex } from './http/root-index.js'
import { registerShutdownGuard } from './http/shutdown-guard.js'
import { createValidatorCompiler } from './http/validation.js'
import { orderRoutes } from './orders/order.routes.js'
import { categoryRoutes } from './categories/category.routes.js'
import { petMaintenanceRoutes } from './pets/pet-maintenance.routes.js'
import { petRoutes } from './pets/pet.routes.js'
import { countRequestsInFlight } from './http/requests-in-flight.js'
import { createServices } from './services.js'
import type { WebhookNetwork } from './webhooks/outbound-http.js'
import { webhookDeliveryRoutes } from './webhooks/webhook-delivery.routes.js'
import { webhookRoutes } from './webhooks/webhook.routes.js'

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

/** Server time-outs. Node's request time-out is off by default under Fastify; a slow client must not hold a socket forever. */
export const TIMEOUTS = {
  requestMs: 30_000,
  headersMs: 10_000,
  // Longer than the idle time-out of common load balancers (60 s), so they close idle connections first.
  keepAliveMs: 72_000,
  connectionIdleMs: 60_000,
  // Node enforces the request and headers time-outs only when it sweeps its connections (every 30 s by
  // default, which would let a slow client hold a socket for up to 40 s instead of 10).
  connectionsCheckIntervalMs: 1_000,
}

/** Longer than any path the header limit admits: an over-long segment then meets authentication and validation (400) like any other bad value, not a router error. */
const MAX_PATH_PARAMETER_LENGTH = HEADER_LIMIT_BYTES

/** `guard` gives the API's guard, made once the app exists; framework errors arrive only once the server listens. */
function createFastify(config: Config, logStream: DestinationStream | undefined, guard: () => ApiGuard) {
  return Fastify({
    logger: {
      level: config.logLevel,
      // Keys must never reach the logs, whatever a serializer or a log call decides to include.
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'request.headers.authorization'],
        censor: '[redacted]',
      },
      serializers: { req: serializeRequest },
      ...(logStream ? { stream: logStream } : {}),
    },
    logController: new AccessLog(),
    genReqId: requestIdFor,
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: false,
    requestTimeout: TIMEOUTS.requestMs,
    keepAliveTimeout: TIMEOUTS.keepAliveMs,
    connectionTimeout: TIMEOUTS.connectionIdleMs,
    clientErrorHandler: handleClientError,
    frameworkErrors: (error, request, reply) => handleFrameworkError(error, request, reply, guard()),
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    http: { headersTimeout: TIMEOUTS.headersMs, connectionsCheckingInterval: TIMEOUTS.connectionsCheckIntervalMs },
    // request.ip (the per-address rate limit) reads X-Forwarded-For only from the proxies TRUST_PROXY names.
    trustProxy: typeof config.trustProxy === 'number' ? trustNearestHops(config.trustProxy) : config.trustProxy,
    // Fastify's own response serialisers, each made to send a value's known JSON text as it is (prepared-json.ts).
    schemaController: {
      compilersFactory: {
        buildSerializer: (externalSchemas, options) => {
          const build = SerializerSelector()(externalSchemas, options)
          return (routeSchema) => preferringKnownJson(build(routeSchema))
        },
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>()
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
  // preClose runs before the onClose hooks: a background job in progress finishes before the store closes.
  app.addHook('preClose', () => services.stop())
  // ioredis is loaded only when Redis is configured (about 5 MiB of memory otherwise spent for nothing).
  const redis = config.redisUrl
    ? await (await import('./redis/connect.js')).connectRedis(config.redisUrl, app.log)
    : undefined
  app.addHook('onClose', async () => {
    redis?.disconnect()
  })
  const metrics = createMetrics({
    groupCommit: store.groupCommitStats,
    events: () => services.events.stats(),
    others: services.webhookMetrics,
  })

  // Request handling, in the order a request meets it.
  app.setValidatorCompiler(createValidatorCompiler())
  handOverRequestsNodeWouldRefuse(app)
  registerJsonBodyParser(app)
  registerErrorHandler(app)
  registerFirstHook(app, registerShutdownGuard(app))
  decoratePrincipal(app)
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'X-Request-Id',
      'Idempotency-Key',
      'If-Match',
      'If-None-Match',
      'Last-Event-ID',
    ],
    exposedHeaders: [
      'Link',
      'Location',
      'X-Request-Id',
      'Deprecation',
      'Sunset',
      'WWW-Authenticate',
      'Retry-After',
      'RateLimit',
      'RateLimit-Policy',
      'Idempotent-Replayed',
      'ETag',
    ],
    strictPreflight: false,
    maxAge: 600,
  })
  const guard: ApiGuard = {
    authenticator: services.authenticator,
    rateLimiter: await registerRateLimit(app, config, redis),
  }

  // Public routes, then the API. The OpenAPI generator must be registered before the routes it documents.
  const { limitPublicRoute } = guard.rateLimiter
  registerMetrics(app, metrics, { token: config.metricsToken, limitPublicRoute })
  registerHealthRoutes(app, store)
  registerRootIndex(app, limitPublicRoute)
  const servers = { productionBaseUrl: config.productionBaseUrl, stagingBaseUrl: config.stagingBaseUrl }
  await registerOpenApi(app, servers, DELIVERY_WEBHOOKS)
  await registerDocs(app, { publicBaseUrl: config.publicBaseUrl, servers, limitPublicRoute })
  const { publicBaseUrl } = config
  await app.register(
    async (api) => {
      guardApi(api, guard)
      refuseEmptyPathParameters(api)
      await api.register(petRoutes, {
        pets: services.pets,
        cursors: services.cursors.pets,
        metrics,
        idempotency: services.idempotency,
        publicBaseUrl,
      })
      await api.register(petMaintenanceRoutes, { pets: services.pets, metrics, idempotency: services.idempotency })
      await api.register(orderRoutes, {
        orders: services.orders,
        cursors: services.cursors.orders,
        idempotency: services.idempotency,
        publicBaseUrl,
      })
      await api.register(categoryRoutes, {
        categories: services.categories,
        cursors: services.cursors.categories,
        idempotency: services.idempotency,
        publicBaseUrl,
      })
      await api.register(eventRoutes, {
        events: services.events,
        eventsSchema: EventsSchema,
        heartbeatMs: tuning.eventHeartbeatSeconds * 1000,
        publicBaseUrl,
      })
      const { webhooks, idempotency, cursors } = services
      await api.register(webhookRoutes, {
        webhooks,
        cursors: cursors.webhooks,
        idempotency,
        storedSecrets: services.storedWebhookSecrets,
        publicBaseUrl,
        secretOverlapSeconds: tuning.webhookSecretOverlapSeconds,
      })
      await api.register(webhookDeliveryRoutes, {
        webhooks,
        cursors: cursors.deliveries,
        idempotency,
        publicBaseUrl,
        retryScheduleMs: config.webhookRetryScheduleMs,
      })
    },
    { prefix: API_PREFIX },
  )

  app.setNotFoundHandler(async (request, reply) => {
    // Under the API prefix, authentication (and its rate limit) comes first even for routes that do not exist.
    // The path as the router reads it (absolute-form and percent-encoded targets included).
    const path = requestPath(request)
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) await guardRequest(request, reply, guard)
    throw noRouteError(request)
  })

  return app
}

/** TRUST_PROXY as a hop count: the nearest N peers may name the client, whatever their address. */
function trustNearestHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops
}
