// The configuration table: every environment variable the service reads, with its kind (what it accepts and
// its default), the commands that read it and a one-line description. The table parses the environment (this
// is the only module that reads process.env; an ESLint rule enforces it), writes the variables' part of
// `petstore --help`, and docs/configuration.md (npm run config:docs). Tuning that operators have no reason to
// change is not here but in config/tuning.ts, where tests override it in code.
import { boolean, database, host, integer, oneOf, text, url, checkedUrl, LOG_LEVELS } from './config/kinds.js'
import type { Kind } from './config/kinds.js'
import { retrySchedule, trustProxy } from './config/list-kinds.js'
import { findNearMisses, type NearMiss } from './config/near-miss.js'
import { RETIRED_VARIABLES } from './config/retired.js'
import { apiKeys, bearerToken, secretKey } from './config/secret-kinds.js'

export { ConfigError } from './config/config-error.js'
export type { DatabaseConfig, LogLevel } from './config/kinds.js'
export type { TrustProxy } from './config/list-kinds.js'

/**
 * Which commands read a variable: every command (they all open the database), `petstore serve` alone, or serve
 * and import (which opens the webhook secrets it loads).
 */
export type ReadBy = 'every command' | 'serve' | 'serve and import'

export interface Variable<Field extends string, Value> {
  /** The name of the variable's value in Config. */
  field: Field
  kind: Kind<Value>
  readBy: ReadBy
  /** One line for `--help` and the configuration page; the default is added to it. */
  description: string
}

function variable<Field extends string, Value>(
  field: Field,
  kind: Kind<Value>,
  readBy: ReadBy,
  description: string,
): Variable<Field, Value> {
  return { field, kind, readBy, description }
}

const API_BASE_URL =
  'an https base address ending in /v1, such as https://petstore.example.com/v1 (no query or credentials)'
/** The OpenAPI document's `servers`: https, ending in the `/v1` of every base address, normalised without a slash. */
const apiBaseUrl = checkedUrl(
  API_BASE_URL,
  (address) => address.protocol === 'https:' && /^(?:\/[^/]+)*\/v1\/?$/.test(address.pathname),
  (address) => `${address.origin}${address.pathname.replace(/\/$/, '')}`,
)
const publicOrigin = checkedUrl(
  'an http(s) origin such as https://petstore.example.com (no path, query or credentials)',
  (address) => /^https?:$/.test(address.protocol) && address.pathname === '/',
  (address) => address.origin,
  "the request's Host",
)
const redisNamespace = text(
  /^[A-Za-z0-9:._-]{1,64}$/,
  '1 to 64 characters from A-Z a-z 0-9 : . _ -',
  'petstore:rate-limit',
)
const COUNT = 1_000_000_000

