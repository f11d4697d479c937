// Locking the rows a select reads until the transaction ends, on the store that needs it. PostgreSQL runs
// writers side by side, so a read that decides a write locks what it read (FOR UPDATE), or passes over rows
// another transaction holds (SKIP LOCKED). SQLite runs one write transaction at a time: what it reads in one
// can change under no one's hands, and it has no row locks, so the select is left as it is.
import type { SelectQueryBuilder } from 'kysely'
import type { Writer } from './database.js'
import { onPostgres } from './dialect.js'

export interface RowLock {
  /** Pass over rows another transaction holds instead of waiting for them (SKIP LOCKED). */
  skipLocked: boolean
}

/** `query`, locking the rows it reads in `trx` where the store runs writers side by side. */
export function lockingRows<DB, TB extends keyof DB, O>(
  trx: Writer,
  query: SelectQueryBuilder<DB, TB, O>,
  { skipLocked }: RowLock,
): SelectQueryBuilder<DB, TB, O> {
  if (!onPostgres(trx)) return query
  return skipLocked ? query.forUpdate().skipLocked() : query.forUpdate()
}
