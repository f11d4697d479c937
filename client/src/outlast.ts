// What `follow` and `stream` outlast once they have been answered: a service that restarts, or is unreachable for a
// while, is waited for rather than given up on, as a browser's EventSource waits. Before the first answer a
// failure is thrown (a wrong baseUrl or key shows at once), and so is every failure no retry can mend (401, 403,
// 410: a key revoked, a position purged).
import { PetstoreTimeoutError } from './attempt-signal.js'
import { PetstoreError } from './errors.js'
import { backoffMs, RETRYABLE_STATUSES, type RetryPolicy } from './retry.js'

/**
 * Whether the request may succeed if sent again later: no answer at all (fetch's TypeError, the time budget spent)
 * or an answer that says so (408, 429, 5xx). Only the call's own failure is asked about, never the caller's code's.
 */
export function mayPassLater(error: unknown): boolean {
  if (error instanceof PetstoreError) return RETRYABLE_STATUSES.has(error.status)
  return error instanceof PetstoreTimeoutError || error instanceof TypeError
}

/**
 * The pause before trying again after `failures` failures in a row (the transport has already spent its own
 * retries on each): the service's Retry-After, else the policy's backoff, never less than its base delay, so that
 * a follower never spins.
 */
export function pauseAfterFailure(error: unknown, retry: RetryPolicy, failures: number): number {
  const retryAfter = error instanceof PetstoreError ? error.retryAfter : undefined
  if (retryAfter !== undefined) return retryAfter * 1000
  return Math.max(retry.baseDelayMs, backoffMs(retry, failures))
}
