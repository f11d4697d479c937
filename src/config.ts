// The only module that reads process.env (an ESLint rule enforces it). Every variable is parsed once, at
// start-up, into a typed Config; a bad value stops the process with one line naming the variable.
import { isIP } from 'node:net'
import { resolve } from 'node:path'
import { findNearMisses, type NearMiss } from './config-near-miss.js'

export class ConfigError extends Error {
  readonly variable: string

  /** `value` is what the message shows; leave it out when the value is a secret. */
  constructor(variable: string, allowed: string, value?: string) {
    super(`${variable}${value === undefined ? '' : `=${JSON.stringify(value)}`} is not valid: ${allowed}`)
    this.name = 'ConfigError'
    this.variable = variable
  }
}

/** A URL's password must not reach a terminal or a log collector just because the URL was rejected. */
function withoutPassword(value: string): string {
  return value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@:]*:)[^/?#]*@/, '$1***@')
}

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string }

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

type Parser<T> = (value: string | undefined, name: string) => T

function port(fallback: number): Parser<number> {
  return (value, name) => {
    if (value === undefined || value === '') return fallback
    const parsed = /^(0|[1-9][0-9]{0,4})$/.test(value) ? Number(value) : NaN
    if (!(parsed >= 0 && parsed <= 65535)) throw new ConfigError(name, 'an integer from 0 to 65535', value)
    return parsed
  }
}

function host(fallback: string): Parser<string> {
  return (value, name) => {
    if (value === undefined || value === '') return fallback
    if (!/^[A-Za-z0-9.:\-[\]]+$/.test(value)) throw new ConfigError(name, 'a host name or IP address', value)
    // Digits and dots are never looked up as a name: 256.1.1.1 would otherwise end as getaddrinfo ENOTFOUND.
    if (/^[0-9.]+$/.test(value) && isIP(value) !== 4) {
      throw new ConfigError(
        name,
        'a host name or IP address; as an IPv4 address it needs four numbers from 0 to 255 (127.0.0.1, 0.0.0.0 for every interface)',
        value,
      )
    }
    return value
  }
}

const database: Parser<DatabaseConfig> = (value, name) => {
  if (value === undefined || value === '') return { kind: 'sqlite', path: resolve('data/petstore.db') }
  const sqlite = /^(?:file|sqlite):(.+)$/.exec(value)
  // `file:///abs/path` is the URL spelling of `/abs/path`, but `file://name/…` names a host: refusing it beats
  // guessing (read as a path, `sqlite://data/x.db` would quietly become `/data/x.db`).
  if (sqlite?.[1] && !/^\/\/[^/]/.test(sqlite[1])) {
    const path = sqlite[1].replace(/^\/\/(?=\/)/, '')
    return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(path) }
  }
  if (/^postgres(?:ql)?:\/\/./.test(value)) return { kind: 'postgres', url: value }
  throw new ConfigError(
    name,
    'file:PATH or sqlite:PATH (SQLite), or postgres://… / postgresql://… (PostgreSQL)',
    withoutPassword(value),
  )
}

// Visible ASCII only: a key is sent in an HTTP header, where anything else does not arrive reliably.
const STATIC_KEY = /^[\x21-\x2B\x2D-\x7E]{16,}$/

const apiKeys: Parser<string[]> = (value, name) => {
  if (value === undefined || value.trim() === '') return []
  const keys = value.split(',').map((key) => key.trim())
  keys.forEach((key, index) => {
    if (STATIC_KEY.test(key)) return
    // The keys are secrets: the message says which one is wrong and why, never what it is.
    const problem =
      key.length < 16 ? `is ${key.length} characters long` : 'contains white space or a character outside visible ASCII'
    throw new ConfigError(
      name,
      `key ${index + 1} of ${keys.length} ${problem}; expected comma-separated keys, each at least 16 visible ASCII characters without white space`,
    )
  })
  return [...new Set(keys)]
}

