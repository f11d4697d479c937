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

// The schema of the configuration: variable name → parser. Config's type is derived from it.
const variables = {
  PORT: ['port', port(8080)],
  HOST: ['host', host('127.0.0.1')],
  DATABASE_URL: ['database', database],
  PETSTORE_API_KEYS: ['staticApiKeys', apiKeys],
  PUBLIC_BASE_URL: ['publicBaseUrl', publicBaseUrl],
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
  return config as Config
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
