// A stored time (RFC 3339 text) as epoch milliseconds, computed by the database in a statement: each store
// has its own date arithmetic.
import { sql, type RawBuilder } from 'kysely'
import type { Writer } from './database.js'
import { onPostgres } from './dialect.js'

/** The time in column `reference` (`table.column`) as integer epoch milliseconds, for statements of `trx`. */
export function epochMilliseconds(trx: Writer, reference: string): RawBuilder<number> {
  return onPostgres(trx)
    ? sql<number>`(extract(epoch from ${sql.ref(reference)}::timestamptz) * 1000)::bigint`
    : sql<number>`cast(round((julianday(${sql.ref(reference)}) - 2440587.5) * 86400000) as integer)`
}
