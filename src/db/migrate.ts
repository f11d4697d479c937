import { Migrator, PostgresAdapter, sql, type Migration, type MigrationProvider } from 'kysely'
import type { Kysely } from 'kysely'
import type { Database } from './database.js'
import * as initial from './migrations/0001_initial.js'
import * as orders from './migrations/0002_orders.js'
import * as apiKeyScopes from './migrations/0003_api_key_scopes.js'
import * as idempotencyKeys from './migrations/0004_idempotency_keys.js'
import * as petVersions from './migrations/0005_pet_versions.js'
import * as dataVersion from './migrations/0006_data_version.js'
import * as events from './migrations/0007_events.js'
import * as webhooks from './migrations/0008_webhooks.js'
import * as webhookFanOut from './migrations/0009_webhook_fan_out.js'
import * as eventLog from './migrations/0010_event_log.js'
import * as categories from './migrations/0011_categories.js'
import * as eventInbox from './migrations/0012_event_inbox.js'
import * as dataVersionFreeShard from './migrations/0013_data_version_free_shard.js'
import * as categoryVersionFloor from './migrations/0014_category_version_floor.js'
import * as webhookPendingEvents from './migrations/0015_webhook_pending_events.js'
import * as categoryNameKeySharpS from './migrations/0016_category_name_key_sharp_s.js'
import * as categoryNameKeyComposed from './migrations/0017_category_name_key_composed.js'
import * as categoryNameKeyDecomposed from './migrations/0018_category_name_key_decomposed.js'
import { refuseSchemaWithoutCreate } from './schema-without-create.js'
import { isDatabaseUnavailable } from './unavailable.js'
import { isAnotherProgramsFile, TABLES_SQL } from './sqlite/foreign-file.js'

// Migrations are listed here rather than read from a folder at run time, so the compiled service carries
// exactly the migrations it was built with. Names sort in the order they run.
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_orders': orders,
  '0003_api_key_scopes': apiKeyScopes,
  '0004_idempotency_keys': idempotencyKeys,
  '0005_pet_versions': petVersions,
  '0006_data_version': dataVersion,
  '0007_events': events,
  '0008_webhooks': webhooks,
  '0009_webhook_fan_out': webhookFanOut,
  '0010_event_log': eventLog,
  '0011_categories': categories,
  '0012_event_inbox': eventInbox,
  '0013_data_version_free_shard': dataVersionFreeShard,
  '0014_category_version_floor': categoryVersionFloor,
  '0015_webhook_pending_events': webhookPendingEvents,
  '0016_category_name_key_sharp_s': categoryNameKeySharpS,
  '0017_category_name_key_composed': categoryNameKeyComposed,
  '0018_category_name_key_decomposed': categoryNameKeyDecomposed,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

export interface MigrationReport {
  applied: string[]
  /** Migrations the database holds that this petstore does not know: a newer petstore applied them. */
  newer: string[]
}

const ATTEMPTS = 10
const RETRY_DELAY_MS = 300

/**
 * Brings the schema up to date. Safe to run repeatedly and from several processes at once: on PostgreSQL
 * Kysely's migrator holds an advisory lock, and a server that cannot be reached yet is tried again; on SQLite a
 * process that loses the race for the write lock waits for it (the busy time-out) and then finds the migrations
 * applied.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationReport> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    // Not tried again: SQLITE_BUSY comes only after the busy time-out has been spent waiting for the lock, and
    // each further attempt would wait as long again, while the refusal tells the operator the lock was held for
    // one busy time-out.
    return migrateSqliteInOneTransaction(db)
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(db)
    } catch (error) {
      // A cancelled statement is not retried: the migrations run without a time-out, so someone cancelled it.
      const cancelled = (error as { cause?: { code?: unknown } }).cause?.code === '57014'
      if (attempt >= ATTEMPTS || !isDatabaseUnavailable(error) || cancelled) throw error
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS))
    }
  }
}

/**
 * SQLite's migrations in one transaction. Kysely's migrator takes SQLite for a database without transactional DDL
 * (it has it) and runs each statement on its own: a process killed half-way through a migration left its first
 * tables in place, unrecorded, and every later start failed on them ("table … already exists"). BEGIN IMMEDIATE
 * takes the write lock first, so a second process migrating beside this one waits for it and then finds the
 * migrations applied; one still held when the busy time-out is over ends in SQLITE_BUSY.
 */
async function migrateSqliteInOneTransaction(db: Kysely<Database>): Promise<MigrationReport> {
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection)
    try {
      const report = await migrateOnce(connection, { disableTransactions: true })
      await sql`commit`.execute(connection)
      return report
    } catch (error) {
      // SQLite may have rolled back by itself already (then there is nothing left to roll back).
      await sql`rollback`.execute(connection).catch(() => undefined)
      throw error
    }
  })
}

/**
 * On PostgreSQL, the schema the connection works in (its search_path). Kysely's migrator would otherwise
 * accept its bookkeeping tables found in any schema of the database, not necessarily the one it then uses.
 * A search_path naming no schema that exists leaves none: refused here, in the operator's terms, rather than by
 * the first migration's statement ("no schema has been selected to create in").
 */
async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined
  const { rows } = await sql<{
    schema: string | null
    path: string
  }>`select current_schema() as schema, current_setting('search_path') as path`.execute(db)
  const [row] = rows
  if (row && row.schema === null)
    throw new Error(
      `no schema to create tables in: the search_path of DATABASE_URL (${row.path}) names none that exists; ` +
        'create it (CREATE SCHEMA) or correct DATABASE_URL',
    )
  return row?.schema ?? undefined
}

