// One load run with autocannon, measured by the harness itself: autocannon's own latency histogram has a
// resolution of 1 ms, too coarse for sub-millisecond answers, so every response time is kept and the
// percentiles are computed exactly.
import autocannon from 'autocannon'

export type LoadRequest = NonNullable<autocannon.Options['requests']>[number]

export interface LoadOptions {
  url: string
  connections: number
  durationSeconds: number
  headers: Record<string, string>
  /** The sequence each connection cycles through (one request per element, in order). */
  requests: LoadRequest[]
}

export interface Measurement {
  requestsPerSecond: number
  /** Milliseconds. */
  p50: number
  p99: number
  responses: number
  /** Responses with a status outside 2xx, by status. */
  unexpected: Record<string, number>
  /** Connection errors and time-outs. */
  errors: number
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? NaN
}

export async function runLoad(options: LoadOptions): Promise<Measurement> {
  let times = new Float64Array(1 << 16)
  let count = 0
  const unexpected: Record<string, number> = {}
  const started = process.hrtime.bigint()
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        headers: options.headers,
        requests: options.requests,
        timeout: 10,
      },
      (error: unknown, done) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done),
    )
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (count === times.length) {
        const grown = new Float64Array(times.length * 2)
        grown.set(times)
        times = grown
      }
      times[count++] = responseTime
      if (statusCode < 200 || statusCode > 299) unexpected[statusCode] = (unexpected[statusCode] ?? 0) + 1
    })
  })
  const elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9
  const sorted = times.subarray(0, count).sort()
  return {
    requestsPerSecond: count / elapsedSeconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    responses: count,
    unexpected,
    errors: result.errors,
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].filter((value) => !Number.isNaN(value)).sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2
}
