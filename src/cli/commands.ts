// What each petstore command other than serve, export and import does: one line of output per action on stdout.
import type { Command } from './usage.js'
import type { NewKey } from './arguments.js'
import type { Config } from '../config.js'
import { openStore, type Store } from '../db/store.js'
import { migrateToLatest, refuseUnmigrated } from '../db/migrate.js'
import { SqliteDatabaseMissingError } from '../db/sqlite.js'
import { issueApiKey, revokeKey } from '../keys/issue-key.js'
import { deleteUnusedApiKey, listApiKeys, type ApiKeyRow } from '../keys/key.repository.js'
import { parseStoredScopes } from '../keys/scopes.js'
import { failureName, stoppedBy, writeToStandardOutputUnlessStopped } from '../keys/standard-output.js'
import { endBySignal } from '../end-by-signal.js'
import { describeDatabase, explainingDatabaseErrors } from '../db/database-errors.js'
import { webhookDeliveryLines, webhookListLines } from '../webhooks/endpoints/webhook-report.js'

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
        '(the default database is data/petstore.db under the current directory), set ' +
        'DATABASE_URL=file:/path/to/petstore.db, ' +
        'or create the database first with "petstore migrate" or "npm start".',
      { cause: error },
    )
  }
  try {
    await explainingDatabaseErrors(config.database, () =>
      refuseUnmigrated(store.migrations, describeDatabase(config.database)),
    )
    // A file this user may read but not write fails only at the first write (keys create, keys revoke).
    return await explainingDatabaseErrors(config.database, () => work(store))
  } finally {
    await store.close()
  }
}

export async function migrate(config: Config): Promise<void> {
  const store = await explainingDatabaseErrors(config.database, () => openStore(config))
  try {
    const { applied, newer } = await explainingDatabaseErrors(config.database, () => migrateToLatest(store.migrations))
    const database = describeDatabase(config.database)
    if (newer.length > 0)
      console.log(
        `The ${database} holds every migration of this petstore and ${newer.length} of a newer one ` +
          `(${newer.join(', ')}): nothing to apply.`,
      )
    else
      console.log(
        applied.length > 0
          ? `Applied ${applied.length} migration(s) (${applied.join(', ')}) to ${database}.`
          : `The ${database} is up to date.`,
      )
  } finally {
    await store.close()
  }
}

export async function keysCreate(config: Config, { name, scopes, expiresAt, quiet }: NewKey): Promise<void> {
  await withDatabase('keys create', config, async (store) => {
    const { key, row } = await issueApiKey(store, name, { scopes, expiresAt })
    const expiry = row.expires_at === null ? 'never expiring' : `expiring ${row.expires_at}`
    const failure = await writeToStandardOutputUnlessStopped(
      quiet
        ? `${key}\n`
        : `Created key ${row.id} (${row.name}) with scopes ${parseStoredScopes(row.scopes).join(',')}, ${expiry}: ` +
            `${key}  (shown only now; store it safely)\n`,
    )
    if (!failure) return
    // Nobody has the key: kept, it would be a working key that only a leak of the output could ever reveal.
    await store.transaction((trx) => deleteUnusedApiKey(trx, row.id))
    const withdrawn =
      `the new key could not be written to standard output (${failureName(failure)}); it was withdrawn, so no ` +
      'key was created'
    const signal = stoppedBy(failure)
    if (signal === undefined) throw new Error(withdrawn)
    // Its write still waits for the reader, and would keep the process from ending.
    console.error(`petstore: ${withdrawn}`)
    endBySignal(signal)
  })
}

export async function keysList(config: Config): Promise<void> {
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

export async function webhooksList(config: Config): Promise<void> {
  for (const line of await withDatabase('webhooks list', config, (store) => webhookListLines(store.read)))
    console.log(line)
}

export async function webhooksDeliveries(config: Config, id: number, limit: number): Promise<void> {
  const lines = await withDatabase('webhooks deliveries', config, (store) =>
    webhookDeliveryLines(store.read, id, limit),
  )
  if (!lines) throw new Error(`No webhook endpoint has id ${id}.`)
  for (const line of lines) console.log(line)
}

export async function keysRevoke(config: Config, id: number): Promise<void> {
  const revokedAt = new Date().toISOString()
  const row = await withDatabase('keys revoke', config, (store) => revokeKey(store, id, revokedAt))
  if (!row) throw new Error(`No key has id ${id}.`)
  console.log(
    row.revoked_at === revokedAt
      ? `Revoked key ${row.id} (${row.name}); it is refused from now on.`
      : `Key ${row.id} (${row.name}) was already revoked at ${row.revoked_at}; nothing changed.`,
  )
}