/**
 * Brings the schema up to date inside a transaction the caller holds open on `db`'s one connection (an import's
 * load), so that the migrations roll back with it: a refused import leaves the database as it found it. On
 * PostgreSQL the caller's dialect makes Kysely's lock a transaction-level advisory lock, held until that transaction
 * ends (db/postgres/move-session.ts).
 */
export function migrateInsideTransaction(db: Kysely<Database>): Promise<MigrationReport> {
  return migrateOnce(db, { disableTransactions: true })
}

/** This petstore's migrations not yet applied to the database (all of them on an empty one); nothing is changed. */
async function pendingMigrations(db: Kysely<Database>, schema: string | undefined): Promise<string[]> {
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) })
  return (await migrator.getMigrations()).filter((migration) => !migration.executedAt).map(({ name }) => name)
}

/**
 * Refuses a database this petstore has migrations for that were not applied: what runs on it must find the schema
 * it was built for, and only `petstore migrate` (or serve with MIGRATE_ON_START) changes a schema. A database a
 * newer petstore migrated passes (its report names those migrations), as it does `migrateToLatest`.
 */
export async function refuseUnmigrated(db: Kysely<Database>, database: string): Promise<MigrationReport> {
  const schema = await currentSchema(db)
  const pending = await pendingMigrations(db, schema)
  if (pending.length > 0 && pending.length === Object.keys(migrations).length) {
    // Another program's file would be refused by petstore migrate as well: said now, not after running it.
    if (!schema) await refuseForeignSqliteFile(db)
    throw new Error(`the ${database} holds no petstore schema yet: run petstore migrate first`)
  }
  const newer = await unknownMigrations(db, schema)
  // petstore migrate would refuse it too: it is named as migrate names it.
  if (pending.length > 0 && newer.length > 0) throw migratedByAnotherBuild(newer, pending)
  if (pending.length > 0)
    throw new Error(
      `the ${database} lacks ${pending.length} migration(s) of this petstore (${pending.join(', ')}): ` +
        'run petstore migrate first',
    )
  return { applied: [], newer }
}

/** A database that holds migrations this petstore does not know and lacks some of its own. */
function migratedByAnotherBuild(newer: readonly string[], missing: readonly string[]): Error {
  return new Error(
    `the database holds migrations this petstore does not know (${newer.join(', ')}) and lacks some of its ` +
      `own (${missing.join(', ')}): it was migrated by another build; migrate it with the newest petstore`,
  )
}

/** The migrations recorded in the database's bookkeeping that this petstore does not carry, in order. */
async function unknownMigrations(db: Kysely<Database>, schema: string | undefined): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true })
  if (!tables.some((table) => table.name === 'kysely_migration' && (!schema || table.schema === schema))) return []
  const table = sql.table(schema ? `${schema}.kysely_migration` : 'kysely_migration')
  const { rows } = await sql<{ name: string }>`select name from ${table} order by name`.execute(db)
  return rows.map(({ name }) => name).filter((name) => !Object.hasOwn(migrations, name))
}

/**
 * A SQLite file of another program, named by a mistaken DATABASE_URL: tables, and no petstore bookkeeping among
 * them. Migrating it would write petstore's tables into that program's file.
 */
async function refuseForeignSqliteFile(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ name: string }>`${sql.raw(TABLES_SQL)}`.execute(db)
  const names = rows.map(({ name }) => name)
  if (!isAnotherProgramsFile(names)) return
  throw new Error(
    `the database holds tables of another program (${names.slice(0, 5).join(', ')}) and none of petstore's: ` +
      "set DATABASE_URL to the service's database file, or to a new one",
  )
}

async function migrateOnce(db: Kysely<Database>, { disableTransactions = false } = {}): Promise<MigrationReport> {
  const schema = await currentSchema(db)
  const migrator = new Migrator({
    db,
    provider,
    disableTransactions,
    ...(schema ? { migrationTableSchema: schema } : {}),
  })
  // A database a newer petstore migrated: this one runs on it as every earlier version does during an upgrade (the
  // migrations are written for that), so an instance rolled back, or restarted before its replacement, starts.
  // Kysely's migrator would refuse it as "corrupted".
  const newer = await unknownMigrations(db, schema)
  if (newer.length > 0) return runningOnNewer(migrator, newer)
  if (!schema) await refuseForeignSqliteFile(db)
  else await refuseSchemaWithoutCreate(db, migrator, schema)
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error) {
    const failed = results.find((result) => result.status === 'Error')
    // A newer petstore migrated the database while this one waited for the migrations' lock, after the look above:
    // Kysely, looking again under the lock, refuses it as "corrupted" before running anything. Not inside a
    // caller's transaction (an import): no one migrates beside it there, and on PostgreSQL the failed statement
    // has aborted the transaction, so another look would only replace the real error with "transaction aborted".
    if (!failed && !disableTransactions) {
      const late = await unknownMigrations(db, schema)
      if (late.length > 0) return runningOnNewer(migrator, late)
    }
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(error)}`, { cause: error })
  }
  return {
    applied: results.filter((result) => result.status === 'Success').map((result) => result.migrationName),
    newer: [],
  }
}

/** A database that holds `newer` migrations: run on as it is if it holds every one of this petstore's. */
async function runningOnNewer(migrator: Migrator, newer: string[]): Promise<MigrationReport> {
  const missing = (await migrator.getMigrations()).filter((migration) => !migration.executedAt)
  if (missing.length === 0) return { applied: [], newer }
  throw migratedByAnotherBuild(
    newer,
    missing.map(({ name }) => name),
  )
}
