// Events written straight into a store, without a running service to number them on PostgreSQL.
import { PostgresAdapter, sql } from 'kysely'
import type { Writer } from '../../src/db/database.js'
import type { Store } from '../../src/db/store.js'
import { type NewEvent } from '../../src/events/event.repository.js'
import { numberCommittedEvents } from '../../src/db/postgres/number-events.js'

/** Numbers the committed events as a service does after each commit (PostgreSQL); SQLite numbered them at insert. */
export async function numberEvents(store: Store): Promise<void> {
  await store.sequencing?.transaction((trx) => numberCommittedEvents(trx, 10_000))
}

/**
 * Inserts an event as the service did before migration 0010: on PostgreSQL with the id made from the writing
 * transaction's id, × 65536, plus `ordinal` (the transaction's events before it); on SQLite as it still does.
 */
export async function appendEventBefore0010(trx: Writer, event: NewEvent, ordinal = 0): Promise<void> {
  const { type, occurredAt, data } = event
  if (trx.getExecutor().adapter instanceof PostgresAdapter)
    await sql`insert into events (id, type, occurred_at, data)
      values (pg_current_xact_id()::text::bigint * 65536 + ${ordinal}, ${type}, ${occurredAt}, ${data})`.execute(trx)
  else await sql`insert into events (type, occurred_at, data) values (${type}, ${occurredAt}, ${data})`.execute(trx)
}