// A bearer token: visible ASCII (it travels in a header), long enough not to be guessed within rate limits.
const bearerToken: Parser<string | undefined> = (value, name) => {
  if (value === undefined || value === '') return undefined
  // A secret: the message says what is wrong, never what the value is.
  if (/^[\x21-\x7E]{16,}$/.test(value)) return value
  const problem = /[^\x21-\x7E]/.test(value)
    ? 'it contains white space or a character outside visible ASCII'
    : `it is ${value.length} characters long`
  throw new ConfigError(name, `${problem}; expected at least 16 visible ASCII characters without white space`)
}

const publicBaseUrl: Parser<string | undefined> = (value, name) => {
  if (value === undefined || value === '') return undefined
  let url: URL | undefined
  try {
    url = new URL(value)
  } catch {
    url = undefined
  }
  if (
    !url ||
    !/^https?:$/.test(url.protocol) ||
    url.pathname !== '/' ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    throw new ConfigError(
      name,
      'an http(s) origin such as https://petstore.example.com (no path, query or credentials)',
      withoutPassword(value),
    )
  }
  return url.origin
}

/**
 * A published base address of the API (the OpenAPI document's `servers`): https, ending in the `/v1` the
 * specification gives every base address, nothing after it. Normalised without a trailing slash.
 */
const apiBaseUrl: Parser<string | undefined> = (value, name) => {
  if (value === undefined || value === '') return undefined
  let url: URL | undefined
  try {
    url = new URL(value)
  } catch {
    url = undefined
  }
  if (
    !url ||
    url.protocol !== 'https:' ||
    !/^(?:\/[^/]+)*\/v1\/?$/.test(url.pathname) ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  ) {
    throw new ConfigError(
      name,
      'an https base address ending in /v1, such as https://petstore.example.com/v1 (no query or credentials)',
      withoutPassword(value),
    )
  }
  return `${url.origin}${url.pathname.replace(/\/$/, '')}`
}

const logLevel: Parser<LogLevel> = (value, name) => {
  if (value === undefined || value === '') return 'info'
  if (!(LOG_LEVELS as readonly string[]).includes(value))
    throw new ConfigError(name, `one of ${LOG_LEVELS.join(', ')}`, value)
  return value as LogLevel
}

const redisUrl: Parser<string | undefined> = (value, name) => {
  if (value === undefined || value === '') return undefined
  if (!/^rediss?:\/\/./.test(value)) throw new ConfigError(name, 'a redis:// or rediss:// URL', withoutPassword(value))
  return value
}

function integer(fallback: number, minimum: number, maximum: number): Parser<number> {
  return (value, name) => {
    if (value === undefined || value === '') return fallback
    const parsed = /^(0|[1-9][0-9]{0,15})$/.test(value) ? Number(value) : NaN
    if (!(parsed >= minimum && parsed <= maximum))
      throw new ConfigError(name, `an integer from ${minimum} to ${maximum}`, value)
    return parsed
  }
}

/** Which peers may tell the client's address in X-Forwarded-For: none, the nearest N hops, or these addresses. */
export type TrustProxy = false | number | string[]

// proxy-addr's names for the usual private ranges (127.0.0.0/8 and ::1; 169.254.0.0/16 and fe80::/10;
// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 and fc00::/7).
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal']

function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.includes(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  return prefix === undefined || (/^(0|[1-9][0-9]{0,2})$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))
}

// Trusting every peer (Fastify's `true`) is not offered: any client could then name its own address and
// escape the per-address rate limit.
const trustProxy: Parser<TrustProxy> = (value, name) => {
  if (value === undefined || value === '' || value === 'false') return false
  if (/^[1-9]$/.test(value)) return Number(value)
  const entries = value.split(',').map((entry) => entry.trim())
  if (!entries.every(isProxyAddress)) {
    throw new ConfigError(
      name,
      'false, a hop count from 1 to 9, or comma-separated proxy addresses and CIDR ranges (e.g. 127.0.0.1,10.0.0.0/8; loopback, linklocal and uniquelocal name the private ranges)',
      value,
    )
  }
  return entries
}

