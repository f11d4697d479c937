/** Spread of each retry's delay (±20 %), so that deliveries that failed together are not retried together. */
const JITTER = 0.2

/** After attempt `attempt` (1 for the first) failed: the delay before the next one, or undefined when none is left. */
export function retryDelayMs(
  scheduleMs: readonly number[],
  attempt: number,
  random: () => number = Math.random,
): number | undefined {
  const delay = scheduleMs[attempt - 1]
  return delay === undefined ? undefined : Math.round(delay * (1 - JITTER + 2 * JITTER * random()))
}
