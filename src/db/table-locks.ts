import { PostgresAdapter, sql } from 'kysely'
import type { Writer } from './database.js'

/**
 * Waits, inside `trx`, until every transaction that has written to `table` has ended, and keeps new writes to
 * it waiting until `trx` ends: what `trx` reads of the table afterwards cannot be changed under it. PostgreSQL:
 * SHARE mode, which conflicts with the lock every INSERT, UPDATE and DELETE takes and with nothing that reads.
 * SQLite runs one write transaction at a time, so there it is so already. For rare writes (a category's
 * create or delete) whose rule depends on the absence of rows that frequent writes (pet creates) might add: the cost
 * falls on the rare write, and the frequent ones take no extra lock.
 */
export async function holdWritesTo(trx: Writer, table: 'pets'): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`lock table ${sql.table(table)} in share mode`.execute(trx)
}

/**
 * The same, and one such transaction at a time: the lock (SHARE ROW EXCLUSIVE) also conflicts with itself, so two
 * transactions that both count a table's rows before adding one cannot both see room for the last one. For
 * rare writes (registering a webhook endpoint) that must keep a table under a size.
 */
export async function oneWriterAtATime(trx: Writer, table: 'webhook_endpoints'): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`lock table ${sql.table(table)} in share row exclusive mode`.execute(trx)
}