const redisNamespace: Parser<string> = (value, name) => {
  if (value === undefined || value === '') return 'petstore:rate-limit'
  if (!/^[A-Za-z0-9:._-]{1,64}$/.test(value))
    throw new ConfigError(name, '1 to 64 characters from A-Z a-z 0-9 : . _ -', value)
  return value
}

function boolean(fallback: boolean): Parser<boolean> {
  return (value, name) => {
    if (value === undefined || value === '') return fallback
    if (value === 'true' || value === '1') return true
    if (value === 'false' || value === '0') return false
    throw new ConfigError(name, 'true or false', value)
  }
}

/** WEBHOOK_SECRET_KEY: 32 bytes, as 64 hexadecimal characters or as base64 (44 characters with padding). */
const secretKey: Parser<Buffer | undefined> = (value, name) => {
  if (value === undefined || value === '') return undefined
  const key = /^[0-9a-fA-F]{64}$/.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/]{43}=?$/.test(value)
      ? Buffer.from(value, 'base64')
      : undefined
  // A secret: the message says what is expected, never what the value is.
  if (key?.length !== 32)
    throw new ConfigError(
      name,
      `32 random bytes as 64 hexadecimal characters or as base64 (e.g. the output of: openssl rand -hex 32); the value given is ${value.length} characters long`,
    )
  return key
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const MAX_RETRY_DELAY_MS = 7 * 86_400_000
const MAX_RETRIES = 20

/**
 * WEBHOOK_RETRY_SCHEDULE: the delays before each retry of a failed delivery, e.g. `1s,2s,5s` (units ms, s, m,
 * h, d), or `none`; milliseconds. The default is DESIGN.md's: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
 */
const retrySchedule: Parser<readonly number[]> = (value, name) => {
  if (value === undefined || value === '')
    return [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]
  if (value === 'none') return []
  const delays = value.split(',').map((entry) => {
    const match = /^([0-9]{1,9})(ms|s|m|h|d)$/.exec(entry.trim())
    return match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? NaN) : NaN
  })
  if (delays.length > MAX_RETRIES || !delays.every((delay) => delay >= 1 && delay <= MAX_RETRY_DELAY_MS)) {
    throw new ConfigError(
      name,
      `none, or 1 to ${MAX_RETRIES} comma-separated delays from 1ms to 7d, each a whole number with a unit ms, s, m, h or d (e.g. 1s,2s,5s)`,
      value,
    )
  }
  return delays
}

