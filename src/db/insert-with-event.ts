// A row whose id the database assigns, inserted with the event whose data holds that id, in the unit of work of
// the change. On PostgreSQL one statement does both (db/postgres/insert-with-event.ts): half the statements,
// nothing waits between them, and a change that is only this is sent without BEGIN and COMMIT. On SQLite the
// insert, then the event.
import { CompiledQuery } from 'kysely'
import { appendEvent } from './append-event.js'
import type { EventType, Writer } from './database.js'
import { onPostgres } from './dialect.js'
import { insertWithEventOnPostgres } from './postgres/insert-with-event.js'
import type { UnitOfWork } from './unit-of-work.js'

/** The JSON text of an event's data, cut where the id the database assigns to its resource goes. */
export interface DataAroundId {
  beforeId: string
  afterId: string
}

export interface InsertWithEvent<Row> {
  /** The table the row goes to (a name of the schema, never input). */
  table: string
  /** The new row's values, by column. */
  values: Readonly<Record<string, unknown>>
  type: EventType
  /** The event's data, from the inserted row (as the resource's mapper makes it). */
  data: (row: Row) => object
  /** The same data as JSON text before the row exists, cut where its id goes (the same bytes once inserted). */
  dataAroundId: () => DataAroundId
}

/** Inserts the row and records its event in `uow`; returns the inserted row. */
export async function insertWithEvent<Row>(uow: UnitOfWork, change: InsertWithEvent<Row>): Promise<Row> {
  if (onPostgres(uow.trx)) return insertWithEventOnPostgres(uow, change)
  const row = await insertOnSqlite(uow.trx, change)
  const data = JSON.stringify(change.data(row))
  await appendEvent(uow.trx, { type: change.type, occurredAt: new Date().toISOString(), data })
  uow.events.push(change.type)
  return row
}

/** SQLite's insert texts by table and columns, built once (as PostgreSQL's are). */
const sqliteStatements = new Map<string, string>()

/**
 * The row's insert, its text made once per table and columns rather than built and compiled by the query builder
 * for every create: that cost a tenth of a durable create's CPU (docs/benchmarks.md).
 */
async function insertOnSqlite<Row>(trx: Writer, change: InsertWithEvent<Row>): Promise<Row> {
  const columns = Object.keys(change.values)
  const key = `${change.table}(${columns.join(',')})`
  let text = sqliteStatements.get(key)
  if (text === undefined) {
    const placeholders = columns.map(() => '?').join(', ')
    text = `insert into ${change.table} (${columns.join(', ')}) values (${placeholders}) returning *`
    sqliteStatements.set(key, text)
  }
  const { rows } = await trx.executeQuery<Row>(
    CompiledQuery.raw(
      text,
      columns.map((column) => change.values[column]),
    ),
  )
  const row = rows[0]
  if (row === undefined) throw new Error(`the insert into ${change.table} returned no row`)
  return row
}
