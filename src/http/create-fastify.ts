// The Fastify instance's options: logging (keys redacted, URLs through log-url.ts), request ids, size limits,
// time-outs, the errors Node and the framework raise before a route runs, proxies, and the response serialisers.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import type { Socket } from 'node:net'
import type { DestinationStream } from 'pino'
import type { Config } from '../config.js'
import type { ApiGuard } from './auth/auth.js'
import { handleClientError } from './errors/client-errors.js'
import { handleFrameworkError } from './errors/error-handler.js'
import { preferringKnownJson } from './json/prepared-json.js'
import { BODY_LIMIT_BYTES, MAX_PATH_PARAMETER_LENGTH } from './limits.js'
import { AccessLog } from './request/access-log.js'
import { serializeRequest } from './request/log-url.js'
import { requestIdFor } from './request/request-id.js'
import { redactingStaticKeys } from './request/static-key-redaction.js'

/**
 * Server time-outs. Node's request time-out is off by default under Fastify; a slow client must not hold a socket
 * forever.
 */
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

/** `guard` gives the API's guard, made once the app exists; framework errors arrive only once the server listens. */
export function createFastify(config: Config, logStream: DestinationStream | undefined, guard: () => ApiGuard) {
  const accessLog = new AccessLog()
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Keys must never reach the logs, whatever a serializer or a log call decides to include.
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'request.headers.authorization'],
        censor: '[redacted]',
      },
      serializers: { req: serializeRequest },
      ...(logStream ? { stream: logStream } : {}),
      ...withStaticKeysRedacted([...config.staticApiKeys, ...(config.metricsToken ? [config.metricsToken] : [])]),
    },
    logController: accessLog,
    genReqId: requestIdFor,
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: false,
    requestTimeout: TIMEOUTS.requestMs,
    keepAliveTimeout: TIMEOUTS.keepAliveMs,
    connectionTimeout: TIMEOUTS.connectionIdleMs,
    clientErrorHandler: handleClientError,
    frameworkErrors: (error, request, reply) => {
      accessLog.answeredBeforeRouting(request, reply)
      handleFrameworkError(error, request, reply, guard())
    },
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
  // Node lists only the first 2000 header lines by default and drops the rest unseen, so a second Host,
  // Authorization or Content-Type after them would escape the check for repeated headers (duplicate-headers.ts).
  // The request head is bounded by size (16 KiB) instead, which bounds the count too.
  app.server.maxHeadersCount = 0
  // A client that sends a request and resets the connection at once leaves a socket that can no longer say whose
  // it was (remoteAddress undefined), yet Node still hands its request over. Read as the connection opens, Node
  // keeps the address; a reset that came before the server accepted the connection leaves it unknown
  // (requestAddress in client-network.ts).
  app.server.on('connection', (socket: Socket) => void socket.remoteAddress)
  // One line per request, also for one whose client left before the answer (access-log.ts).
  app.addHook('onRequestAbort', (request, done) => {
    accessLog.requestAborted(request)
    done()
  })
  return app
}

function withStaticKeysRedacted(keys: readonly string[]) {
  const streamWrite = redactingStaticKeys(keys)
  return streamWrite ? { hooks: { streamWrite } } : {}
}

/** TRUST_PROXY as a hop count: the nearest N peers may name the client, whatever their address. */
function trustNearestHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops
}
