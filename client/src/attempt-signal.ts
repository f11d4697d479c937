// The signal one attempt is sent with: the caller's signal, and a timer for what is left of the call's time
// budget, so that a service which accepts the connection and never answers, or stops half-way through its answer,
// cannot hang a call.

/** The call's time budget (retry.maxTotalMs, plus a long poll's wait) ran out before a whole response came. */
export class PetstoreTimeoutError extends Error {
  // The name DOMException gives a timeout (AbortSignal.timeout), so that code checking `name` treats it alike.
  override readonly name = 'TimeoutError'
  /** The operation that timed out. */
  readonly operationId: string
  /** The retry.maxTotalMs in force. */
  readonly maxTotalMs: number

  constructor(operationId: string, maxTotalMs: number, budgetMs: number) {
    super(
      `${operationId} got no whole response within its time budget of ${budgetMs} ms ` +
        `(retry.maxTotalMs ${maxTotalMs}${budgetMs === maxTotalMs ? '' : ' plus the long poll wait'}).`,
    )
    this.operationId = operationId
    this.maxTotalMs = maxTotalMs
  }
}

export interface AttemptSignal {
  /** Aborted when the caller's signal is, or when the time runs out. */
  readonly signal: AbortSignal
  /** Whether it was the timer (not the caller) that aborted. */
  timedOut(): boolean
  /** Stops the timer (the response came); the caller's signal still aborts (the body may still be read). */
  clear(): void
}

export function attemptSignal(caller: AbortSignal | null | undefined, timeoutMs: number): AttemptSignal {
  const timer = new AbortController()
  let fired = false
  const handle = setTimeout(() => {
    fired = true
    timer.abort(new Error('attempt timed out'))
  }, timeoutMs)
  return {
    signal: caller ? anyOf(caller, timer.signal) : timer.signal,
    timedOut: () => fired && !(caller?.aborted ?? false),
    clear: () => clearTimeout(handle),
  }
}

/** AbortSignal.any (Node 20.3+, current browsers), or the same by hand where it is missing. */
function anyOf(first: AbortSignal, second: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([first, second])
  const both = new AbortController()
  for (const signal of [first, second]) {
    if (signal.aborted) {
      both.abort(signal.reason)
      break
    }
    signal.addEventListener('abort', () => both.abort(signal.reason), { once: true })
  }
  return both.signal
}
