// Bringing a test database to an earlier schema, to test a migration on data written before it.
import { Migrator, PostgresAdapter, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely'
import type { Database } from '../../src/db/database.js'
import { migrations } from '../../src/db/migrate.js'

/** A migrator of `provided` in the schema the store works in (its bookkeeping there too, as the service's). */
async function migratorOf(db: Kysely<Database>, provided: Record<string, Migration>): Promise<Migrator> {
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined
  return new Migrator({
    db,
    provider: { getMigrations: async () => provided },
    ...(schema ? { migrationTableSchema: schema } : {}),
  })
}

/** Runs the service's migrations up to and including `last` (by name). */
export async function migrateUntil(db: Kysely<Database>, last: string): Promise<MigrationResultSet> {
  const until = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= last))
  return (await migratorOf(db, until)).migrateToLatest()
}

/** Runs the service's migrations down (or up) to `name`, the last one left applied. */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<MigrationResultSet> {
  return (await migratorOf(db, migrations)).migrateTo(name)
}
