// PostgreSQL: numbering the committed events waiting in event_inbox (events/event.repository.ts says why they
// wait for their ids; events/event-numbering.ts runs it on every instance).
import { CompiledQuery, sql, type Kysely } from 'kysely'
import type { Database, Writer } from '../database.js'
import { deferUntilCommit } from '../postgres-transactions.js'

/** The channel on which numbering tells every instance that events were numbered (the payload: the schema). */
export const EVENTS_NUMBERED_CHANNEL = 'petstore_events_numbered'

// The numberings of one schema wait for each other (the pair of keys: a constant, and the schema's name).
const NUMBERING_LOCK = sql`select pg_advisory_xact_lock(1163284052, hashtext(current_schema()))`

/**
 * The order committed events are numbered in: transactions by their last event's insertion, each transaction's
 * events together, in the order they were inserted. Events are inserted at the end of their transaction's work,
 * most with its COMMIT (db/append-event.ts), so a transaction's last `seq` is close to its commit, and a
 * transaction that saw another's writes inserted its last event after that one committed. `xact` (the transaction
 * id, given at its first write) would put first a transaction that began writing early and committed late: a
 * category created after waiting for pet writes in progress would be listed before the pets it had waited for.
 */
export const NUMBERING_ORDER = 'max(seq) over (partition by xact), seq'

// A separate statement after the lock, so that its snapshot is taken once the lock is held: it sees the ids of
// the numbering before it. The retention purge may have deleted every event: its bound counts as taken. The
// waiting rows leave event_inbox and enter `events` with their ids in one statement, so every snapshot sees
// each event once, in one table or the other; `events` receives them in id order, each row written once.
// `chosen` is the earliest transactions whose events together stay within the limit, or the first alone. The order
// is worked out on the transactions' ids and counts alone, and the events' texts are read only for those chosen:
// after the numbering was held up, a million waiting events are numbered ten thousand at a time in about a second
// each, where sorting all of them with their texts took three.
const NUMBER_WAITING = `with head as (
    select greatest(
      (select coalesce(max(id), 0) from events),
      (select max(purged_through) from event_retention)
    ) as last
  ), transactions as (
    select xact, max(seq) as last_seq, count(*) as events from event_inbox group by xact
  ), earliest as (
    select xact, last_seq, sum(events) over (order by last_seq) as through
      from (select xact, last_seq, events from transactions order by last_seq limit $1) as first_ones
  ), chosen as (
    select xact from earliest where through <= $1 or last_seq = (select min(last_seq) from earliest)
  ), waiting as (
    select seq, type, occurred_at, data, row_number() over (order by last_seq, seq) as position from (
      select seq, type, occurred_at, data, max(seq) over (partition by xact) as last_seq
        from event_inbox where xact in (select xact from chosen)
    ) as chosen_events
  ), taken as (
    delete from event_inbox where seq in (select seq from waiting)
  ), numbered as (
    insert into events (id, type, occurred_at, data)
      select head.last + waiting.position, type, occurred_at, data from head, waiting order by waiting.position
      returning 1
  )
  select (select count(*)::integer from numbered) as count,
    (select coalesce(sum(events), 0) from transactions) > (select count(*) from waiting) as more`

/**
 * PostgreSQL: moves the committed waiting events into the log with the next ids, in NUMBERING_ORDER, and tells
 * every instance at commit; returns how many, and whether more wait. At most `limit`, but never part of a
 * transaction's events: the rest would wait for the next numbering, and a transaction that committed in between,
 * its events inserted earlier, would be numbered among them, parting events the feed promises consecutive ids (an
 * order's event and its pet's). One transaction with more than `limit` events is numbered whole. `trx` must be a
 * durable transaction: a numbering is seen only once it is durable, and one that is lost (a crash, a lost
 * connection) is rolled back whole, leaving neither a gap nor a duplicate.
 */
export async function numberCommittedEvents(trx: Writer, limit: number): Promise<{ count: number; more: boolean }> {
  await NUMBERING_LOCK.execute(trx)
  const { rows } = await trx.executeQuery<{ count: number; more: boolean }>(CompiledQuery.raw(NUMBER_WAITING, [limit]))
  const count = rows[0]?.count ?? 0
  if (count > 0)
    await deferUntilCommit(trx, CompiledQuery.raw(`select pg_notify('${EVENTS_NUMBERED_CHANNEL}', current_schema())`))
  return { count, more: rows[0]?.more ?? false }
}

/** Events numbered per transaction at most (unless one transaction holds more); more are numbered by the next one. */
export const NUMBERING_BATCH = 10_000

/**
 * Reclaims the rows the numberings have moved out of event_inbox. A numbering reads the whole inbox, the rows
 * it moved before included, until a vacuum has been through it, and autovacuum looks at a database once a
 * minute at best: 120,000 moved rows (a minute of 2,000 creates a second) made the inbox 19 MB and each
 * numbering 8.5 ms instead of a fraction of one. SKIP_LOCKED: another instance's vacuum at the same time does it.
 * Outside any transaction, as VACUUM must be. Returns whether the inbox still has pages: rows that a transaction
 * open somewhere in the database may still see are not reclaimed by this vacuum, nor events waiting for their
 * numbers, and later sweeps vacuum again (event-numbering.ts).
 */
export async function vacuumEventInbox(db: Kysely<Database>): Promise<boolean> {
  await sql`vacuum (skip_locked) event_inbox`.execute(db)
  const { rows } = await sql<{ left: boolean }>`select pg_relation_size('event_inbox') > 0 as left`.execute(db)
  return rows[0]?.left ?? false
}
