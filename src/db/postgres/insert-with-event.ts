// PostgreSQL: a row and the event that names it in one statement (db/insert-with-event.ts says when). The row's
// id, which the event's data holds, is assigned by the database in that statement: the database writes its
// digits between the two halves of the data's JSON text.
import { CompiledQuery } from 'kysely'
import type { InsertWithEvent } from '../insert-with-event.js'
import { wholeChange } from '../postgres-transactions.js'
import type { UnitOfWork } from '../unit-of-work.js'
import type { Combinable } from './combined-statements.js'

/** Statement texts by table and columns: built once, so every insert of a kind sends the same prepared text. */
const statements = new Map<string, string>()
/** The same for many rows at once, and how to make it (combined-statements.ts). */
const combinables = new Map<string, Combinable>()

// Every data-modifying part of a WITH runs once, whether the statement's result reads it or not.
function statementText(table: string, columns: readonly string[]): string {
  const key = `${table}(${columns.join(',')})`
  let text = statements.get(key)
  if (text === undefined) {
    const $ = (index: number) => `$${index}`
    const values = columns.map((_, index) => $(index + 1)).join(', ')
    const event = columns.length + 1
    text = `with inserted as (
    insert into ${table} (${columns.join(', ')}) values (${values}) returning *
  ), event as (insert into event_inbox (type, occurred_at, data)
    select ${$(event)}, ${$(event + 1)}, ${$(event + 2)}::text || inserted.id::text || ${$(event + 3)}::text
    from inserted)
  select * from inserted`
    statements.set(key, text)
  }
  return text
}

/**
 * The inserts of many transactions as one statement: the rows as one JSON array read as rows of the table (so
 * each value takes its column's type), inserted in the members' order, so that the ids the identity hands out
 * rise in that order; the events' data made from the ids in the same order. Returns the rows in id order, which
 * is the members' order. Parameters of one member: the row's values, then the event's type, time and data
 * around the id (the single statement's).
 */
function combinableInsert(table: string, columns: readonly string[]): Combinable {
  const key = `${table}(${columns.join(',')})`
  let combinable = combinables.get(key)
  if (combinable === undefined) {
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
    combinable = {
      key,
      combine: (parameters) =>
        CompiledQuery.raw(text, [
          JSON.stringify(
            parameters.map((values) => Object.fromEntries(columns.map((column, index) => [column, values[index]]))),
          ),
          ...[0, 1, 2, 3].map((offset) => parameters.map((values) => values[count + offset])),
        ]),
    }
    combinables.set(key, combinable)
  }
  return combinable
}

export async function insertWithEventOnPostgres<Row>(uow: UnitOfWork, change: InsertWithEvent<Row>): Promise<Row> {
  const columns = Object.keys(change.values)
  const { beforeId, afterId } = change.dataAroundId()
  uow.events.push(change.type)
  const { rows } = await wholeChange<Row>(
    uow,
    CompiledQuery.raw(statementText(change.table, columns), [
      ...columns.map((column) => change.values[column]),
      change.type,
      new Date().toISOString(),
      beforeId,
      afterId,
    ]),
    combinableInsert(change.table, columns),
  )
  const inserted = rows[0]
  if (!inserted) throw new Error(`the insert into ${change.table} returned no row`)
  return inserted
}
