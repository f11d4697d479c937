import type { Kysely } from 'kysely'
import type { Database } from './database.js'
import { rootCause } from './database-errors.js'
import { migrateToLatest, type MigrationReport } from './migrate.js'

/**
 * The migrations of a service that starts, waiting as long as another process holds a SQLite file for writing: a
 * second instance started beside one that migrates a large shop (or beside an import) waits for it, as it does
 * on PostgreSQL, where the migrator's advisory lock is waited for without limit, instead of ending after one busy
 * time-out. `waited` is told each time a busy time-out has passed in vain, with the milliseconds waited so far.
 * A stop signal ends the wait: the process holds no lock while it waits.
 */
export async function migrateWhenUnlocked(
  db: Kysely<Database>,
  waited: (milliseconds: number) => void,
): Promise<MigrationReport> {
  const started = performance.now()
  for (;;) {
    try {
      return await migrateToLatest(db)
    } catch (error) {
      if (rootCause(error).code !== 'SQLITE_BUSY') throw error
      waited(performance.now() - started)
      // SQLite's wait blocks the thread and the migrations' steps are all microtasks: without a turn of the event
      // loop between attempts, nothing scheduled (the log line just made) would happen until the lock is free.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
}
