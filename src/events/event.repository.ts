// The event log's rows. The one hard rule of the feed: a reader that follows `after` never skips an event, so an
// event may be read only once every event with a smaller id is readable too, or will never exist.
//
// SQLite has one writer at a time (per file, across processes), and ids are assigned in that order
// (AUTOINCREMENT), so events commit in id order and every committed event may be read.
//
// PostgreSQL commits concurrent transactions in any order, so ids from a sequence would commit out of order: id
// 9 may commit after id 10 was read, and a reader past 10 would never see 9. Filtering on the snapshot's xmin
// (the oldest transaction still running) is not enough on its own, because a sequence hands out ids in another
// order than transaction ids: a transaction with an older xid can take a larger id. So the id is made FROM the
// transaction id: id = xid × 65536 + n, n counting the transaction's own events. Ids then ascend in transaction
// id order, and every transaction with an xid below the reader's snapshot xmin has ended: the events with ids
// below xmin × 65536 can never change, and no event can appear among them later. Readers see only those. No
// lock, no extra statement: writers never wait for each other; a reader waits, at most, for the transactions
// that were running when it looked (all of them: a long transaction anywhere on the server holds back the feed).
import { CompiledQuery, PostgresAdapter, sql, type RawBuilder, type Selectable, type SqlBool } from 'kysely'
import type { EventTable, EventType, Reader, Writer } from '../db/database.js'
import { deferUntilCommit } from '../db/postgres-transactions.js'

export type EventRow = Selectable<EventTable>

/** Which rule makes an event readable: the store's dialect. */
export type EventVisibility = 'sqlite' | 'postgres'

/** Events one transaction may write on PostgreSQL: the factor between a transaction id and its events' ids. */
export const EVENTS_PER_TRANSACTION = 65536

// Ids below this were written by transactions that have all ended (pg_current_snapshot() is the statement's own
// snapshot, so the bound and the rows read agree). xid8 is read as text: pg has no direct cast to bigint.
const POSTGRES_SETTLED = sql<SqlBool>`id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint * ${sql.lit(EVENTS_PER_TRANSACTION)}`

/** The statement's condition for readable events: none on SQLite. */
function settled(visibility: EventVisibility): RawBuilder<SqlBool> {
  return visibility === 'postgres' ? POSTGRES_SETTLED : sql<SqlBool>`1 = 1`
}

export interface NewEvent {
  type: EventType
  occurredAt: string
  /** JSON text of the event's data. */
  data: string
}

/**
 * Appends an event to the transaction's changes; `ordinal` counts the events the transaction wrote before it
 * (0 for its first), which makes its id on PostgreSQL.
 */
export async function appendEvent(trx: Writer, event: NewEvent, ordinal: number): Promise<void> {
  // Compiled by hand, not built: this runs in every write transaction, where building and compiling the query
  // each time would cost more than the insert itself.
  // On PostgreSQL nothing reads the insert's answer: it is sent with the COMMIT (postgres-transactions.ts).
  if (trx.getExecutor().adapter instanceof PostgresAdapter)
    await deferUntilCommit(
      trx,
      CompiledQuery.raw(POSTGRES_APPEND, [checkedOrdinal(ordinal), event.type, event.occurredAt, event.data]),
    )
  else await trx.executeQuery(CompiledQuery.raw(SQLITE_APPEND, [event.type, event.occurredAt, event.data]))
}

const SQLITE_APPEND = 'insert into events (type, occurred_at, data) values (?, ?, ?)'

// The transaction's id × 65536, plus the events it wrote before this one.
const POSTGRES_EVENT_ID = (ordinal: string) =>
  `pg_current_xact_id()::text::bigint * ${EVENTS_PER_TRANSACTION} + ${ordinal}::bigint`

const POSTGRES_APPEND = `insert into events (id, type, occurred_at, data) values (${POSTGRES_EVENT_ID('$1')}, $2, $3, $4)`

/** An ordinal that keeps the id among the transaction's own: a 65537th event would take the next transaction's. */
function checkedOrdinal(ordinal: number): number {
  if (!Number.isSafeInteger(ordinal) || ordinal < 0 || ordinal >= EVENTS_PER_TRANSACTION)
    throw new RangeError(
      `a transaction writes at most ${EVENTS_PER_TRANSACTION} events; this would be event ${ordinal + 1}`,
    )
  return ordinal
}

/**
 * An event recorded by the statement that inserts its resource, for a resource whose id the database assigns:
 * its data is `dataBeforeId`, the id's digits, `dataAfterId` (event-log.ts cuts the resource's JSON there).
 */
export interface EventOfInsertedRow {
  type: EventType
  occurredAt: string
  ordinal: number
  dataBeforeId: string
  dataAfterId: string
}

/**
 * PostgreSQL: the insert of `event` for the row a data-modifying WITH query named `source` returned, for the same
 * statement: its parameters are `$first` to `$first + 4`, in the order of `eventOfInsertedRowParameters`. One
 * statement instead of two: the change and its event are then one round trip and one statement's work.
 */
export function postgresEventOfInsertedRow(source: string, first: number): string {
  const $ = (offset: number) => `$${first + offset}`
  return `insert into events (id, type, occurred_at, data)
    select ${POSTGRES_EVENT_ID($(0))}, ${$(1)}, ${$(2)}, ${$(3)}::text || ${source}.id::text || ${$(4)}::text
    from ${source}`
}

export function eventOfInsertedRowParameters(event: EventOfInsertedRow): unknown[] {
  return [checkedOrdinal(event.ordinal), event.type, event.occurredAt, event.dataBeforeId, event.dataAfterId]
}

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
export async function readEventPage(
  db: Reader,
  visibility: EventVisibility,
  query: EventPageQuery,
): Promise<EventPageRows> {
  const readable = () => db.selectFrom('events').where('id', '>', query.after).where(settled(visibility))
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
export function newestReadableEventIdQuery(db: Reader, visibility: EventVisibility) {
  return db
    .selectFrom('events')
    .where(settled(visibility))
    .select((eb) => eb.fn.max('id').as('id'))
}

/** The largest readable id, or 0 when there is no event. */
export async function newestReadableEventId(db: Reader, visibility: EventVisibility): Promise<number> {
  const row = await newestReadableEventIdQuery(db, visibility).executeTakeFirst()
  return Number(row?.id ?? 0)
}

/** The oldest readable events, ascending: candidates for the retention purge. */
export async function oldestEvents(
  trx: Writer,
  visibility: EventVisibility,
  limit: number,
): Promise<Pick<EventRow, 'id' | 'occurred_at'>[]> {
  return trx
    .selectFrom('events')
    .select(['id', 'occurred_at'])
    .where(settled(visibility))
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
  visibility: EventVisibility,
  after: number,
  limit: number,
): Promise<{ count: number; last: number | undefined }> {
  const batch = db
    .selectFrom('events')
    .select('id')
    .where('id', '>', after)
    .where(settled(visibility))
    .orderBy('id')
    .limit(limit)
    .as('batch')
  const row = await db
    .selectFrom(batch)
    .select((eb) => [eb.fn.countAll().as('count'), eb.fn.max('batch.id').as('last')])
    .executeTakeFirst()
  return {
    count: Number(row?.count ?? 0),
    last: row?.last === null || row?.last === undefined ? undefined : Number(row.last),
  }
}
