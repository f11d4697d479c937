// Fixed-window request counts in this process's memory, answered synchronously: the same counting as
// @fastify/rate-limit's in-memory store (a window starts with a key's first request, the count restarts when
// it ends), without the promise and the callbacks that store's interface costs every request. Timed by the
// monotonic clock: a step of the wall clock back must not stretch a window (and a refusal) by its size.

export interface WindowCount {
  max: number
  remaining: number
  /** Milliseconds until the window ends. */
  ttl: number
  ttlInSeconds: number
  isExceeded: boolean
}

interface Window {
  current: number
  startedAt: number
}

export class WindowCounts {
  readonly #windows = new Map<string, Window>()
  readonly #windowMs: number
  readonly #capacity: number

  /** `capacity`: keys kept at most; the least recently counted goes first, so a flood cannot grow the map. */
  constructor(windowMs: number, capacity: number) {
    this.#windowMs = windowMs
    this.#capacity = capacity
  }

  count(key: string, max: number, now = performance.now()): WindowCount {
    let window = this.#windows.get(key)
    if (window === undefined) {
      window = { current: 1, startedAt: now }
      if (this.#windows.size >= this.#capacity) {
        const oldest = this.#windows.keys().next()
        if (!oldest.done) this.#windows.delete(oldest.value)
      }
    } else {
      // Re-inserted, so that the map's order is the order of last use.
      this.#windows.delete(key)
      if (window.startedAt + this.#windowMs <= now) {
        window.current = 1
        window.startedAt = now
      } else window.current += 1
    }
    this.#windows.set(key, window)
    const ttl = this.#windowMs - (now - window.startedAt)
    return {
      max,
      remaining: Math.max(0, max - window.current),
      ttl,
      ttlInSeconds: Math.ceil(ttl / 1000),
      isExceeded: window.current > max,
    }
  }
}
