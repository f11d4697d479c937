// Sends one logical call: the attempts, the waits between them, and the deprecation notice. A request is sent
// again only when that cannot do its work twice: it is safe (GET), or it carries an Idempotency-Key (the service
// then answers a repeat with the first response). The whole call is bounded by the retry budget, each attempt too.
import { attemptSignal, PetstoreTimeoutError } from './attempt-signal.js'
import type { DeprecationNotices } from './deprecation.js'
import { retryAfterSeconds } from './headers.js'
import { backoffMs, RETRYABLE_STATUSES, sleep, type RetryPolicy } from './retry.js'

export type FetchFunction = (input: Request, init?: RequestInit) => Promise<Response>

/** What the transport needs to know about one logical call. */
export interface Call {
  operationId: string
  /** How long one attempt may take by design (a long poll's wait): added to the retry budget, maxTotalMs. */
  expectedDurationMs?: number
  /** The body is an event stream, which never ends: the budget bounds the wait for the response, not the body. */
  streams?: boolean
}

export interface TransportOptions {
  fetch: FetchFunction
  retry: RetryPolicy
  deprecations: DeprecationNotices
  /** For tests of the timing: the source of jitter. */
  random?: () => number
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export function mayRepeat(request: Request): boolean {
  return SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key')
}

export class Transport {
  readonly #options: TransportOptions

  constructor(options: TransportOptions) {
    this.#options = options
  }

  /** A fetch function for openapi-fetch that sends the request of this call, and again while that is worth it. */
  fetchFor(call: Call): FetchFunction {
    return (request, init) => this.#send(request, init, call)
  }

  async #send(request: Request, init: RequestInit | undefined, call: Call): Promise<Response> {
    const { fetch, retry, deprecations, random = Math.random } = this.#options
    const now = Date.now
    const repeatable = mayRepeat(request)
    const started = now()
    const budgetMs = retry.maxTotalMs + (call.expectedDurationMs ?? 0)
    for (let attempt = 1; ; attempt++) {
      let response: Response
      // What is left of the budget bounds this attempt: the wait for its response and the reading of its body (a
      // body that stalls half-way would hang the call as surely as no answer), but an event stream's body, which
      // never ends, only until the response comes.
      const bound = attemptSignal(request.signal, Math.max(0, budgetMs - (now() - started)))
      try {
        // The original stays unread, so that every attempt sends the same body.
        response = await fetch(request.clone(), { ...init, signal: bound.signal })
        if (!call.streams) response = await readWhole(response)
      } catch (error) {
        bound.clear()
        // The budget is spent: no further attempt could start, and the caller learns why.
        if (bound.timedOut()) throw new PetstoreTimeoutError(call.operationId, retry.maxTotalMs, budgetMs)
        // Nothing came back: the request may or may not have been done. Aborts are the caller's decision.
        if (!repeatable || request.signal.aborted || attempt >= retry.attempts) throw error
        const delay = backoffMs(retry, attempt, random)
        if (now() - started + delay > budgetMs) throw error
        await sleep(delay, request.signal)
        continue
      }
      bound.clear()
      deprecations.notice(call.operationId, response.headers)
      if (!repeatable || attempt >= retry.attempts || !(await worthRepeating(response))) return response
      const retryAfter = retryAfterSeconds(response.headers)
      const delay = retryAfter === undefined ? backoffMs(retry, attempt, random) : retryAfter * 1000
      // A wait beyond the budget is not started: the caller gets the answer, with its Retry-After, at once.
      if (now() - started + delay > budgetMs) return response
      await response.body?.cancel()
      await sleep(delay, request.signal)
    }
  }
}

// Statuses whose responses have no body (the Fetch standard's null body statuses).
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])

/** The response with its body read while the attempt's bound still runs, as a response that holds it. */
async function readWhole(response: Response): Promise<Response> {
  const body = await response.arrayBuffer()
  const { status, statusText, headers } = response
  return new Response(NULL_BODY_STATUSES.has(status) ? null : body, { status, statusText, headers })
}

/** A retryable status, or 409 `idempotency_key_in_flight` (the first request with this key is still running). */
async function worthRepeating(response: Response): Promise<boolean> {
  if (RETRYABLE_STATUSES.has(response.status)) return true
  if (response.status !== 409) return false
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined)
  return typeof body === 'object' && body !== null && (body as { code?: unknown }).code === 'idempotency_key_in_flight'
}
