// Tuning: values an operator has no reason to change, fixed here with the reason beside each (they were once
// environment variables; docs/configuration.md says why they no longer are). Tests pass their own in code
// (buildApp's and serve's `tuning`): shorter leases and waits, faster polls, fewer attempts at once.

export interface Tuning {
  /**
   * How long a request holds its Idempotency-Key before a retry may take it over as abandoned (its process
   * died). Longer than any request runs (statements time out after seconds); correctness does not depend on it,
   * since a request that lost its key rolls its effect back.
   */
  idempotencyLeaseSeconds: number
  /**
   * The longest a long poll waits, whatever its `wait` asks: below the read time-out of common proxies (60 s).
   * 0 answers every long poll at once.
   */
  eventWaitMaxSeconds: number
  /** Between the comments that keep an idle event stream open through proxies that drop silent connections. */
  eventHeartbeatSeconds: number
  /**
   * An open event stream asks again whether its key still holds (revoked, expired) before it writes, at most this
   * often: every commit invalidates the keys' cache, so asking before every batch would cost each stream a key
   * lookup per commit. A revoked key's stream ends within this time, or at its next heartbeat.
   */
  eventStreamKeyRecheckMs: number
  /** How often waiting readers look for events committed by other instances (this one's own wake them at once). */
  eventPollIntervalMs: number
  /**
   * PostgreSQL: how often each instance numbers the events others committed and left unnumbered (a crash, a
   * tool): they wait this long at most. The sweep after numberings also vacuums the inbox they left.
   */
  eventSweepIntervalMs: number
  /**
   * One delivery attempt: a 2xx status must have arrived within this time (its body is read for the log for a
   * second at most, and never past this time).
   */
  webhookAttemptTimeoutMs: number
  /** How long an instance holds a delivery it attempts; after it, another instance retries (the first one died). */
  webhookLeaseMs: number
  /** How often an instance looks for deliveries others created or that became due (its own commits wake it). */
  webhookPollIntervalMs: number
  /** While commits keep coming, the least time between two looks for new events and due deliveries. */
  webhookBatchIntervalMs: number
  /** After a secret rotation, the previous secret keeps signing beside the new one for this long. */
  webhookSecretOverlapSeconds: number
  /** Attempts in progress at once per instance: in total, and to one endpoint (a slow receiver holds its share). */
  webhookConcurrency: number
  webhookConcurrencyPerEndpoint: number
  /**
   * From this many HTTP requests in progress on an instance (its clients queue), it makes one webhook attempt at
   * a time per endpoint and starts one at most per `webhookBusyIntervalMs`, all endpoints together. 0: never.
   */
  webhookBusyRequests: number
  webhookBusyIntervalMs: number
  /** On shutdown, attempts in progress get this long; the rest are left to be retried at once by any instance. */
  webhookShutdownWaitMs: number
  /**
   * On SIGTERM or SIGINT, requests in progress get this long to finish; then they are cut off and the process
   * exits with code 1. Within what orchestrators wait before they kill (Kubernetes: 30 s).
   */
  shutdownGraceMs: number
}

/** A receiver may take this long to answer; the lease is derived from it. */
const ATTEMPT_TIMEOUT_MS = 10_000
/** A delivery's lease outlasts its attempt by far: only how soon a crashed instance's delivery is retried. */
const LEASE_PER_ATTEMPT = 6

export const DEFAULT_TUNING: Readonly<Tuning> = {
  idempotencyLeaseSeconds: 10,
  eventWaitMaxSeconds: 30,
  eventHeartbeatSeconds: 15,
  eventStreamKeyRecheckMs: 1000,
  eventPollIntervalMs: 25,
  eventSweepIntervalMs: 1000,
  webhookAttemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
  webhookLeaseMs: ATTEMPT_TIMEOUT_MS * LEASE_PER_ATTEMPT,
  webhookPollIntervalMs: 500,
  webhookBatchIntervalMs: 20,
  // The day the API reference promises to a receiver that must switch to the new secret.
  webhookSecretOverlapSeconds: 86_400,
  webhookConcurrency: 64,
  webhookConcurrencyPerEndpoint: 8,
  webhookBusyRequests: 16,
  webhookBusyIntervalMs: 50,
  // Half of the 10 s that the whole shutdown may take.
  webhookShutdownWaitMs: 5000,
  shutdownGraceMs: 10_000,
}

/**
 * The defaults with `overrides` applied. Without its own lease, a shorter or longer attempt time-out gets the
 * lease derived from it. A lease that could end while its attempt still runs would let a second instance
 * deliver beside the first: that is refused.
 */
export function tuningWith(overrides: Partial<Tuning> = {}): Tuning {
  const attemptTimeoutMs = overrides.webhookAttemptTimeoutMs ?? DEFAULT_TUNING.webhookAttemptTimeoutMs
  const tuning = { ...DEFAULT_TUNING, webhookLeaseMs: attemptTimeoutMs * LEASE_PER_ATTEMPT, ...overrides }
  if (tuning.webhookLeaseMs <= tuning.webhookAttemptTimeoutMs + 1000) {
    throw new RangeError(
      `webhookLeaseMs must exceed webhookAttemptTimeoutMs + 1000 (${tuning.webhookAttemptTimeoutMs + 1000}): ` +
        `a delivery's lease must outlast its attempt`,
    )
  }
  return tuning
}
