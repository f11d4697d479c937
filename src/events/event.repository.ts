// The event log's rows. The one hard rule of the feed: a reader that follows `after` never skips an event, so an
// event gets its id only once every event with a smaller id is readable too, and ids are consecutive.
//
// SQLite has one writer at a time (per file, across processes), and ids are assigned at insert in that order
// (AUTOINCREMENT, taken back with a transaction that rolls back), so events commit in id order, without gaps.
//
// PostgreSQL commits concurrent transactions in any order, so ids taken at insert would commit out of order: id
// 9 may commit after a reader went past 10. So a writer inserts its event into a table of waiting events,
// event_inbox, without an id (seq, from a sequence, keeps the insertion order; xact, the writing transaction),
// and numbering (numberCommittedEvents in db/postgres/number-events.ts, run by event-numbering.ts) moves the
// committed ones into `events` with the next ids, transactions in the order they committed (as near as their last
// event's insertion tells), a transaction's events one after another in the order it wrote them, one numbering
// at a time per database (a transaction-scoped advisory lock), each starting after the largest id so far.
// `events` holds numbered events only, each written once, in id order, and readers read
// it alone: a transaction elsewhere on the server (another database, another table, idle in psql) delays
// nothing, and an event waits only for its own transaction and the next numbering. Ids are data: a dump
// restored into another cluster keeps them, and new events continue after them.
import type { Selectable } from 'kysely'
import type { EventTable, EventType, Reader, Writer } from '../db/database.js'

// Where the two stores differ, the statements are db/'s: appending an event (db/append-event.ts), numbering on
// PostgreSQL (db/postgres/number-events.ts), a resource's insert with its event (db/insert-with-event.ts).
export { appendEvent, type NewEvent } from '../db/append-event.js'
export { numberEventsCommittedSoFar } from '../db/number-events-so-far.js'

export type EventRow = Selectable<EventTable>

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
  /** The largest id the feed has given out (an event's, or the purge's mark once every event is purged). */
  newest: number
}

/**
 * Readable events after `after`, ascending, in ONE statement, so that the rows, how far they were looked for,
 * how far the purge had gone and the newest id are all seen as of the same moment. With a type filter, only the first
 * `scanLimit` readable events are looked at, so that a rare type costs a bounded read, not the whole table.
 */
export async function readEventPage(db: Reader, query: EventPageQuery): Promise<EventPageRows> {
  // Only numbered events are in the table (PostgreSQL's waiting ones are in event_inbox).
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
  // The one row of event_retention, read through an aggregate that the planner knows yields one row: the table
  // itself is rarely analyzed (one row, seldom changed), and unanalyzed the planner takes it for thousands of
  // rows, each joined to the page, which priced a page of 1000 above jit_above_cost: with JIT on, every such
  // read compiled itself first, tens of milliseconds each.
  const retention = db
    .selectFrom('event_retention')
    .select((eb) => eb.fn.max('purged_through').as('purged_through'))
    .as('retention')
  const rows = await db
    .selectFrom(retention)
    .leftJoin(page.as('page'), (join) => join.onTrue())
    .select(['retention.purged_through', 'page.id', 'page.type', 'page.occurred_at', 'page.data'])
    .select((eb) => [
      newestReadableEventIdQuery(db).as('newest'),
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
    newest: Math.max(Number(first.newest ?? 0), Number(first.purged_through)),
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

/** Whether the event with this id is still kept (not purged by the retention). */
export async function eventKept(db: Reader, id: number): Promise<boolean> {
  return (await db.selectFrom('events').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
}

/** The oldest readable events, ascending: candidates for the retention purge. */
export async function oldestEvents(trx: Writer, limit: number): Promise<Pick<EventRow, 'id' | 'occurred_at'>[]> {
  return trx.selectFrom('events').select(['id', 'occurred_at']).orderBy('id').limit(limit).execute()
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