// The schema of the configuration: variable name → parser. Config's type is derived from it.
const variables = {
  PORT: ['port', port(8080)],
  HOST: ['host', host('127.0.0.1')],
  DATABASE_URL: ['database', database],
  PETSTORE_API_KEYS: ['staticApiKeys', apiKeys],
  PUBLIC_BASE_URL: ['publicBaseUrl', publicBaseUrl],
  // The production and staging base addresses the OpenAPI document names in `servers` (the specification's
  // {base_url} and {staging_base_url}); unset, the document names only the instance that serves it.
  PRODUCTION_BASE_URL: ['productionBaseUrl', apiBaseUrl],
  STAGING_BASE_URL: ['stagingBaseUrl', apiBaseUrl],
  LOG_LEVEL: ['logLevel', logLevel],
  REDIS_URL: ['redisUrl', redisUrl],
  // PostgreSQL only: connections per instance, and how long one statement may run before it is cancelled.
  DATABASE_POOL_SIZE: ['databasePoolSize', integer(10, 1, 1000)],
  // The default keeps a request that meets an unreachable database under about two seconds; the service's
  // own statements take milliseconds.
  DATABASE_STATEMENT_TIMEOUT_MS: ['databaseStatementTimeoutMs', integer(1500, 100, 600_000)],
  // Off for instances started after a separate `petstore migrate` step, so they never race to migrate.
  MIGRATE_ON_START: ['migrateOnStart', boolean(true)],
  // Idempotency-Key records are kept (and replayed) for this long after the response; the IETF draft and
  // common practice promise at least 24 hours, so shorter is allowed only deliberately (tests, small disks).
  IDEMPOTENCY_KEY_TTL_HOURS: ['idempotencyKeyTtlHours', integer(24, 1, 8760)],
  // How long a request holds its Idempotency-Key before a retry may take it over as abandoned (its process
  // died). Longer than any request runs (statements time out after seconds); correctness does not depend on
  // it, since a request that lost its key rolls its effect back. Shorter means faster retries after a crash.
  IDEMPOTENCY_LEASE_SECONDS: ['idempotencyLeaseSeconds', integer(10, 1, 3600)],
  // Requests per window: per API key, and per client address for requests without a valid key (so that a
  // flood of bad keys is refused cheaply, before any other work). Fixed windows, counted in Redis when
  // REDIS_URL is set (shared by every instance), in memory otherwise.
  RATE_LIMIT_PER_KEY: ['rateLimitPerKey', integer(600, 1, 1_000_000_000)],
  RATE_LIMIT_ANONYMOUS: ['rateLimitAnonymous', integer(60, 1, 1_000_000_000)],
  RATE_LIMIT_WINDOW_SECONDS: ['rateLimitWindowSeconds', integer(60, 1, 86_400)],
  // Prefix of the counters in Redis, so that several deployments can share one Redis without sharing quotas.
  RATE_LIMIT_NAMESPACE: ['rateLimitNamespace', redisNamespace],
  TRUST_PROXY: ['trustProxy', trustProxy],
  // When set, /metrics answers only requests with `Authorization: Bearer <token>`.
  METRICS_TOKEN: ['metricsToken', bearerToken],
  // Events are kept this long, then purged; a reader whose position falls into the purged range gets 410.
  EVENT_RETENTION_DAYS: ['eventRetentionDays', integer(30, 1, 36_500)],
  // The longest a long poll waits, whatever its `wait` asks: lower it below a proxy's read time-out; 0 answers
  // every long poll at once.
  EVENT_WAIT_MAX_SECONDS: ['eventWaitMaxSeconds', integer(30, 0, 30)],
  // Event streams and waiting long polls one API key may hold open at once, per instance (then 429).
  EVENT_STREAMS_PER_KEY: ['eventStreamsPerKey', integer(10, 1, 100_000)],
  // Seconds between the comments that keep an idle event stream open through proxies that drop silent connections.
  EVENT_HEARTBEAT_SECONDS: ['eventHeartbeatSeconds', integer(15, 1, 300)],
  // How often waiting readers look for events committed by other instances (this instance's own wake them at once).
  EVENT_POLL_INTERVAL_MS: ['eventPollIntervalMs', integer(25, 10, 60_000)],
  // Webhook signing secrets are stored encrypted with this key (AES-256-GCM). Unset, a key is generated and kept
  // in the database itself (with a warning at start-up): then a copy of the database alone gives the secrets away.
  WEBHOOK_SECRET_KEY: ['webhookSecretKey', secretKey],
  // Webhooks may then be delivered to loopback, private, link-local and other non-public addresses: for local
  // development and tests only, since a key holder could otherwise aim the service at its own network.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: ['webhookAllowPrivateNetworks', boolean(false)],
  WEBHOOK_RETRY_SCHEDULE: ['webhookRetryScheduleMs', retrySchedule],
  // One delivery attempt: a 2xx must have arrived (and up to 4 KiB of its body been read) within this time.
  WEBHOOK_ATTEMPT_TIMEOUT_MS: ['webhookAttemptTimeoutMs', integer(10_000, 100, 120_000)],
  // How long an instance holds a delivery it attempts; after it, another instance retries (the first one died).
  // Longer than an attempt may take (checked below).
  WEBHOOK_LEASE_MS: ['webhookLeaseMs', integer(60_000, 1000, 3_600_000)],
  // How often an instance looks for deliveries that others created or that became due (its own commits wake it at once).
  WEBHOOK_POLL_INTERVAL_MS: ['webhookPollIntervalMs', integer(500, 10, 60_000)],
  // While commits keep coming, an instance looks for new events and due deliveries at most this often, so that
  // each look's transactions serve many events instead of one (a look after a quiet spell starts at once).
  WEBHOOK_BATCH_INTERVAL_MS: ['webhookBatchIntervalMs', integer(20, 0, 1000)],
  // After a secret rotation, the previous secret keeps signing beside the new one for this long.
  WEBHOOK_SECRET_OVERLAP_SECONDS: ['webhookSecretOverlapSeconds', integer(86_400, 0, 30 * 86_400)],
  // Attempts in progress at once, per instance: in total, and to one endpoint (so a slow receiver holds only its own share).
  WEBHOOK_CONCURRENCY: ['webhookConcurrency', integer(64, 1, 10_000)],
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: ['webhookConcurrencyPerEndpoint', integer(8, 1, 1000)],
  // While this many HTTP requests or more are in progress on an instance (its clients are queueing), it makes
  // one webhook attempt at a time per endpoint, and starts one at most per WEBHOOK_BUSY_INTERVAL_MS, all
  // endpoints together: API requests go first, deliveries catch up once the load falls. 0: never give way.
  WEBHOOK_BUSY_REQUESTS: ['webhookBusyRequests', integer(16, 0, 100_000)],
  WEBHOOK_BUSY_INTERVAL_MS: ['webhookBusyIntervalMs', integer(50, 1, 10_000)],
  // On shutdown, attempts in progress get this long to finish; the rest are abandoned and left to be retried at
  // once by any instance. Below the 10 s the whole shutdown may take.
  WEBHOOK_SHUTDOWN_WAIT_MS: ['webhookShutdownWaitMs', integer(5000, 0, 8000)],
  // Finished deliveries (and their attempts) are kept this long for GET /v1/webhooks/{id}/deliveries, then purged.
  WEBHOOK_DELIVERY_RETENTION_DAYS: ['webhookDeliveryRetentionDays', integer(30, 1, 36_500)],
} as const

