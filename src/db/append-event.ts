// Appending an event to the log, in the transaction of its change (events/event-log.ts records through this).
// SQLite gives the event its id at insert; PostgreSQL inserts it into event_inbox, without one, for the
// numbering to give it once it has committed (events/event.repository.ts says why).
import { CompiledQuery } from 'kysely'
import type { EventType, Writer } from './database.js'
import { onPostgres } from './dialect.js'
import { deferUntilCommit } from './postgres-transactions.js'

export interface NewEvent {
  type: EventType
  occurredAt: string
  /** JSON text of the event's data. */
  data: string
}

/**
 * Appends an event to the transaction's changes (on PostgreSQL to the waiting ones: numbering gives its id). Call it
 * once the change is made, after every wait for another transaction: PostgreSQL numbers transactions in the order
 * of their last event's insertion (NUMBERING_ORDER in postgres/number-events.ts), which stands for their commit only
 * while nothing the transaction does after it waits for another.
 */
export async function appendEvent(trx: Writer, event: NewEvent): Promise<void> {
  // Compiled by hand, not built: this runs in every write transaction, where building and compiling the query
  // each time would cost more than the insert itself.
  // On PostgreSQL nothing reads the insert's answer: it is sent with the COMMIT (postgres-transactions.ts).
  const postgres = onPostgres(trx)
  const query = CompiledQuery.raw(postgres ? POSTGRES_APPEND : SQLITE_APPEND, [
    event.type,
    event.occurredAt,
    event.data,
  ])
  if (postgres) await deferUntilCommit(trx, query)
  else await trx.executeQuery(query)
}

const SQLITE_APPEND = 'insert into events (type, occurred_at, data) values (?, ?, ?)'
const POSTGRES_APPEND = 'insert into event_inbox (type, occurred_at, data) values ($1, $2, $3)'
