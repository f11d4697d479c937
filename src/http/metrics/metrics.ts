// Prometheus metrics. Each app has its own registry, so several apps in one process (tests) never mix counts.
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client'
import type { GroupCommitStats } from '../../db/group-commit.js'
import type { CombinedStatementStats } from '../../db/postgres/combined-statements.js'
import { CountedLater, ObservedLater } from './counted-metrics.js'
import { requireMetricsToken } from '../auth/metrics-token.js'
import { rejectOtherMethods } from '../errors/method-not-allowed.js'

export interface Metrics {
  /** The service's own counters, read fresh on every scrape. */
  registry: Registry
  /** The process's (CPU, memory, event loop, GC): sampled readings, see PROCESS_METRICS_MAX_AGE_MS. */
  processRegistry: Registry
  /** Calls to deprecated operations per key, so an operator sees who still depends on them before removal. */
  deprecatedCalls: CountedLater<'operation' | 'key_id'>
  /** Catalogue maintenance: animals updated and deleted, and changes refused because If-Match did not hold. */
  petUpdates: Counter
  petDeletes: Counter
  preconditionFailures: Counter<'operation'>
}

/**
 * Collecting the process metrics is half the cost of a scrape (it reads /proc); their text is reused for this
 * long. They are readings of a moving process anyway, and a scraper polls every few seconds at most, while a
 * flood of scrapes then costs half as much. The service's counters are never reused: they are exact.
 */
export const PROCESS_METRICS_MAX_AGE_MS = 1_000

/** Counters read at scrape time from a source that counts on its own (the SQLite group commit). */
function countedElsewhere(registry: Registry, name: string, help: string, read: () => number): void {
  let reported = 0
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const current = read()
      this.inc(current - reported)
      reported = current
    },
  })
}

/** What the metrics read of the event feed (its service gives them): counts on this instance. */
export interface FeedCounts {
  /** Events written through this instance, by type, since it started (committed ones only). */
  written: Readonly<Record<string, number>>
  openStreams: number
  waitingLongPolls: number
}

export interface MetricSources {
  /** SQLite's group commit, where the store has one. */
  groupCommit?: GroupCommitStats | undefined
  /** PostgreSQL's combined statements, where the store has them. */
  combined?: CombinedStatementStats | undefined
  /** The event feed's counts. */
  events?: () => FeedCounts
  /** Metrics made elsewhere, unregistered (the webhook deliverer's). */
  others?: readonly Metric[]
}

/** The event feed's counts, read at scrape time. */
function eventMetrics(registry: Registry, read: () => FeedCounts): void {
  const reported = new Map<string, number>()
  new Counter({
    name: 'petstore_events_written_total',
    help: 'Events written (committed) by this instance, by type.',
    labelNames: ['type'] as const,
    registers: [registry],
    collect() {
      for (const [type, count] of Object.entries(read().written)) {
        this.inc({ type }, count - (reported.get(type) ?? 0))
        reported.set(type, count)
      }
    },
  })
  new Gauge({
    name: 'petstore_event_streams_open',
    help: 'Event streams (GET /v1/events/stream) open on this instance.',
    registers: [registry],
    collect() {
      this.set(read().openStreams)
    },
  })
  new Gauge({
    name: 'petstore_event_long_polls_waiting',
    help: 'Long polls (GET /v1/events with wait) in progress on this instance.',
    registers: [registry],
    collect() {
      this.set(read().waitingLongPolls)
    },
  })
}

type Counted = readonly [name: string, help: string, read: () => number]

const sqliteBatching = (stats: GroupCommitStats): Counted[] => [
  ['petstore_sqlite_commits_total', 'SQLite COMMITs (each one fsync) made by group commit.', () => stats.commits],
  [
    'petstore_sqlite_committed_transactions_total',
    'Transactions made durable by those COMMITs; divided by the commits, the mean batch size.',
    () => stats.transactions,
  ],
]

const postgresBatching = (stats: CombinedStatementStats): Counted[] => [
  [
    'petstore_postgres_combined_statements_total',
    'Statements that carried the changes of several transactions (the creates of one event-loop turn).',
    () => stats.statements,
  ],
  [
    'petstore_postgres_combined_changes_total',
    'Changes sent in those statements; divided by the statements, the mean number combined.',
    () => stats.changes,
  ],
]

