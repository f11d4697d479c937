// A transaction of Store.bookkeeping that must be durable once it resolves, like the writers' transactions. On
// PostgreSQL the bookkeeping connections commit without waiting for the disk (synchronous_commit off), so a crash
// of the database server may lose their last transactions; one that asks for this waits for the disk at its
// commit, and with it for everything committed before it (the WAL is one sequence). On SQLite every commit is
// durable already.
import { sql } from 'kysely'
import type { Writer } from './database.js'
import { onPostgres } from './dialect.js'

/** Makes the commit of `trx` wait for the disk. */
export async function commitDurably(trx: Writer): Promise<void> {
  if (onPostgres(trx)) await sql`set local synchronous_commit = on`.execute(trx)
}
