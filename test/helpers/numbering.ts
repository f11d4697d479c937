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
  else await appendEventAs0010(trx, event)
}

/**
 * Inserts an event as the service did under migrations 0010 and 0011: into `events`, without an id on
 * PostgreSQL (numbered by numberEventsAs0010), with its id on SQLite as it still does.
 */
export async function appendEventAs0010(trx: Writer, event: NewEvent): Promise<void> {
  const { type, occurredAt, data } = event
  await sql`insert into events (type, occurred_at, data) values (${type}, ${occurredAt}, ${data})`.execute(trx)
}

// 0010's numbering, written out: it updated the waiting rows of `events` in place.
const NUMBER_AS_0010 = sql<{ count: number }>`with head as (
    select greatest(
      (select coalesce(max(id), 0) from events), (select max(purged_through) from event_retention)
    ) as last
  ), waiting as (
    select seq, row_number() over (order by xact, seq) as position from events where id is null
      order by xact, seq limit 10000
  ), numbered as (
    update events set id = head.last + waiting.position from head, waiting where events.seq = waiting.seq returning 1
  )
  select count(*)::integer as count from numbered`

/** Numbers the waiting events as the service did under 0010 and 0011 (PostgreSQL); returns how many. */
export async function numberEventsAs0010(store: Store): Promise<number> {
  const result = await store.sequencing?.transaction((trx) => NUMBER_AS_0010.execute(trx))
  return result?.rows[0]?.count ?? 0
}

/** The events waiting for their ids on PostgreSQL (event_inbox), by the name in their data, in numbering order. */
export async function waitingEventNames(store: Store): Promise<string[]> {
  const { rows } = await sql<{ data: string }>`select data from event_inbox order by xact, seq`.execute(store.admin)
  return rows.map((row) => JSON.parse(row.data).name)
}
