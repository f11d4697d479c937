#!/usr/bin/env node
// The petstore command: serve, migrate, manage API keys and look at webhooks. One line of output per action on stdout, so that
// it can be read by a script; the database used, warnings and errors go to stderr. Exit codes: 0 success,
// 1 failure, 2 usage error (with the usage on stderr).
import { parseArgs } from 'node:util'
import { COMMANDS, SYNOPSIS, commandHelp, commandUsage, globalHelp, version, type Command } from './cli-usage.js'
import { ConfigError, findMisspeltVariables, findRetiredVariables, loadConfig, type Config } from './config.js'
import { openStore, type Store } from './db/store.js'
import { migrateToLatest } from './db/migrate.js'
import { SqliteDatabaseMissingError } from './db/sqlite.js'
import { issueApiKey, revokeKey } from './keys/issue-key.js'
import { KeyOptionError, parseExpiry, parseScopeList } from './keys/key-options.js'
import { listApiKeys, type ApiKeyRow } from './keys/key.repository.js'
import { parseStoredScopes } from './keys/scopes.js'
import { describeDatabase, explainingDatabaseErrors } from './db/database-errors.js'
import { webhookDeliveryLines, webhookListLines } from './webhooks/webhook-report.js'

/** A mistake in the command line: exit 2, with the usage of `command` (or the list of commands) on stderr. */
class UsageError extends Error {
  readonly command: Command | undefined

  constructor(message: string, command?: Command) {
    super(message)
    this.command = command
  }
}

/** What the command line asks for, before any configuration is read (help works with a broken environment). */
type Invocation =
  | { kind: 'help'; command: Command | undefined }
  | { kind: 'version' }
  | { kind: 'run'; command: Command; values: Record<string, string | boolean | undefined>; positionals: string[] }

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const
const KEYS_CREATE_OPTIONS = {
  ...HELP_OPTION,
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in': { type: 'string' },
  'expires-at': { type: 'string' },
  quiet: { type: 'boolean' },
} as const
const DELIVERIES_OPTIONS = { ...HELP_OPTION, limit: { type: 'string' } } as const
const OPTIONS: Partial<Record<Command, typeof HELP_OPTION>> = {
  'keys create': KEYS_CREATE_OPTIONS,
  'webhooks deliveries': DELIVERIES_OPTIONS,
}
const POSITIONALS: Record<Command, number> = {
  serve: 0,
  migrate: 0,
  'keys create': 0,
  'keys list': 0,
  'keys revoke': 1,
  'webhooks list': 0,
  'webhooks deliveries': 1,
  export: 1,
  import: 1,
}
/** Commands with subcommands, and how their subcommands are listed in messages. */
const GROUPS: Record<string, string> = { keys: 'create, list or revoke', webhooks: 'list or deliveries' }
const EXACTLY_ONE_ID: Partial<Record<Command, string>> = {
  'keys revoke': 'keys revoke needs exactly one key id (see keys list)',
  'webhooks deliveries': 'webhooks deliveries needs exactly one endpoint id (see webhooks list)',
  export: 'export needs exactly one FILE (or - for stdout)',
  import: 'import needs exactly one FILE (or - for stdin)',
}
const isOption = (argument: string | undefined) => argument?.startsWith('-') === true

function parseInvocation(args: string[]): Invocation {
  const [first, second] = args
  if (first === undefined) throw new UsageError('a command is required')
  if (first === '--help' || first === '-h' || first === 'help') {
    if (args.length > 1)
      throw new UsageError(`${first} takes no arguments; for a command's help: petstore COMMAND --help`)
    return { kind: 'help', command: undefined }
  }
  if (first === '--version' || first === '-v') {
    if (args.length > 1) throw new UsageError(`${first} takes no arguments`)
    return { kind: 'version' }
  }
  if (isOption(first)) throw new UsageError(`unknown option ${JSON.stringify(first)}`)
  let command: Command
  let rest: string[]
  const subcommands = Object.hasOwn(GROUPS, first) ? GROUPS[first] : undefined
  if (subcommands !== undefined) {
    if (second === undefined || second === '--help' || second === '-h') {
      if (second === undefined) throw new UsageError(`${first} needs a subcommand: ${subcommands}`)
      return { kind: 'help', command: undefined }
    }
    if (isOption(second))
      throw new UsageError(
        `${first}: unknown option ${JSON.stringify(second)}; ${first} needs a subcommand: ${subcommands}`,
      )
    command = `${first} ${second}` as Command
    rest = args.slice(2)
  } else {
    command = first as Command
    rest = args.slice(1)
  }
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new UsageError(`unknown command ${JSON.stringify(command)}`)

  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] }
  try {
    parsed = parseArgs({ args: rest, options: OPTIONS[command] ?? HELP_OPTION, strict: true, allowPositionals: true })
  } catch (error) {
    // Node's advice about '--' after the first sentence does not apply to any of these commands.
    const message = error instanceof Error ? error.message.split('. To specify a positional')[0] : String(error)
    throw new UsageError(`${command}: ${message}`, command)
  }
  if (parsed.values.help) return { kind: 'help', command }
  const expected = POSITIONALS[command]
  if (parsed.positionals.length !== expected) {
    const needsOneId = EXACTLY_ONE_ID[command]
    if (needsOneId !== undefined) throw new UsageError(needsOneId, command)
    throw new UsageError(`${command}: unexpected argument ${JSON.stringify(parsed.positionals[0])}`, command)
  }
  return { kind: 'run', command, ...parsed }
}

