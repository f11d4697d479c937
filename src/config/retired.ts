// Variables the service no longer reads: tuning that operators had no reason to change (config/tuning.ts holds
// the values now). Kept so that a process that still sets one is told its value is ignored, and so that the
// configuration page says what each became and why.

export interface Retired {
  /** What the value is now. */
  now: string
  /** Why it is no longer a variable. */
  why: string
}

export const RETIRED_VARIABLES: Readonly<Record<string, Retired>> = {
  IDEMPOTENCY_LEASE_SECONDS: {
    now: '10 s',
    why: 'only how soon a retry takes over a key whose process died; correctness never depends on it',
  },
  EVENT_WAIT_MAX_SECONDS: {
    now: '30 s',
    why: 'below the read time-out of common proxies (60 s); a client that wants less asks with `wait`',
  },
  EVENT_HEARTBEAT_SECONDS: {
    now: '15 s',
    why: 'well below the idle time-out of common proxies (60 s); no deployment gains from another value',
  },
  EVENT_POLL_INTERVAL_MS: {
    now: '25 ms',
    why: "only how soon a reader sees another instance's events; an instance's own commits wake its readers",
  },
  WEBHOOK_ATTEMPT_TIMEOUT_MS: {
    now: '10 s',
    why: 'what every receiver can count on; a shorter one would only fail slow receivers',
  },
  WEBHOOK_LEASE_MS: {
    now: '6 × the attempt time-out (60 s)',
    why: "derived: it must outlast an attempt, and only sets how soon a crashed instance's deliveries are retried",
  },
  WEBHOOK_POLL_INTERVAL_MS: {
    now: '500 ms',
    why: 'only how soon an instance sees deliveries that fell due or that others created; its own commits wake it',
  },
  WEBHOOK_BATCH_INTERVAL_MS: {
    now: '20 ms',
    why: 'internal pacing that lets one transaction serve many events; measured, not a deployment choice',
  },
  WEBHOOK_SECRET_OVERLAP_SECONDS: {
    now: '24 h',
    why: 'a promise to receivers (the previous secret signs for a day after a rotation), the same everywhere',
  },
  WEBHOOK_CONCURRENCY: {
    now: '64 per instance',
    why: 'protects the instance, not the receivers; more delivery capacity comes with more instances',
  },
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: {
    now: '8 per instance',
    why: "keeps a slow receiver to its share; fairness between endpoints is the deliverer's job, not a knob",
  },
  WEBHOOK_BUSY_REQUESTS: {
    now: '16 requests in progress',
    why: 'internal pacing that lets API requests go first under load; measured (docs/benchmarks.md)',
  },
  WEBHOOK_BUSY_INTERVAL_MS: {
    now: '50 ms',
    why: 'the pace of deliveries while the API is busy; measured with the threshold above',
  },
  WEBHOOK_SHUTDOWN_WAIT_MS: {
    now: '5 s',
    why:
      'half of the 10 s a shutdown may take; an attempt given up then is retried at once by any instance ' +
      '(logged `interrupted` if its request had been sent)',
  },
}