// The order is the order of --help and of the page; when several values are wrong, the first one is reported.
const variables = {
  PORT: variable('port', integer(8080, 0, 65535), 'serve', 'port to listen on'),
  HOST: variable('host', host('127.0.0.1'), 'serve', 'address to listen on (0.0.0.0 for every interface)'),
  DATABASE_URL: variable(
    'database',
    database,
    'every command',
    'file:PATH or sqlite:PATH (SQLite), postgres://… (PostgreSQL)',
  ),
  PETSTORE_API_KEYS: variable(
    'staticApiKeys',
    apiKeys,
    'serve',
    'comma-separated static API keys with every scope, each at least 16 characters',
  ),
  PUBLIC_BASE_URL: variable(
    'publicBaseUrl',
    publicOrigin,
    'serve',
    'the public origin for absolute links, e.g. https://petstore.example.com',
  ),
  PRODUCTION_BASE_URL: variable(
    'productionBaseUrl',
    apiBaseUrl,
    'serve',
    'production base address the API document names',
  ),
  STAGING_BASE_URL: variable('stagingBaseUrl', apiBaseUrl, 'serve', 'staging base address the API document names'),
  LOG_LEVEL: variable(
    'logLevel',
    oneOf(LOG_LEVELS, 'info'),
    'serve',
    'fatal, error, warn, info, debug, trace or silent',
  ),
  REDIS_URL: variable(
    'redisUrl',
    url(/^rediss?:\/\/./, 'a well-formed redis:// or rediss:// URL'),
    'serve',
    'redis:// or rediss:// URL: rate-limit counters shared by every instance',
  ),
  DATABASE_POOL_SIZE: variable(
    'databasePoolSize',
    integer(10, 1, 1000),
    'every command',
    'PostgreSQL connections for transactions, per process (serve opens six more)',
  ),
  DATABASE_STATEMENT_TIMEOUT_MS: variable(
    'databaseStatementTimeoutMs',
    integer(1500, 100, 600_000),
    'every command',
    'PostgreSQL statement time-out in milliseconds',
  ),
  MIGRATE_ON_START: variable('migrateOnStart', boolean(true), 'serve', 'apply migrations when serve starts'),
  IDEMPOTENCY_KEY_TTL_HOURS: variable(
    'idempotencyKeyTtlHours',
    integer(24, 1, 8760),
    'serve',
    'hours Idempotency-Key records are kept and replayed',
  ),
  RATE_LIMIT_PER_KEY: variable('rateLimitPerKey', integer(600, 1, COUNT), 'serve', 'requests per window per API key'),
  RATE_LIMIT_ANONYMOUS: variable(
    'rateLimitAnonymous',
    integer(60, 1, COUNT),
    'serve',
    'requests per window per client address without a valid key',
  ),
  RATE_LIMIT_WINDOW_SECONDS: variable(
    'rateLimitWindowSeconds',
    integer(60, 1, 86_400),
    'serve',
    'length of the rate-limit window',
  ),
  RATE_LIMIT_NAMESPACE: variable(
    'rateLimitNamespace',
    redisNamespace,
    'serve',
    'prefix of the rate-limit counters in Redis',
  ),
  TRUST_PROXY: variable(
    'trustProxy',
    trustProxy,
    'serve',
    'proxies that may set X-Forwarded-For: false, a hop count, or addresses and CIDR ranges',
  ),
  METRICS_TOKEN: variable(
    'metricsToken',
    bearerToken,
    'serve',
    'when set, GET /metrics requires Authorization: Bearer <token> (set it in production)',
  ),
  EVENT_RETENTION_DAYS: variable('eventRetentionDays', integer(30, 1, 36_500), 'serve', 'days events are kept'),
  EVENT_STREAMS_PER_KEY: variable(
    'eventStreamsPerKey',
    integer(10, 1, 100_000),
    'serve',
    'event streams and waiting long polls one API key may hold open per instance',
  ),
  WEBHOOK_SECRET_KEY: variable(
    'webhookSecretKey',
    secretKey,
    'serve and import',
    'key encrypting webhook secrets at rest: 32 bytes as 64 hex characters or base64',
  ),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: variable(
    'webhookAllowPrivateNetworks',
    boolean(false),
    'serve',
    'deliver webhooks to loopback and private addresses too: development and tests only',
  ),
  WEBHOOK_RETRY_SCHEDULE: variable(
    'webhookRetryScheduleMs',
    retrySchedule,
    'serve',
    'delays before each webhook retry, e.g. 1s,2s,5s, or none',
  ),
  WEBHOOK_DELIVERY_RETENTION_DAYS: variable(
    'webhookDeliveryRetentionDays',
    integer(30, 1, 36_500),
    'serve',
    'days finished webhook deliveries are kept in the delivery log',
  ),
} as const

type Variables = typeof variables
export type Config = {
  [Name in keyof Variables as Variables[Name]['field']]: ReturnType<Variables[Name]['kind']['unset']>
}

/** The table, in its order, for the renderers (help and the configuration page). */
export const CONFIG_TABLE: readonly (readonly [string, Variable<string, unknown>])[] = Object.entries(variables)

/** The names of every variable the service reads. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(variables)

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const config: Record<string, unknown> = {}
  for (const [name, { field, kind }] of CONFIG_TABLE) {
    const value = env[name]
    config[field] = value === undefined || value === '' ? kind.unset() : kind.parse(value, name)
  }
  return config as Config
}

/** Variables that are set but not read, each with the one it probably meant (DATABSE_URL → DATABASE_URL). */
export function findMisspeltVariables(env: Record<string, string | undefined> = process.env): NearMiss[] {
  return findNearMisses(
    Object.keys(env).filter((name) => env[name] !== undefined && !Object.hasOwn(RETIRED_VARIABLES, name)),
    CONFIG_VARIABLES,
  )
}

/** Variables that are set but no longer read, each with what its value is now (WEBHOOK_LEASE_MS → 60 s). */
export function findRetiredVariables(env: Record<string, string | undefined> = process.env): RetiredVariable[] {
  return Object.entries(RETIRED_VARIABLES)
    .filter(([name]) => env[name] !== undefined)
    .map(([name, { now }]) => ({ name, now }))
}

export interface RetiredVariable {
  name: string
  /** What the value is now, fixed in the code. */
  now: string
}