/** Runs a parser of a `keys create` option, its refusal becoming a usage error. */
function keyOption<T>(parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof KeyOptionError) throw new UsageError(`keys create: ${error.message}`, 'keys create')
    throw error
  }
}

function keyState(row: ApiKeyRow, now: number): string {
  if (row.revoked_at) return `revoked ${row.revoked_at}`
  if (row.expires_at !== null && !(Date.parse(row.expires_at) > now)) return `expired ${row.expires_at}`
  return 'active'
}

/**
 * Opens the existing database of a keys command. Creating one here would be wrong every time: run from another
 * directory, the default relative path names a new, empty database, and a key created there is refused by the
 * service.
 */
async function withDatabase<T>(command: Command, config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  let store: Store
  try {
    store = await explainingDatabaseErrors(config.database, () => openStore(config, undefined, { mustExist: true }))
  } catch (error) {
    if (!(error instanceof SqliteDatabaseMissingError)) throw error
    throw new Error(
      `${error.message}, and ${command} does not create one. Run it in the directory the service runs in ` +
        '(the default database is data/petstore.db under the current directory), set DATABASE_URL=file:/path/to/petstore.db, ' +
        'or create the database first with "petstore migrate" or "npm start".',
      { cause: error },
    )
  }
  try {
    await explainingDatabaseErrors(config.database, () => migrateToLatest(store.admin))
    return await work(store)
  } finally {
    await store.close()
  }
}

async function migrate(config: Config): Promise<void> {
  const store = await explainingDatabaseErrors(config.database, () => openStore(config))
  try {
    const { applied } = await explainingDatabaseErrors(config.database, () => migrateToLatest(store.admin))
    console.log(
      applied.length > 0
        ? `Applied ${applied.length} migration(s) (${applied.join(', ')}) to ${describeDatabase(config.database)}.`
        : `The ${describeDatabase(config.database)} is up to date.`,
    )
  } finally {
    await store.close()
  }
}

interface NewKey {
  name: string
  /** Only the key on stdout. */
  quiet: boolean
  scopes: ReturnType<typeof parseScopeList>
  expiresAt: string | undefined
}

function newKeyOptions(values: Record<string, string | boolean | undefined>): NewKey {
  const text = (option: string) => (typeof values[option] === 'string' ? values[option] : undefined)
  const name = text('name')?.trim()
  // Control characters would break the tab-separated `keys list` and could drive the operator's terminal.
  // eslint-disable-next-line no-control-regex
  if (!name || name.length > 100 || /[\x00-\x1F\x7F]/.test(name)) {
    throw new UsageError('keys create needs --name NAME (1 to 100 characters, no control characters)', 'keys create')
  }
  const scopes = keyOption(() => parseScopeList(text('scopes')))
  const expiresAt = keyOption(() =>
    parseExpiry({ expiresIn: text('expires-in'), expiresAt: text('expires-at') }, Date.now()),
  )
  return { name, scopes, expiresAt, quiet: values.quiet === true }
}

async function keysCreate(config: Config, { name, scopes, expiresAt, quiet }: NewKey): Promise<void> {
  const { key, row } = await withDatabase('keys create', config, (store) =>
    issueApiKey(store, name, { scopes, expiresAt }),
  )
  if (quiet) {
    console.log(key)
    return
  }
  const expiry = row.expires_at === null ? 'never expiring' : `expiring ${row.expires_at}`
  console.log(
    `Created key ${row.id} (${row.name}) with scopes ${parseStoredScopes(row.scopes).join(',')}, ${expiry}: ${key}  (shown only now; store it safely)`,
  )
}

async function keysList(config: Config): Promise<void> {
  const rows = await withDatabase('keys list', config, (store) => listApiKeys(store.read))
  if (rows.length === 0) {
    console.log('No stored keys.')
    return
  }
  const now = Date.now()
  console.log(['id', 'name', 'prefix', 'scopes', 'created', 'expires', 'last used', 'state'].join('\t'))
  for (const row of rows) {
    console.log(
      [
        row.id,
        row.name,
        `${row.key_prefix}…`,
        parseStoredScopes(row.scopes).join(',') || 'none',
        row.created_at,
        row.expires_at ?? 'never',
        row.last_used_at ?? 'never',
        keyState(row, now),
      ].join('\t'),
    )
  }
}

