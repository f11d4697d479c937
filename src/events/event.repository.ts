// The event log's rows. The one hard rule of the feed: a reader that follows `after` never skips an event, so an
// event gets its id only once every event with a smaller id is readable too, and ids are consecutive.
//
// SQLite has one writer at a time (per file, across processes), and ids are assigned at insert in that order
// (AUTOINCREMENT, taken back with a transaction that rolls back), so events commit in id order, without gaps.
//
// PostgreSQL commits concurrent transactions in any order, so ids taken at insert would commit out of order: id
// 9 may commit after a reader went past 10. So a writer inserts its event without an id (seq, from a sequence,
// keeps the insertion order; xact, the writing transaction), and numbering (numberCommittedEvents, run by
// event-numbering.ts) gives the committed events without an id the next ids, a transaction's events one after
// another in the order it wrote them, one numbering at a time per database
// (a transaction-scoped advisory lock), each starting after the largest id so far. Readers read numbered
// events only: a transaction elsewhere on the server (another database, another table, idle in psql) delays
// nothing, and an event waits only for its own transaction and the next numbering. Ids are data: a dump
// restored into another cluster keeps them, and new events continue after them.
import { CompiledQuery, PostgresAdapter, sql, type Selectable } from 'kysely'
import type { EventTable, EventType, Reader, Writer } from '../db/database.js'
import { deferUntilCommit } from '../db/postgres-transactions.js'

export type EventRow = Selectable<EventTable>

export interface NewEvent {
  type: EventType
  occurredAt: string
  /** JSON text of the event's data. */
  data: string
}

/** Appends an event to the transaction's changes (on PostgreSQL without its id: numbering gives it one). */
export async function appendEvent(trx: Writer, event: NewEvent): Promise<void> {
  // Compiled by hand, not built: this runs in every write transaction, where building and compiling the query
  // each time would cost more than the insert itself.
  // On PostgreSQL nothing reads the insert's answer: it is sent with the COMMIT (postgres-transactions.ts).
  const postgres = trx.getExecutor().adapter instanceof PostgresAdapter
  const query = CompiledQuery.raw(postgres ? POSTGRES_APPEND : SQLITE_APPEND, [
    event.type,
    event.occurredAt,
    event.data,
  ])
  if (postgres) await deferUntilCommit(trx, query)
  else await trx.executeQuery(query)
}

const SQLITE_APPEND = 'insert into events (type, occurred_at, data) values (?, ?, ?)'
const POSTGRES_APPEND = 'insert into events (type, occurred_at, data) values ($1, $2, $3)'

/**
 * An event recorded by the statement that inserts its resource, for a resource whose id the database assigns:
 * its data is `dataBeforeId`, the id's digits, `dataAfterId` (the resource's mapper cuts its JSON there).
 */
export interface EventOfInsertedRow {
  type: EventType
  occurredAt: string
  dataBeforeId: string
  dataAfterId: string
}

/**
 * PostgreSQL: the insert of an event for the row a data-modifying WITH query named `source` returned, for the
 * same statement: its parameters are `$first` to `$first + 3`, in the order of `eventOfInsertedRowParameters`.
 * One statement instead of two: the change and its event are then one round trip and one statement's work.
 */
export function postgresEventOfInsertedRow(source: string, first: number): string {
  const $ = (offset: number) => `$${first + offset}`
  return `insert into events (type, occurred_at, data)
    select ${$(0)}, ${$(1)}, ${$(2)}::text || ${source}.id::text || ${$(3)}::text
    from ${source}`
}

export function eventOfInsertedRowParameters(event: EventOfInsertedRow): unknown[] {
  return [event.type, event.occurredAt, event.dataBeforeId, event.dataAfterId]
}

/** The channel on which numbering tells every instance that events were numbered (the payload: the schema). */
export const EVENTS_NUMBERED_CHANNEL = 'petstore_events_numbered'

// The numberings of one schema wait for each other (the pair of keys: a constant, and the schema's name).
const NUMBERING_LOCK = sql`select pg_advisory_xact_lock(1163284052, hashtext(current_schema()))`

// A separate statement after the lock, so that its snapshot is taken once the lock is held: it sees the ids of
// the numbering before it. The retention purge may have deleted every event: its bound counts as taken.
const NUMBER_WAITING = `with head as (
    select greatest(
      (select coalesce(max(id), 0) from events), (select max(purged_through) from event_retention)
    ) as last
  ), waiting as (
    select seq, row_number() over (order by xact, seq) as position from events where id is null
      order by xact, seq limit $1
  ), numbered as (
    update events set id = head.last + waiting.position from head, waiting where events.seq = waiting.seq returning 1
  )
  select count(*)::integer as count from numbered`

/**
 * PostgreSQL: gives the committed events without an id (at most `limit`) the next ids, in insertion order, and
 * tells every instance at commit; returns how many. `trx` must be a durable transaction: a numbering is seen
 * only once it is durable, and one that is lost (a crash, a lost connection) is rolled back whole, leaving
 * neither a gap nor a duplicate.
 */
export async function numberCommittedEvents(trx: Writer, limit: number): Promise<number> {
  await NUMBERING_LOCK.execute(trx)
  const { rows } = await trx.executeQuery<{ count: number }>(CompiledQuery.raw(NUMBER_WAITING, [limit]))
  const count = rows[0]?.count ?? 0
  if (count > 0)
    await deferUntilCommit(trx, CompiledQuery.raw(`select pg_notify('${EVENTS_NUMBERED_CHANNEL}', current_schema())`))
  return count
}

