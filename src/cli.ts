#!/usr/bin/env node
// The petstore command: serve, migrate and manage API keys. One line of output per action; errors go to
// stderr with a non-zero exit code.
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig, type Config, type DatabaseConfig } from './config.js'
import { openStore, type Store } from './db/store.js'
import { migrateToLatest } from './db/migrate.js'
import { issueApiKey, revokeKey } from './keys/issue-key.js'
import { KeyOptionError, parseExpiry, parseScopeList } from './keys/key-options.js'
import { listApiKeys, type ApiKeyRow } from './keys/key.repository.js'
import { parseStoredScopes, SCOPES } from './keys/scopes.js'

const USAGE = `Usage:
  petstore serve                     run the API server
  petstore migrate                   bring the database schema up to date
  petstore keys create --name NAME   create an API key (printed once), with every scope and no expiry unless:
    [--scopes LIST]                  comma-separated, from ${SCOPES.join(', ')}
    [--expires-in DURATION]          whole minutes, hours or days from now: 90m, 12h, 30d
    [--expires-at DATE-TIME]         an RFC 3339 date-time in the future: 2027-01-01T00:00:00Z
  petstore keys list                 list keys (never the keys themselves)
  petstore keys revoke ID            revoke a key`

class UsageError extends Error {}

/** Runs a parser of a `keys create` option, its refusal becoming a usage error. */
function keyOption<T>(parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof KeyOptionError) throw new UsageError(`keys create: ${error.message}`)
    throw error
  }
}

function keyState(row: ApiKeyRow, now: number): string {
  if (row.revoked_at) return `revoked ${row.revoked_at}`
  if (row.expires_at !== null && !(Date.parse(row.expires_at) > now)) return `expired ${row.expires_at}`
  return 'active'
}

function describe(database: DatabaseConfig): string {
  if (database.kind === 'sqlite') return `sqlite:${database.path}`
  const url = new URL(database.url)
  if (url.password) url.password = '***'
  return url.toString()
}

async function withDatabase<T>(config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(config)
  try {
    await migrateToLatest(store.admin)
    return await work(store)
  } finally {
    await store.close()
  }
}

async function run(args: string[], config: Config): Promise<void> {
  const [command, subcommand, ...rest] = args
  if (command === 'serve' && subcommand === undefined) {
    // Loaded only to serve: without the HTTP stack, the key and migration commands start much faster.
    const { serve } = await import('./server.js')
    return serve(config)
  }
  if (command === 'migrate' && subcommand === undefined) {
    const store = openStore(config)
    try {
      const { applied } = await migrateToLatest(store.admin)
      console.log(applied.length > 0
        ? `Applied ${applied.length} migration(s) (${applied.join(', ')}) to ${describe(config.database)}.`
        : `The database at ${describe(config.database)} is up to date.`)
    } finally {
      await store.close()
    }
    return
  }
  if (command === 'keys' && subcommand === 'create') {
    let values: Partial<Record<'name' | 'scopes' | 'expires-in' | 'expires-at', string>>
    try {
      values = parseArgs({
        args: rest,
        options: { name: { type: 'string' }, scopes: { type: 'string' }, 'expires-in': { type: 'string' }, 'expires-at': { type: 'string' } },
        strict: true,
        allowPositionals: false,
      }).values
    } catch (error) {
      throw new UsageError(`keys create: ${error instanceof Error ? error.message : String(error)}`)
    }
    const name = values.name?.trim()
    // Control characters would break the tab-separated `keys list` and could drive the operator's terminal.
    // eslint-disable-next-line no-control-regex
    if (!name || name.length > 100 || /[\x00-\x1F\x7F]/.test(name)) {
      throw new UsageError('keys create needs --name NAME (1 to 100 characters, no control characters)')
    }
    const scopes = keyOption(() => parseScopeList(values.scopes))
    const expiresAt = keyOption(() => parseExpiry({ expiresIn: values['expires-in'], expiresAt: values['expires-at'] }, Date.now()))
    const { key, row } = await withDatabase(config, (store) => issueApiKey(store, name, { scopes, expiresAt }))
    const expiry = row.expires_at === null ? 'never expiring' : `expiring ${row.expires_at}`
    console.log(`Created key ${row.id} (${row.name}) with scopes ${parseStoredScopes(row.scopes).join(',')}, ${expiry}: ${key}  (shown only now; store it safely)`)
    return
  }
  if (command === 'keys' && subcommand === 'list' && rest.length === 0) {
    const rows = await withDatabase(config, (store) => listApiKeys(store.read))
    if (rows.length === 0) {
      console.log('No stored keys.')
      return
    }
    const now = Date.now()
    console.log(['id', 'name', 'prefix', 'scopes', 'created', 'expires', 'last used', 'state'].join('\t'))
    for (const row of rows) {
      console.log([
        row.id, row.name, `${row.key_prefix}…`, parseStoredScopes(row.scopes).join(',') || 'none', row.created_at,
        row.expires_at ?? 'never', row.last_used_at ?? 'never', keyState(row, now),
      ].join('\t'))
    }
    return
  }
  if (command === 'keys' && subcommand === 'revoke') {
    if (rest.length !== 1) throw new UsageError('keys revoke needs exactly one key id (see keys list)')
    const id = /^[1-9][0-9]{0,15}$/.test(rest[0] ?? '') ? Number(rest[0]) : NaN
    if (!Number.isSafeInteger(id)) throw new UsageError(`keys revoke needs a key id (a positive integer), not ${JSON.stringify(rest[0])}`)
    const revokedAt = new Date().toISOString()
    const row = await withDatabase(config, (store) => revokeKey(store, id, revokedAt))
    if (!row) throw new Error(`No key has id ${id}.`)
    console.log(row.revoked_at === revokedAt
      ? `Revoked key ${row.id} (${row.name}); it is refused from now on.`
      : `Key ${row.id} (${row.name}) was already revoked at ${row.revoked_at}; nothing changed.`)
    return
  }
  throw new UsageError(command === undefined ? 'a command is required' : `unknown command: ${args.join(' ')}`)
}

async function main(): Promise<void> {
  try {
    await run(process.argv.slice(2), loadConfig())
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`petstore: ${error.message}\n${USAGE}`)
      process.exitCode = 2
    } else if (error instanceof ConfigError) {
      console.error(`petstore: ${error.message}`)
      process.exitCode = 1
    } else {
      console.error(`petstore: ${error instanceof Error ? error.message : String(error)}`)
      process.exitCode = 1
    }
  }
}

await main()
