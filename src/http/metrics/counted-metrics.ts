// Metrics counted in plain numbers on the request path and handed to prom-client only when scraped. prom-client
// validates and hashes a label set on every inc() and observe(); a map lookup by a short key is much cheaper,
// and the text a scrape returns stays exactly what prom-client would have written.
import { Counter, Histogram, type Registry } from 'prom-client'

type Labels<T extends string> = Record<T, string>

interface Counted<T extends string> {
  labels: Labels<T>
  count: number
  reported: number
}

/** A counter whose label sets are told apart by a key the caller builds (cheaper than prom-client's hashing). */
export class CountedLater<T extends string> {
  readonly #counts = new Map<string, Counted<T>>()

  constructor(registry: Registry, config: { name: string; help: string; labelNames: readonly T[] }) {
    const counts = this.#counts
    new Counter<T>({
      ...config,
      registers: [registry],
      collect() {
        // In the order label sets were first seen, as prom-client itself would list them.
        for (const counted of counts.values()) {
          this.inc(counted.labels, counted.count - counted.reported)
          counted.reported = counted.count
        }
      },
    })
  }

  /** Counts one under `key`; `labels` is called only the first time the key is seen. */
  inc(key: string, labels: () => Labels<T>): void {
    const counted = this.#counts.get(key)
    if (counted) counted.count += 1
    else this.#counts.set(key, { labels: labels(), count: 1, reported: 0 })
  }
}

interface Observed<T extends string> {
  labels: Labels<T>
  /** Observations per bucket, not cumulative; the last entry counts those above every bound. */
  buckets: number[]
  sum: number
  count: number
}

/** One histogram sample, in the shape prom-client's own Histogram hands its registry. */
interface Sample<T extends string> {
  labels: { le?: number | string }
  sharedLabels: Labels<T>
  value: number
  metricName: string
  exemplar: null | undefined
}

/**
 * A prom-client Histogram that observes into plain numbers per key and writes the same samples, in the same
 * order, when the registry reads it (getForPromString is what prom-client's Registry calls, and get() uses it).
 */
export class ObservedLater<T extends string> extends Histogram<T> {
  readonly #observed = new Map<string, Observed<T>>()
  readonly #bounds: readonly number[]
  readonly #name: string
  readonly #help: string

  constructor(registry: Registry, config: { name: string; help: string; labelNames: readonly T[]; buckets: number[] }) {
    super({ ...config, registers: [registry] })
    this.#bounds = config.buckets
    this.#name = config.name
    this.#help = config.help
  }

  /** Observes `value` under `key`; `labels` is called only the first time the key is seen. */
  observeAs(key: string, labels: () => Labels<T>, value: number): void {
    let observed = this.#observed.get(key)
    if (!observed) {
      observed = { labels: labels(), buckets: new Array<number>(this.#bounds.length + 1).fill(0), sum: 0, count: 0 }
      this.#observed.set(key, observed)
    }
    let bucket = 0
    while (bucket < this.#bounds.length && !(value <= (this.#bounds[bucket] ?? 0))) bucket += 1
    observed.buckets[bucket] = (observed.buckets[bucket] ?? 0) + 1
    observed.sum += value
    observed.count += 1
  }

  override reset(): void {
    // prom-client's constructor calls reset() before this class's fields exist.
    if (#observed in this) this.#observed.clear()
  }

  async getForPromString(): Promise<{
    name: string
    help: string
    type: 'histogram'
    values: Sample<T>[]
    aggregator: 'sum'
  }> {
    const values: Sample<T>[] = []
    const bucketName = `${this.#name}_bucket`
    for (const { labels, buckets, sum, count } of this.#observed.values()) {
      let cumulative = 0
      this.#bounds.forEach((bound, index) => {
        cumulative += buckets[index] ?? 0
        values.push({
          labels: { le: bound },
          sharedLabels: labels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        })
      })
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: bucketName, exemplar: null },
        { labels: {}, sharedLabels: labels, value: sum, metricName: `${this.#name}_sum`, exemplar: undefined },
        { labels: {}, sharedLabels: labels, value: count, metricName: `${this.#name}_count`, exemplar: undefined },
      )
    }
    return { name: this.#name, help: this.#help, type: 'histogram', values, aggregator: 'sum' }
  }
}
