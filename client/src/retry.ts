// When and how long to wait before trying a request again: capped exponential backoff with full jitter, or the
// service's Retry-After, within a bounded number of attempts and a bounded total time.

export interface RetryOptions {
  /** Attempts in all, the first included (1 turns retrying off). Default 4. */
  attempts?: number
  /** The backoff before the second attempt is up to this; it doubles per attempt. Default 250 ms. */
  baseDelayMs?: number
  /** No backoff is longer than this (a Retry-After may be, within maxTotalMs). Default 8 s. */
  maxDelayMs?: number
  /**
   * The time the whole call may take, its attempts and the waits between them (a long poll adds its `wait`): an
   * attempt still without a response then is aborted (PetstoreTimeoutError), and a wait that would end later
   * (a long Retry-After) is not started. Default 30 s.
   */
  maxTotalMs?: number
}

export type RetryPolicy = Required<RetryOptions>

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 8_000, maxTotalMs: 30_000 }

/** The longest a timer waits (2^31 - 1 ms, about 24.8 days): a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1

export function retryPolicy(options: RetryOptions | undefined): RetryPolicy {
  const policy = { ...DEFAULT_RETRY, ...options }
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`retry.${name} must be a finite number >= 0, not ${String(value)}`)
    if (name.endsWith('Ms') && value > MAX_TIMER_MS)
      throw new RangeError(`retry.${name} must be at most ${MAX_TIMER_MS} ms (a timer's limit), not ${value}`)
  }
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1)
    throw new RangeError(`retry.attempts must be an integer >= 1, not ${policy.attempts}`)
  return policy
}

/** Statuses that say the request may succeed if sent again unchanged. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504])

/**
 * Full jitter (a random delay between 0 and the capped exponential bound) spreads the retries of many clients
 * that failed together, so that they do not return together.
 */
export function backoffMs(policy: RetryPolicy, failedAttempts: number, random: () => number = Math.random): number {
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempts - 1))
  return Math.floor(random() * bound)
}

/** Resolves after `ms`, or rejects with the signal's reason when it is aborted first. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