/** The id argument of `command` (a key's, an endpoint's): a positive integer, or a usage error. */
function positiveId(command: Command, what: string, argument: string | undefined): number {
  const id = /^[1-9][0-9]{0,15}$/.test(argument ?? '') ? Number(argument) : NaN
  if (!Number.isSafeInteger(id))
    throw new UsageError(`${command} needs ${what} (a positive integer), not ${JSON.stringify(argument)}`, command)
  return id
}

const DEFAULT_DELIVERIES = 20
const MAX_DELIVERIES = 1000

function deliveriesLimit(text: string | boolean | undefined): number {
  if (text === undefined) return DEFAULT_DELIVERIES
  const limit = typeof text === 'string' && /^[1-9][0-9]{0,3}$/.test(text) ? Number(text) : NaN
  if (!(limit <= MAX_DELIVERIES))
    throw new UsageError(
      `webhooks deliveries: --limit takes a number from 1 to ${MAX_DELIVERIES}, not ${JSON.stringify(text)}`,
      'webhooks deliveries',
    )
  return limit
}

async function webhooksList(config: Config): Promise<void> {
  for (const line of await withDatabase('webhooks list', config, (store) => webhookListLines(store.read)))
    console.log(line)
}

async function webhooksDeliveries(config: Config, id: number, limit: number): Promise<void> {
  const lines = await withDatabase('webhooks deliveries', config, (store) =>
    webhookDeliveryLines(store.read, id, limit),
  )
  if (!lines) throw new Error(`No webhook endpoint has id ${id}.`)
  for (const line of lines) console.log(line)
}

async function keysRevoke(config: Config, id: number): Promise<void> {
  const revokedAt = new Date().toISOString()
  const row = await withDatabase('keys revoke', config, (store) => revokeKey(store, id, revokedAt))
  if (!row) throw new Error(`No key has id ${id}.`)
  console.log(
    row.revoked_at === revokedAt
      ? `Revoked key ${row.id} (${row.name}); it is refused from now on.`
      : `Key ${row.id} (${row.name}) was already revoked at ${row.revoked_at}; nothing changed.`,
  )
}

/**
 * A variable that is set but not read, and close to one that is: most likely a typo the operator would miss. Or
 * one that earlier versions read: its value is now ignored.
 */
function warnAboutMisspeltVariables(): void {
  for (const { name, meant } of findMisspeltVariables()) {
    console.error(`petstore: warning: ${name} is set but petstore does not read it; did you mean ${meant}?`)
  }
  for (const { name, now } of findRetiredVariables()) {
    console.error(`petstore: warning: ${name} is set but petstore no longer reads it; it is fixed at ${now}`)
  }
}

async function execute(invocation: Extract<Invocation, { kind: 'run' }>): Promise<void> {
  const { command, values, positionals } = invocation
  // Arguments are checked before the configuration: a usage error is reported as such whatever the environment.
  const newKey = command === 'keys create' ? newKeyOptions(values) : undefined
  const revokedId = command === 'keys revoke' ? positiveId(command, 'a key id', positionals[0]) : undefined
  const endpointId =
    command === 'webhooks deliveries' ? positiveId(command, 'an endpoint id', positionals[0]) : undefined
  const limit = command === 'webhooks deliveries' ? deliveriesLimit(values.limit) : undefined
  const config = loadConfig()
  if (command === 'serve') {
    warnAboutMisspeltVariables()
    // Loaded only to serve: without the HTTP stack, the key and migration commands start much faster.
    const { serve } = await import('./server.js')
    return serve(config)
  }
  // On stderr, so that stdout keeps only the command's own output (a new key, the list) for scripts.
  console.error(`petstore: using ${describeDatabase(config.database)}`)
  warnAboutMisspeltVariables()
  if (command === 'migrate') return migrate(config)
  if (command === 'export' || command === 'import') {
    const { moveShop } = await import('./move/move-command.js')
    return moveShop(command, config, positionals[0] ?? '-')
  }
  if (newKey) return keysCreate(config, newKey)
  if (revokedId !== undefined) return keysRevoke(config, revokedId)
  if (endpointId !== undefined && limit !== undefined) return webhooksDeliveries(config, endpointId, limit)
  if (command === 'webhooks list') return webhooksList(config)
  return keysList(config)
}

async function main(): Promise<void> {
  try {
    const invocation = parseInvocation(process.argv.slice(2))
    if (invocation.kind === 'help') {
      console.log(invocation.command ? commandHelp(invocation.command) : globalHelp())
    } else if (invocation.kind === 'version') {
      console.log(`petstore ${version()}`)
    } else {
      await execute(invocation)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(
        `petstore: ${error.message}\n${error.command ? commandUsage(error.command) : `${SYNOPSIS}\nRun "petstore --help" for the environment variables.`}`,
      )
      process.exitCode = 2
    } else if (error instanceof ConfigError) {
      console.error(`petstore: ${error.message}`)
      warnAboutMisspeltVariables()
      process.exitCode = 1
    } else {
      console.error(`petstore: ${error instanceof Error ? error.message : String(error)}`)
      process.exitCode = 1
    }
  }
}

await main()
