// What an instance remembers of endpoints (endpoint-health.ts: whether they answer, how many places a throttled
// one keeps, and so its /metrics series) is dropped once they are deleted. An endpoint may be deleted on any
// instance, so the deliverer compares what it remembers with the endpoints that exist, during its looks
// (delivery-look.ts), at most once per interval: one read of the endpoints' ids.
import type { Reader } from '../../db/database.js'
import type { EndpointHealth } from './endpoint-health.js'

export class DeletedEndpoints {
  readonly #health: EndpointHealth
  readonly #intervalMs: number
  /** When the endpoints were last read (performance.now(): a step of the wall clock must not put off the next). */
  #checkedAt = Number.NEGATIVE_INFINITY

  constructor(health: EndpointHealth, intervalMs: number) {
    this.#health = health
    this.#intervalMs = intervalMs
  }

  /** Forgets the endpoints that no longer exist, unless it looked less than an interval ago. */
  async forget(db: Reader): Promise<void> {
    const now = performance.now()
    if (!this.#health.remembersAny || now - this.#checkedAt < this.#intervalMs) return
    this.#checkedAt = now
    const live = await db.selectFrom('webhook_endpoints').select('id').execute()
    this.#health.forgetAllBut(new Set(live.map((row) => Number(row.id))))
  }
}
