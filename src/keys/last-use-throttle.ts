// How often a key's last use is written: at most once per interval per key on each instance, timed by the
// monotonic clock so that a step of the wall clock (an NTP correction, a resumed virtual machine) neither stops
// the writes for the size of a step back nor hurries them.

/** Whether a key's use is due to be recorded now; remembers only the keys recorded within the interval. */
export interface LastUseThrottle {
  due(keyId: number): boolean
  /** Keys remembered: those recorded within the last interval, give or take one look. */
  readonly size: number
}

export function lastUseThrottle(intervalMs: number): LastUseThrottle {
  // In the order they were last recorded (each one deleted before it is set again), so the oldest come first
  // and the ones the interval has passed are dropped from the front: the map holds the keys of one interval,
  // not every key ever used.
  const recordedAt = new Map<number, number>()
  return {
    due(keyId) {
      const now = performance.now()
      const last = recordedAt.get(keyId)
      if (last !== undefined && now - last < intervalMs) return false
      for (const [oldest, at] of recordedAt) {
        if (now - at < intervalMs) break
        recordedAt.delete(oldest)
      }
      recordedAt.delete(keyId)
      recordedAt.set(keyId, now)
      return true
    },
    get size() {
      return recordedAt.size
    },
  }
}
