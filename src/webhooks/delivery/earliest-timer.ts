// A timer that keeps the earliest of the times it is asked for: the deliverer's "look again at" and "start
// again at", which many events may ask for at once.

export class EarliestTimer {
  readonly #fire: () => void
  #timer: NodeJS.Timeout | undefined
  #at = Number.POSITIVE_INFINITY

  constructor(fire: () => void) {
    this.#fire = fire
  }

  /** Fires at `at` (epoch milliseconds), unless it is already set to fire sooner. Never keeps the process up. */
  at(at: number): void {
    if (at >= this.#at) return
    clearTimeout(this.#timer)
    this.#at = at
    this.#timer = setTimeout(
      () => {
        this.#at = Number.POSITIVE_INFINITY
        this.#fire()
      },
      Math.max(0, at - Date.now()),
    )
    this.#timer.unref()
  }

  clear(): void {
    clearTimeout(this.#timer)
    this.#at = Number.POSITIVE_INFINITY
  }
}