export function createMetrics({ groupCommit, combined, events, others = [] }: MetricSources = {}): Metrics {
  const processRegistry = new Registry()
  collectDefaultMetrics({ register: processRegistry })
  const registry = new Registry()
  for (const metric of others) registry.registerMetric(metric)
  if (events) eventMetrics(registry, events)
  // The store's write batching: the batches, and what they carried (divided, the mean batch).
  const batching = [
    ...(groupCommit ? sqliteBatching(groupCommit) : []),
    ...(combined ? postgresBatching(combined) : []),
  ]
  for (const [name, help, read] of batching) countedElsewhere(registry, name, help, read)
  const deprecatedCalls = new CountedLater(registry, {
    name: 'petstore_deprecated_operation_calls_total',
    help: 'Authenticated calls to deprecated operations, by operationId and API key id.',
    labelNames: ['operation', 'key_id'] as const,
  })
  // Replays of a stored response (Idempotency-Key) are not counted again: these count what was decided.
  const petUpdates = new Counter({
    name: 'petstore_pet_updates_total',
    help: 'updatePet requests answered 200 (the animal as changed).',
    registers: [registry],
  })
  const petDeletes = new Counter({
    name: 'petstore_pet_deletes_total',
    help: 'deletePet requests answered 204 (the animal deleted).',
    registers: [registry],
  })
  const preconditionFailures = new Counter({
    name: 'petstore_precondition_failures_total',
    help: 'Pet updates and deletes (updatePet, deletePet) refused with 412 precondition_failed, by operationId.',
    labelNames: ['operation'] as const,
    registers: [registry],
  })
  return { registry, processRegistry, deprecatedCalls, petUpdates, petDeletes, preconditionFailures }
}

/** The status of a request its client gave up before any answer: nginx's "client closed request". */
const CLIENT_CLOSED = '499'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts a request answered before any route, outside Fastify's hooks (a path that is not valid
     * percent-encoding, a request Node's parser refused, CONNECT), as the routes' answers are counted: route
     * "unmatched", and method "unparsed" when the request line could not be read.
     */
    countAnsweredBeforeRouting(method: string | undefined, status: number, milliseconds: number): void
    /**
     * Counts a request whose client closed the connection, which Fastify never completes (access-log.ts): an
     * event stream, with the status it was answered with and how long it lasted; or a request given up before
     * any answer (a long poll), with status 499, as proxies log it, and no duration, since nothing was sent.
     */
    countClosedByClient(request: FastifyRequest, answered: { status: number; milliseconds: number } | undefined): void
  }
}

export interface MetricsRouteOptions {
  /** METRICS_TOKEN: when set, a scrape needs it as a bearer token. */
  token: string | undefined
  /** The public routes' rate limit, applied before the token is checked (so that guessing it is limited too). */
  limitPublicRoute: onRequestAsyncHookHandler
}

export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  { token, limitPublicRoute }: MetricsRouteOptions,
): void {
  const labelNames = ['method', 'route', 'status_code'] as const
  const requests = new CountedLater(metrics.registry, {
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames,
  })
  const duration = new ObservedLater(metrics.registry, {
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to sending its response, by method, route template and status.',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  })

  const count = (method: string, route: string, status: number, milliseconds: number) => {
    // A space cannot occur in a method or a route template, so the key names one label set only.
    const key = `${method} ${route} ${status}`
    const labels = () => ({ method, route, status_code: String(status) })
    requests.inc(key, labels)
    duration.observeAs(key, labels, milliseconds / 1000)
  }
  app.addHook('onResponse', (request, reply, done) => {
    // The route template, never the raw URL: unknown paths must not create unbounded label values.
    count(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime)
    done()
  })
  app.decorate('countAnsweredBeforeRouting', (method: string | undefined, status: number, milliseconds: number) =>
    count(method ?? 'unparsed', 'unmatched', status, milliseconds),
  )
  app.decorate(
    'countClosedByClient',
    (request: FastifyRequest, answered: { status: number; milliseconds: number } | undefined) => {
      const { method } = request
      const route = request.routeOptions.url ?? 'unmatched'
      if (answered) count(method, route, answered.status, answered.milliseconds)
      else requests.inc(`${method} ${route} ${CLIENT_CLOSED}`, () => ({ method, route, status_code: CLIENT_CLOSED }))
    },
  )

  let processText = ''
  let processTextAt = Number.NEGATIVE_INFINITY
  const onRequest = token === undefined ? [limitPublicRoute] : [limitPublicRoute, requireMetricsToken(token)]
  // In a scope of their own, for the hook below to see only their answers.
  app.register(async (scope) => {
    // Not for scripts of other origins, whatever the answer (the metrics, 401, 405, 429): the API's
    // `Access-Control-Allow-Origin: *` is safe because a page needs a key to use it, but without METRICS_TOKEN any
    // page a reader opens could read the metrics of a service on the reader's machine or network.
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.removeHeader('access-control-allow-origin').removeHeader('access-control-expose-headers')
      return payload
    })
    rejectOtherMethods(scope, '/metrics', ['GET'], limitPublicRoute)
    scope.get('/metrics', { schema: { hide: true }, onRequest }, async (_request, reply) => {
      if (performance.now() - processTextAt >= PROCESS_METRICS_MAX_AGE_MS) {
        processText = await metrics.processRegistry.metrics()
        processTextAt = performance.now()
      }
      reply.type(metrics.registry.contentType)
      return processText + (await metrics.registry.metrics())
    })
  })
}