/**
 * Gives every event committed so far its id, in `trx` (PostgreSQL; SQLite's have theirs): what `trx` reads next
 * then counts every change acknowledged before it, numbered or not, for decisions about "the events from now
 * on" (an endpoint registered or enabled receives those after the newest id).
 */
export async function numberEventsCommittedSoFar(trx: Writer): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return
  while ((await numberCommittedEvents(trx, NUMBERING_BATCH)) === NUMBERING_BATCH);
}

/** Events numbered per transaction at most; more are numbered by the next one. */
export const NUMBERING_BATCH = 10_000

export interface EventPageQuery {
  after: number
  /** Rows to return at most. */
  limit: number
  /** Only these types; undefined: all. */
  types: readonly EventType[] | undefined
  /** With a type filter: readable events looked at, at most, whatever their type (it bounds a request's work). */
  scanLimit: number
}

export interface EventPageRows {
  rows: EventRow[]
  /** With a type filter: how many readable events were looked at, and the last of them (undefined: none). */
  scanned: { count: number; last: number | undefined } | undefined
  /** Every event with an id up to this one has been purged. */
  purgedThrough: number
}

/**
 * Readable events after `after`, ascending, in ONE statement, so that the rows, how far they were looked for,
 * and how far the purge had gone are all seen as of the same moment. With a type filter, only the first
 * `scanLimit` readable events are looked at, so that a rare type costs a bounded read, not the whole table.
 */
export async function readEventPage(db: Reader, query: EventPageQuery): Promise<EventPageRows> {
  // Events without an id (not numbered yet) are left out by the comparison.
  const readable = () => db.selectFrom('events').where('id', '>', query.after)
  const scan = () => readable().select('id').orderBy('id').limit(query.scanLimit).as('scan')
  const lastScanned = () => db.selectFrom(scan()).select((eb) => eb.fn.max('scan.id').as('last'))
  const { types } = query
  const page =
    types === undefined
      ? readable().selectAll().orderBy('id').limit(query.limit)
      : readable()
          .selectAll()
          .where('type', 'in', types)
          .where((eb) => eb('id', '<=', lastScanned()))
          .orderBy('id')
          .limit(query.limit)
  const rows = await db
    .selectFrom('event_retention as retention')
    .leftJoin(page.as('page'), (join) => join.onTrue())
    .select(['retention.purged_through', 'page.id', 'page.type', 'page.occurred_at', 'page.data'])
    .select((eb) => [
      (types === undefined ? eb.lit(null) : lastScanned()).as('last_scanned'),
      (types === undefined ? eb.lit(0) : db.selectFrom(scan()).select((count) => count.fn.countAll().as('count'))).as(
        'scanned_count',
      ),
    ])
    .orderBy('page.id')
    .execute()
  const first = rows[0]
  if (!first) throw new Error('event_retention has no row')
  return {
    rows: rows.flatMap((row) =>
      row.id === null
        ? []
        : [
            {
              id: Number(row.id),
              type: row.type as EventType,
              occurred_at: row.occurred_at as string,
              data: row.data as string,
            },
          ],
    ),
    scanned:
      types === undefined
        ? undefined
        : {
            count: Number(first.scanned_count),
            last: first.last_scanned === null ? undefined : Number(first.last_scanned),
          },
    purgedThrough: Number(first.purged_through),
  }
}

/** The largest readable id (null when there is no event), as a query other queries may embed. */
export function newestReadableEventIdQuery(db: Reader) {
  return db.selectFrom('events').select((eb) => eb.fn.max('id').as('id'))
}

/** The largest readable id, or 0 when there is no event. */
export async function newestReadableEventId(db: Reader): Promise<number> {
  const row = await newestReadableEventIdQuery(db).executeTakeFirst()
  return Number(row?.id ?? 0)
}

/** The oldest readable events, ascending: candidates for the retention purge. */
export async function oldestEvents(trx: Writer, limit: number): Promise<Pick<EventRow, 'id' | 'occurred_at'>[]> {
  return trx
    .selectFrom('events')
    .select(['id', 'occurred_at'])
    .where('id', 'is not', null)
    .orderBy('id')
    .limit(limit)
    .execute()
}

/** Deletes every event up to `id` and records that they are gone; returns how many were deleted. */
export async function purgeEventsThrough(trx: Writer, id: number): Promise<number> {
  const deleted = await trx.deleteFrom('events').where('id', '<=', id).executeTakeFirst()
  await trx.updateTable('event_retention').set({ purged_through: id }).where('purged_through', '<', id).execute()
  return Number(deleted.numDeletedRows)
}

/**
 * The first `limit` readable events after `after`: how many there are, and the last of them (undefined: none).
 * Every event up to that last one is readable and can never change (the feed's rule), so a later statement may
 * read exactly these events again as "after `after`, up to `last`".
 */
export async function readableEventsAfter(
  db: Reader,
  after: number,
  limit: number,
): Promise<{ count: number; last: number | undefined }> {
  const batch = db.selectFrom('events').select('id').where('id', '>', after).orderBy('id').limit(limit).as('batch')
  const row = await db
    .selectFrom(batch)
    .select((eb) => [eb.fn.countAll().as('count'), eb.fn.max('batch.id').as('last')])
    .executeTakeFirst()
  return {
    count: Number(row?.count ?? 0),
    last: row?.last === null || row?.last === undefined ? undefined : Number(row.last),
  }
}
