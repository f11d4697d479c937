// What the delivery worker reports to /metrics. The metrics are made here, unregistered, because the worker
// exists before the app's registry does; createMetrics registers them (http/metrics/metrics.ts).
import { Counter, Gauge, Histogram, type Metric } from 'prom-client'
import type { AttemptOutcome } from '../../db/database.js'
import type { ThrottledEndpoint } from './endpoint-health.js'

export interface DeliveryObserver {
  /** An attempt made by this instance ended (an abandoned one is not reported). */
  attempted(outcome: AttemptOutcome, seconds: number): void
  /** A delivery this instance attempted ended for good. */
  finished(status: 'succeeded' | 'failed'): void
}

export interface DeliveryGauges {
  /** Seconds since the oldest pending delivery became due (0 when none is overdue), as of the last look. */
  oldestDueAgeSeconds(): number
  attemptsInProgress(): number
  /** Endpoints given fewer delivery places on this instance, and why. */
  throttledEndpoints(): ThrottledEndpoint[]
}

export interface DeliveryMetrics extends DeliveryObserver {
  readonly metrics: Metric[]
}

export function createDeliveryMetrics(gauges: () => DeliveryGauges | undefined): DeliveryMetrics {
  const attempts = new Counter({
    name: 'petstore_webhook_attempts_total',
    help:
      'Webhook delivery attempts made by this instance, by outcome (succeeded, unexpected_status, timed_out, ' +
      'network_error, destination_refused, …).',
    labelNames: ['outcome'] as const,
    registers: [],
  })
  const duration = new Histogram({
    name: 'petstore_webhook_attempt_duration_seconds',
    help: 'Duration of webhook delivery attempts made by this instance, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [],
  })
  const finished = new Counter({
    name: 'petstore_webhook_deliveries_finished_total',
    help: 'Webhook deliveries this instance finished: succeeded, or failed once every retry had failed.',
    labelNames: ['status'] as const,
    registers: [],
  })
  const oldestDue = new Gauge({
    name: 'petstore_webhook_oldest_due_delivery_age_seconds',
    help:
      'How long the oldest pending webhook delivery (of an enabled endpoint) has been due: 0 when none is overdue. ' +
      'Grows when receivers or the service fall behind.',
    registers: [],
    collect() {
      this.set(gauges()?.oldestDueAgeSeconds() ?? 0)
    },
  })
  const inProgress = new Gauge({
    name: 'petstore_webhook_attempts_in_progress',
    help: 'Webhook delivery attempts in progress on this instance.',
    registers: [],
    collect() {
      this.set(gauges()?.attemptsInProgress() ?? 0)
    },
  })
  const throttled = new Gauge({
    name: 'petstore_webhook_endpoint_throttled_places',
    help:
      'Delivery places this instance gives each throttled webhook endpoint (endpoint id), and why (reason: ' +
      'timed_out, its attempts time out); other endpoints are not listed. Lasts until the endpoint answers again ' +
      'or is deleted.',
    labelNames: ['endpoint', 'reason'] as const,
    registers: [],
    collect() {
      this.reset()
      for (const endpoint of gauges()?.throttledEndpoints() ?? [])
        this.set({ endpoint: String(endpoint.endpointId), reason: endpoint.reason }, endpoint.places)
    },
  })
  return {
    metrics: [attempts, duration, finished, oldestDue, inProgress, throttled],
    attempted(outcome, seconds) {
      attempts.inc({ outcome })
      duration.observe({ outcome }, seconds)
    },
    finished: (status) => finished.inc({ status }),
  }
}
