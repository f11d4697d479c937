// Key digests this process has recently looked up, with what the lookup said: so that a client address over its
// anonymous quota can be told, without a database query, whether a request might carry a valid key.

/** Digests kept per kind, at most: a flood of distinct bad keys pushes out the oldest, it cannot grow the map. */
const MAX_DIGESTS = 10_000

/** Instants (`now`) are performance.now() readings: how long a digest is kept must not follow the wall clock. */
export class RecentDigests {
  readonly #until = new Map<string, number>()
  readonly #keepMs: number

  constructor(keepMs: number) {
    this.#keepMs = keepMs
  }

  add(digest: string, now: number): void {
    // Re-inserted, so that the Map's order is the order digests were seen in, and the oldest goes first.
    this.#until.delete(digest)
    if (this.#until.size >= MAX_DIGESTS) {
      const oldest = this.#until.keys().next()
      if (!oldest.done) this.#until.delete(oldest.value)
    }
    this.#until.set(digest, now + this.#keepMs)
  }

  delete(digest: string): void {
    this.#until.delete(digest)
  }

  has(digest: string, now: number): boolean {
    const until = this.#until.get(digest)
    if (until === undefined) return false
    if (until > now) return true
    this.#until.delete(digest)
    return false
  }
}
