// The petstore command's help: what each command does, its options, and the environment variables it reads.
import { readFileSync } from 'node:fs'
import { CONFIG_VARIABLES, type ConfigVariable } from './config.js'
import { SCOPES } from './keys/scopes.js'

export const COMMANDS = [
  'serve',
  'migrate',
  'keys create',
  'keys list',
  'keys revoke',
  'webhooks list',
  'webhooks deliveries',
  'export',
  'import',
] as const
export type Command = (typeof COMMANDS)[number]

interface CommandHelp {
  usage: string
  summary: string
  /** Flag → description, in the order shown. --help is added to every command. */
  options: [string, string][]
  /** null: every variable. */
  variables: readonly string[] | null
}

const DATABASE_VARIABLES = ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'DATABASE_STATEMENT_TIMEOUT_MS']
const DATABASE_LINE = 'The first line on stderr names the database used.'
const NO_NEW_DATABASE = 'It never creates a SQLite database: create one with petstore migrate (or npm start) first.'

const HELP: Record<Command, CommandHelp> = {
  serve: {
    usage: 'petstore serve',
    summary:
      'Run the API server: apply pending migrations (unless MIGRATE_ON_START=false), listen, and on the first start ' +
      'without any key print one key, once. Stops gracefully on SIGTERM or SIGINT. Logs are JSON lines on stdout; the ' +
      'start-up line names the address and the database.',
    options: [],
    variables: null,
  },
  migrate: {
    usage: 'petstore migrate',
    summary: `Bring the database schema up to date, creating the SQLite database if there is none. ${DATABASE_LINE}`,
    options: [],
    variables: DATABASE_VARIABLES,
  },
  'keys create': {
    usage:
      'petstore keys create --name NAME [--scopes LIST] [--expires-in DURATION | --expires-at DATE-TIME] [--quiet]',
    summary:
      'Create an API key and print it, once, on stdout; only its SHA-256 is stored. Every scope and no expiry ' +
      `unless the options say otherwise. ${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [
      ['--name NAME', 'a name for the key: 1 to 100 characters, no control characters (required)'],
      ['--scopes LIST', `comma-separated, from ${SCOPES.join(', ')}`],
      ['--expires-in DURATION', 'whole minutes, hours or days from now: 90m, 12h, 30d'],
      ['--expires-at DATE-TIME', 'an RFC 3339 date-time in the future: 2027-01-01T00:00:00Z'],
      ['--quiet', 'print the key alone, for a script to capture: KEY=$(petstore keys create --name ci --quiet)'],
    ],
    variables: DATABASE_VARIABLES,
  },
  'keys list': {
    usage: 'petstore keys list',
    summary:
      'List the stored keys, tab-separated on stdout: id, name, prefix, scopes, created, expires, last used, state; ' +
      `never the keys themselves. ${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [],
    variables: DATABASE_VARIABLES,
  },
  'keys revoke': {
    usage: 'petstore keys revoke ID',
    summary: `Revoke the key with this id (see keys list); it is refused from then on. ${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [],
    variables: DATABASE_VARIABLES,
  },
  'webhooks list': {
    usage: 'petstore webhooks list',
    summary:
      'List the webhook endpoints, tab-separated on stdout: id, url, types, status, description, created, pending and failed ' +
      `deliveries; never their secrets. ${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [],
    variables: DATABASE_VARIABLES,
  },
  'webhooks deliveries': {
    usage: 'petstore webhooks deliveries ID [--limit N]',
    summary:
      'List the newest deliveries of the webhook endpoint with this id (see webhooks list), tab-separated on stdout: id, event, ' +
      `status, attempts, last outcome, last response status, next attempt, last error. ${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [['--limit N', `how many deliveries, newest first: 1 to 1000 (default 20)`]],
    variables: DATABASE_VARIABLES,
  },
  export: {
    usage: 'petstore export FILE|-',
    summary:
      'Write the whole shop (pets, orders, keys, events, webhooks and their secrets as stored, idempotency records, the ' +
      'cursor key) as one consistent snapshot to FILE, created with mode 0600, or to stdout with -; the service may keep ' +
      `serving meanwhile. Progress goes to stderr when it is a terminal. ${DATABASE_LINE} ${NO_NEW_DATABASE}`,
    options: [],
    variables: DATABASE_VARIABLES,
  },
  import: {
    usage: 'petstore import FILE|-',
    summary:
      'Load a file written by petstore export (or stdin with -) into an empty database of either store, migrating it first, ' +
      'in one transaction: ids, ETags, cursors, keys, events and webhook secrets continue as they were. Refused, with ' +
      'nothing changed, when the database already holds a shop, the file is damaged or newer, or its webhook secrets ' +
      `need another WEBHOOK_SECRET_KEY. ${DATABASE_LINE}`,
    options: [],
    variables: [...DATABASE_VARIABLES, 'WEBHOOK_SECRET_KEY'],
  },
}

// Every variable must be described: a new one without a line here does not compile.
const VARIABLE_HELP: Record<ConfigVariable, string> = {
  PORT: 'port to listen on (default 8080)',
  HOST: 'address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)',
  DATABASE_URL:
    'file:PATH or sqlite:PATH (SQLite), postgres://… (PostgreSQL); default: SQLite in data/petstore.db under the current directory',
  PETSTORE_API_KEYS: 'comma-separated static API keys, each at least 16 characters',
  PUBLIC_BASE_URL: 'the public origin for absolute links, e.g. https://petstore.example.com',
  PRODUCTION_BASE_URL: 'the production base address the OpenAPI document names, e.g. https://petstore.example.com/v1',
  STAGING_BASE_URL: 'the staging base address the OpenAPI document names, e.g. https://staging.petstore.example.com/v1',
  LOG_LEVEL: 'fatal, error, warn, info (default), debug, trace or silent',
  REDIS_URL: 'redis:// or rediss:// URL: rate-limit counters shared by every instance',
  DATABASE_POOL_SIZE: 'PostgreSQL connections per instance (default 10)',
  DATABASE_STATEMENT_TIMEOUT_MS: 'PostgreSQL statement time-out in milliseconds (default 1500)',
  MIGRATE_ON_START: 'apply migrations when serve starts (default true)',
  IDEMPOTENCY_KEY_TTL_HOURS: 'how long Idempotency-Key records are kept (default 24)',
  IDEMPOTENCY_LEASE_SECONDS: 'how long a request holds its Idempotency-Key (default 10)',
  RATE_LIMIT_PER_KEY: 'requests per window per API key (default 600)',
  RATE_LIMIT_ANONYMOUS: 'requests per window per client address without a valid key (default 60)',
  RATE_LIMIT_WINDOW_SECONDS: 'length of the rate-limit window (default 60)',
  RATE_LIMIT_NAMESPACE: 'prefix of the rate-limit counters in Redis (default petstore:rate-limit)',
  TRUST_PROXY: 'proxies that may set X-Forwarded-For: false (default), a hop count, or addresses and CIDR ranges',
  METRICS_TOKEN: 'when set, GET /metrics requires Authorization: Bearer <token> (set it in production)',
  EVENT_RETENTION_DAYS: 'days events are kept before they are purged (default 30)',
  EVENT_WAIT_MAX_SECONDS: 'the longest a long poll waits, whatever its wait asks (default 30; 0: answer at once)',
  EVENT_STREAMS_PER_KEY: 'event streams and waiting long polls one API key may hold open per instance (default 10)',
  EVENT_HEARTBEAT_SECONDS: 'seconds between heartbeat comments on an idle event stream (default 15)',
  EVENT_POLL_INTERVAL_MS:
    'how often waiting event readers look for events committed by other instances, in ms (default 25)',
  WEBHOOK_SECRET_KEY:
    'key encrypting webhook secrets at rest: 32 bytes as 64 hex characters or base64 (default: one kept in the database, with a warning)',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS:
    'deliver webhooks to loopback and private addresses too: development and tests only (default false)',
  WEBHOOK_RETRY_SCHEDULE:
    'delays before each webhook retry, e.g. 1s,2s,5s, or none (default 5s,5m,30m,2h,5h,10h,10h, ±20 %)',
  WEBHOOK_ATTEMPT_TIMEOUT_MS: 'time a webhook receiver has to answer 2xx (default 10000)',
  WEBHOOK_LEASE_MS: 'how long an instance holds a delivery it attempts before another may retry it (default 60000)',
  WEBHOOK_POLL_INTERVAL_MS:
    'how often an instance looks for events and due webhook deliveries made elsewhere (default 500)',
  WEBHOOK_BUSY_REQUESTS:
    'requests in progress from which an instance makes one webhook attempt at a time per endpoint, and starts them one per busy interval (default 16; 0: never)',
  WEBHOOK_BUSY_INTERVAL_MS:
    'while requests are in progress from WEBHOOK_BUSY_REQUESTS on, the least time between two webhook attempts an instance starts, all endpoints together (default 50)',
  WEBHOOK_BATCH_INTERVAL_MS: 'while commits keep coming, the least time between two looks for new events (default 20)',
  WEBHOOK_SECRET_OVERLAP_SECONDS: 'how long a rotated webhook secret keeps signing beside the new one (default 86400)',
  WEBHOOK_CONCURRENCY: 'webhook attempts in progress at once per instance (default 64)',
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: 'webhook attempts in progress at once per endpoint and instance (default 8)',
  WEBHOOK_SHUTDOWN_WAIT_MS:
    'on shutdown, how long attempts in progress may finish before they are left to a retry (default 5000)',
  WEBHOOK_DELIVERY_RETENTION_DAYS: 'days finished webhook deliveries are kept in the delivery log (default 30)',
}

function columns(rows: [string, string][], indent = '  '): string {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}${right}`).join('\n')
}

function variableRows(names: readonly string[]): string {
  return columns(names.map((name) => [name, VARIABLE_HELP[name as ConfigVariable] ?? 'see the README']))
}

/** The list of commands: shown by --help, and after a usage error that names no known command. */
export const SYNOPSIS = `Usage:
${columns([
  ['petstore serve', 'run the API server'],
  ['petstore migrate', 'bring the database schema up to date'],
  ['petstore keys create --name NAME', 'create an API key (printed once); options: petstore keys create --help'],
  ['petstore keys list', 'list keys (never the keys themselves)'],
  ['petstore keys revoke ID', 'revoke a key'],
  ['petstore webhooks list', 'list webhook endpoints, with pending and failed deliveries (never secrets)'],
  ['petstore webhooks deliveries ID', "an endpoint's newest deliveries and their last attempts"],
  ['petstore export FILE|-', 'write the whole shop to a file (mode 0600) or stdout'],
  ['petstore import FILE|-', 'load an exported shop into an empty database'],
  ['petstore COMMAND --help', "a command's options and the environment variables it reads"],
  ['petstore --version', 'the version'],
])}`

export function globalHelp(): string {
  return `${SYNOPSIS}

Environment variables (each command checks all of them; an invalid value stops it with exit code 1):
${variableRows(CONFIG_VARIABLES)}

Exit codes: 0 success, 1 failure, 2 usage error.`
}

/** Shown after a usage error of a known command. */
export function commandUsage(command: Command): string {
  return `Usage: ${HELP[command].usage}\nRun "petstore ${command} --help" for its options and environment variables.`
}

export function commandHelp(command: Command): string {
  const help = HELP[command]
  const options = columns([...help.options, ['-h, --help', 'show this help']])
  const variables = help.variables ?? CONFIG_VARIABLES
  return `Usage: ${help.usage}

${help.summary}

Options:
${options}

Environment variables${help.variables ? ' (the others are checked too)' : ''}:
${variableRows(variables)}`
}

/** The version in package.json: beside src/ and dist/, two levels above the bundle. */
export function version(): string {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: unknown
        version?: unknown
      }
      if (manifest.name === 'petstore-service' && typeof manifest.version === 'string') return manifest.version
    } catch {
      // not this one
    }
  }
  return 'unknown'
}
