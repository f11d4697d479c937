// Prometheus metrics. Each app has its own registry, so several apps in one process (tests) never mix counts.
import type { FastifyInstance } from 'fastify'
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { GroupCommitStats } from '../db/group-commit.js'

export interface Metrics {
  registry: Registry
  /** Calls to deprecated operations per key, so an operator sees who still depends on them before removal. */
  deprecatedCalls: Counter<'operation' | 'key_id'>
}

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

export function createMetrics(groupCommit?: GroupCommitStats): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  if (groupCommit) {
    countedElsewhere(registry, 'petstore_sqlite_commits_total', 'SQLite COMMITs (each one fsync) made by group commit.', () => groupCommit.commits)
    countedElsewhere(registry, 'petstore_sqlite_committed_transactions_total', 'Transactions made durable by those COMMITs; divided by the commits, the mean batch size.', () => groupCommit.transactions)
  }
  const deprecatedCalls = new Counter({
    name: 'petstore_deprecated_operation_calls_total',
    help: 'Authenticated calls to deprecated operations, by operationId and API key id.',
    labelNames: ['operation', 'key_id'] as const,
    registers: [registry],
  })
  return { registry, deprecatedCalls }
}

export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  const labelNames = ['method', 'route', 'status_code'] as const
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames,
    registers: [metrics.registry],
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to sending its response, by method, route template and status.',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics.registry],
  })

  app.addHook('onResponse', (request, reply, done) => {
    // The route template, never the raw URL: unknown paths must not create unbounded label values.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) }
    requests.inc(labels)
    duration.observe(labels, reply.elapsedTime / 1000)
    done()
  })

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType)
    return metrics.registry.metrics()
  })
}
