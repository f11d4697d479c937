// buildApp: the one Fastify instance, with the same options, hooks and handlers in production and in tests.
import cors from '@fastify/cors'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import type { Config } from './config.js'
import type { DatabaseConnection } from './db/connect.js'
import { loadOrCreateSecret } from './db/secret.repository.js'
import { AccessLog } from './http/access-log.js'
import { guardApi, guardRequest, type ApiGuard } from './http/auth.js'
import { handleClientError } from './http/client-errors.js'
import { registerDocs, registerOpenApi } from './http/docs.js'
import { handleFrameworkError, registerErrorHandler } from './http/error-handler.js'
import { ApiError } from './http/errors.js'
import { registerHealthRoutes } from './http/health.js'
import { registerJsonBodyParser } from './http/json-body.js'
import { createMetrics, registerMetrics } from './http/metrics.js'
import { API_PREFIX } from './http/openapi-info.js'
import { registerRateLimit } from './http/rate-limit.js'
import { registerRequestIdHeader, requestIdFor } from './http/request-id.js'
import { registerRootIndex } from './http/root-index.js'
import { registerSecurityHeaders, requestPath } from './http/security-headers.js'
import { registerShutdownGuard } from './http/shutdown-guard.js'
import { createValidatorCompiler } from './http/validation.js'
import { createIdempotency } from './idempotency/idempotent.js'
import { startPurgeTimer } from './idempotency/purge.js'
import { createAuthenticator } from './keys/authenticator.js'
import { orderRoutes } from './orders/order.routes.js'
import { createCursorCodec } from './pets/cursor.js'
import { petRoutes } from './pets/pet.routes.js'

export interface AppDependencies {
  database: DatabaseConnection
  /** Where logs go; standard output when absent. Tests pass a stream to read them. */
  logStream?: DestinationStream
}

export const BODY_LIMIT_BYTES = 16 * 1024

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

/** Longer than any path the 16 KiB header limit admits: an over-long segment then meets authentication and validation (400) like any other bad value, not a router error. */
const MAX_PATH_PARAMETER_LENGTH = 16 * 1024

export async function buildApp(config: Config, { database, logStream }: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Keys must never reach the logs, whatever a serializer or a log call decides to include.
      redact: { paths: ['req.headers.authorization', 'headers.authorization', 'request.headers.authorization'], censor: '[redacted]' },
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
    frameworkErrors: handleFrameworkError,
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    http: { headersTimeout: TIMEOUTS.headersMs, connectionsCheckingInterval: TIMEOUTS.connectionsCheckIntervalMs },
    // request.ip (the per-address rate limit) reads X-Forwarded-For only from the proxies TRUST_PROXY names.
    trustProxy: typeof config.trustProxy === 'number' ? trustNearestHops(config.trustProxy) : config.trustProxy,
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.setValidatorCompiler(createValidatorCompiler())
  registerJsonBodyParser(app)
  registerErrorHandler(app)
  registerRequestIdHeader(app)
  registerSecurityHeaders(app)
  registerShutdownGuard(app)
  app.decorateRequest('principal', undefined)
  app.addHook('onClose', async () => {
    await database.close()
  })

  const metrics = createMetrics(database.groupCommitStats)
  const authenticator = createAuthenticator({
    data: database,
    staticKeys: config.staticApiKeys,
    onError: (error) => app.log.warn({ err: error }, 'could not record key use'),
  })
  // ioredis is loaded only when Redis is configured (about 5 MiB of memory otherwise spent for nothing).
  const redis = config.redisUrl ? await (await import('./redis/connect.js')).connectRedis(config.redisUrl, app.log) : undefined
  app.addHook('onClose', async () => {
    redis?.disconnect()
  })
  const idempotency = createIdempotency({ data: database, ttlMs: config.idempotencyKeyTtlHours * 3_600_000, leaseMs: config.idempotencyLeaseSeconds * 1000 })
  const idempotencyPurge = startPurgeTimer(database, (error) => app.log.warn({ err: error }, 'could not purge expired idempotency keys'))
  // preClose runs before the onClose hook that closes the database, so a purge in progress finishes first.
  app.addHook('preClose', () => idempotencyPurge.stop())
  const cursorSecret = await loadOrCreateSecret(database.db, 'cursor-hmac')
  const cursors = createCursorCodec(cursorSecret, 'pets')
  const orderCursors = createCursorCodec<never>(cursorSecret, 'orders')

  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key'],
    exposedHeaders: ['Link', 'Location', 'X-Request-Id', 'Deprecation', 'Sunset', 'WWW-Authenticate', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed'],
    strictPreflight: false,
    maxAge: 600,
  })
  const guard: ApiGuard = { authenticator, rateLimiter: await registerRateLimit(app, config, redis) }
  const { limitPublicRoute } = guard.rateLimiter
  registerMetrics(app, metrics, { token: config.metricsToken, limitPublicRoute })
  registerHealthRoutes(app, database)
  registerRootIndex(app, limitPublicRoute)
  await registerOpenApi(app)
  await registerDocs(app, { publicBaseUrl: config.publicBaseUrl, limitPublicRoute })

  await app.register(async (api) => {
    guardApi(api, guard)
    await api.register(petRoutes, { data: database, cursors, metrics, idempotency, publicBaseUrl: config.publicBaseUrl })
    await api.register(orderRoutes, { data: database, cursors: orderCursors, idempotency, publicBaseUrl: config.publicBaseUrl })
  }, { prefix: API_PREFIX })

  app.setNotFoundHandler(async (request, reply) => {
    // Under the API prefix, authentication (and its rate limit) comes first even for routes that do not exist.
    // The path as the router reads it (absolute-form and percent-encoded targets included).
    const path = requestPath(request)
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) await guardRequest(request, reply, guard)
    throw new ApiError('not_found', `No route ${request.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}.`)
  })

  return app
}

/** TRUST_PROXY as a hop count: the nearest N peers may name the client, whatever their address. */
function trustNearestHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops
}
