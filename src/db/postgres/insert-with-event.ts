// PostgreSQL: a row and the event that names it in one statement (db/insert-with-event.ts says when). The row's
// id, which the event's data holds, is assigned by the database in that statement: the database writes its
// digits between the two halves of the data's JSON text.
import { CompiledQuery } from 'kysely'
import type { InsertWithEvent } from '../insert-with-event.js'
import { wholeChange } from '../postgres-transactions.js'
import type { UnitOfWork } from '../unit-of-work.js'
import type { Combinable } from './combined-statements.js'

/** The statements of an insert: the single one, and the one for many transactions' rows at once. */
interface InsertStatements {
  text: string
  combinable: Combinable
}

/** By table and columns: built once, so every insert of a kind sends the same prepared texts. */
const statements = new Map<string, InsertStatements>()

function insertStatements(table: string, columns: readonly string[]): InsertStatements {
  const key = `${table}(${columns.join(',')})`
  let found = statements.get(key)
  if (found === undefined) {
    found = { text: singleText(table, columns), combinable: combinableInsert(key, table, columns) }
    statements.set(key, found)
  }
  return found
}

// Every data-modifying part of a WITH runs once, whether the statement's result reads it or not.
function singleText(table: string, columns: readonly string[]): string {
  const $ = (index: number) => `$${index}`
  const values = columns.map((_, index) => $(index + 1)).join(', ')
  const event = columns.length + 1
  return `with inserted as (
    insert into ${table} (${columns.join(', ')}) values (${values}) returning *
  ), event as (insert into event_inbox (type, occurred_at, data)
    select ${$(event)}, ${$(event + 1)}, ${$(event + 2)}::text || inserted.id::text || ${$(event + 3)}::text
    from inserted)
  select * from inserted`
}

/**
 * The inserts of many transactions as one statement (combined-statements.ts): the rows as one JSON array read
 * as rows of the table (so each value takes its column's type), inserted in the members' order, so that the ids
 * the identity hands out rise in that order; the events' data made from the ids in the same order. Returns the
 * rows in id order, which is the members' order. Parameters of one member: the row's values, then the event's
 * type, time and data around the id (the single statement's).
 */
function combinableInsert(key: string, table: string, columns: readonly string[]): Combinable {
  const list = columns.join(', ')
  const text = `with row_values as (select * from json_populate_recordset(null::${table}, $1::json) with ordinality),
    inserted as (insert into ${table} (${list}) select ${list} from row_values order by ordinality returning *),
    numbered as (select id, row_number() over (order by id) as n from inserted),
    event_values as (select * from unnest($2::text[], $3::text[], $4::text[], $5::text[])
      with ordinality as event_value(type, occurred_at, before_id, after_id, n)),
    event as (insert into event_inbox (type, occurred_at, data)
      select type, occurred_at, before_id || numbered.id::text || after_id
      from numbered join event_values using (n) order by n)
  select * from inserted order by id`
  const count = columns.length
  return {
    key,
    combine: (parameters) =>
      CompiledQuery.raw(text, [
        JSON.stringify(
          parameters.map((values) => Object.fromEntries(columns.map((column, index) => [column, values[index]]))),
        ),
        ...[0, 1, 2, 3].map((offset) => parameters.map((values) => values[count + offset])),
      ]),
  }
}

export async function insertWithEventOnPostgres<Row>(uow: UnitOfWork, change: InsertWithEvent<Row>): Promise<Row> {
  const columns = Object.keys(change.values)
  const { beforeId, afterId } = change.dataAroundId()
  const { text, combinable } = insertStatements(change.table, columns)
  uow.events.push(change.type)
  const { rows } = await wholeChange<Row>(
    uow,
    CompiledQuery.raw(text, [
      ...columns.map((column) => change.values[column]),
      change.type,
      new Date().toISOString(),
      beforeId,
      afterId,
    ]),
    combinable,
  )
  const inserted = rows[0]
  if (!inserted) throw new Error(`the insert into ${change.table} returned no row`)
  return inserted
}