type Variables = typeof variables
/** The name of a variable the service reads. */
export type ConfigVariable = keyof Variables
export type Config = {
  [K in keyof Variables as Variables[K][0]]: ReturnType<Variables[K][1]>
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const config: Record<string, unknown> = {}
  for (const [variable, [field, parse]] of Object.entries(variables)) {
    config[field] = parse(env[variable], variable)
  }
  const loaded = config as Config
  // A lease that could end while its attempt still runs would let a second instance deliver beside the first.
  if (loaded.webhookLeaseMs <= loaded.webhookAttemptTimeoutMs + 1000) {
    throw new ConfigError(
      'WEBHOOK_LEASE_MS',
      `more than WEBHOOK_ATTEMPT_TIMEOUT_MS + 1000 (${loaded.webhookAttemptTimeoutMs + 1000}): a delivery's lease must outlast its attempt`,
      String(loaded.webhookLeaseMs),
    )
  }
  return loaded
}

/** The names of every variable the service reads. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(variables)

/** Variables that are set but not read, each with the one it probably meant (DATABSE_URL → DATABASE_URL). */
export function findMisspeltVariables(env: Record<string, string | undefined> = process.env): NearMiss[] {
  return findNearMisses(
    Object.keys(env).filter((name) => env[name] !== undefined),
    CONFIG_VARIABLES,
  )
}
