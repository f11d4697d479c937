// Which SQL dialect a transaction speaks. Only db/ asks (test/floors.once.test.ts holds every other folder to
// that): a feature calls a store-neutral function of db/, and the choice of statement is made there.
import { PostgresAdapter } from 'kysely'
import type { Writer } from './database.js'

/** True when `trx` runs on PostgreSQL; false on SQLite. */
export function onPostgres(trx: Writer): boolean {
  return trx.getExecutor().adapter instanceof PostgresAdapter
}
