import { Migrator, type Migration, type MigrationProvider } from 'kysely'
import type { Db } from './database.js'
import * as initial from './migrations/0001_initial.js'

// Migrations are listed here rather than read from a folder at run time, so the compiled service carries
// exactly the migrations it was built with. Names sort in the order they run.
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

export interface MigrationReport {
  applied: string[]
}

/** Brings the schema up to date. Safe to run repeatedly; Kysely's migrator takes a lock while it works. */
export async function migrateToLatest(db: Db): Promise<MigrationReport> {
  const migrator = new Migrator({ db, provider })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error) {
    const failed = results.find((result) => result.status === 'Error')
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(error)}`, { cause: error })
  }
  return { applied: results.filter((result) => result.status === 'Success').map((result) => result.migrationName) }
}
