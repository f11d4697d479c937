// What this instance has learnt of each endpoint from its attempts: whether it answers, and, for one whose
// attempts time out, how many delivery places it keeps. An endpoint that hangs would otherwise hold its full
// share of places for an attempt time-out each, again and again, while others wait for them.

/** An endpoint with fewer places than the others, and why: what the delivery log and /metrics show. */
export interface ThrottledEndpoint {
  endpointId: number
  /** Delivery places it keeps on this instance (of the configured places per endpoint). */
  places: number
  reason: 'timed_out'
  /** Attempts that timed out in a row. */
  timeouts: number
  /** When the first of those ended (epoch milliseconds). */
  since: number
}

export class EndpointHealth {
  readonly #placesPerEndpoint: number
  /** Endpoints whose last attempt here got an answer (any answer: a 500 is quick, it holds no place). */
  readonly #answering = new Set<number>()
  readonly #throttled = new Map<number, ThrottledEndpoint>()
  /** Endpoints with an attempt ended here, answered or timed out. */
  readonly #heard = new Set<number>()

  constructor(placesPerEndpoint: number) {
    this.#placesPerEndpoint = placesPerEndpoint
  }

  /** Whether the endpoint's last attempt got an answer; false for one not heard from yet. */
  answers(endpointId: number): boolean {
    return this.#answering.has(endpointId)
  }

  heard(endpointId: number): boolean {
    return this.#heard.has(endpointId)
  }

  places(endpointId: number): number {
    return this.#throttled.get(endpointId)?.places ?? this.#placesPerEndpoint
  }

  /** An attempt ended with an answer, or timed out: each time-out halves the places, down to one. */
  record(endpointId: number, answered: boolean, now: number): void {
    this.#heard.add(endpointId)
    if (answered) {
      this.#answering.add(endpointId)
      this.#throttled.delete(endpointId)
      return
    }
    this.#answering.delete(endpointId)
    const previous = this.#throttled.get(endpointId)
    const places = Math.max(1, Math.floor((previous?.places ?? this.#placesPerEndpoint) / 2))
    // One place is the floor: a place for one attempt at a time is how the endpoint is seen to answer again.
    if (places === this.#placesPerEndpoint) return
    this.#throttled.set(endpointId, {
      endpointId,
      places,
      reason: 'timed_out',
      timeouts: (previous?.timeouts ?? 0) + 1,
      since: previous?.since ?? now,
    })
  }

  throttled(): ThrottledEndpoint[] {
    return [...this.#throttled.values()]
  }

  /** Whether it remembers anything of an endpoint (every endpoint it remembers has been heard from). */
  get remembersAny(): boolean {
    return this.#heard.size > 0
  }

  /**
   * Forgets every endpoint not in `live` (deleted, here or on another instance): its state, and so its /metrics
   * series, which would otherwise stay for good, and be gone through by every plan.
   */
  forgetAllBut(live: ReadonlySet<number>): void {
    for (const endpointId of this.#heard) {
      if (live.has(endpointId)) continue
      this.#heard.delete(endpointId)
      this.#answering.delete(endpointId)
      this.#throttled.delete(endpointId)
    }
  }
}
