// PostgreSQL: a row and the event that names it in one statement (db/insert-with-event.ts says when). The row's
// id, which the event's data holds, is assigned by the database in that statement: the database writes its
// digits between the two halves of the data's JSON text.
import { CompiledQuery } from 'kysely'
import type { InsertWithEvent } from '../insert-with-event.js'
import { wholeChange } from '../postgres-transactions.js'
import type { UnitOfWork } from '../unit-of-work.js'

/** Statement texts by table and columns: built once, so every insert of a kind sends the same prepared text. */
const statements = new Map<string, string>()

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
  )
  const inserted = rows[0]
  if (!inserted) throw new Error(`the insert into ${change.table} returned no row`)
  return inserted
}
