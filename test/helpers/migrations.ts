// Bringing a test database to an earlier schema, to test a migration on data written before it.
import { Migrator, PostgresAdapter, sql, type Kysely, type MigrationResultSet } from 'kysely'
import type { Database } from '../../src/db/database.js'
import { migrations } from '../../src/db/migrate.js'

/** Runs the service's migrations up to and including `last` (by name), in the schema the store works in. */
export async function migrateUntil(db: Kysely<Database>, last: string): Promise<MigrationResultSet> {
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined
  const until = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= last))
  return new Migrator({
    db,
    provider: { getMigrations: async () => until },
    ...(schema ? { migrationTableSchema: schema } : {}),
  }).migrateToLatest()
}

/** Runs the service's migrations down (or up) to `name`, the last one left applied, in the store's schema. */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<MigrationResultSet> {
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  }).migrateTo(name)
}
