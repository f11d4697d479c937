// Reading one table of the snapshot in pages by primary key: memory holds one page, whatever the table's size.
import { toFileValue } from './columns.js'
import { quoted, type MoveSession, type Row } from '../db/move-session.js'
import type { TableEntry } from './tables.js'

export const PAGE_ROWS = 5000

/** Starts the one read transaction the whole export reads in: every table as of the same instant. */
export async function beginSnapshot(session: MoveSession): Promise<void> {
  await session.beginSnapshot()
}

function pageQuery(session: MoveSession, table: TableEntry, after: Row | undefined, now: string) {
  const parameters: unknown[] = []
  const next = (value: unknown) => (parameters.push(value), session.placeholder(parameters.length))
  const conditions: string[] = []
  const keyList = table.key.map(quoted).join(', ')
  if (after && table.key.length > 0) {
    const values = table.key.map((column) => next(after[column])).join(', ')
    conditions.push(table.key.length === 1 ? `${keyList} > ${values}` : `(${keyList}) > (${values})`)
  }
  if (table.expiresAt) conditions.push(`${quoted(table.expiresAt)} > ${next(now)}`)
  const text =
    `select ${Object.keys(table.columns).map(quoted).join(', ')} from ${quoted(table.name)}` +
    (conditions.length > 0 ? ` where ${conditions.join(' and ')}` : '') +
    (table.key.length > 0 ? ` order by ${keyList} limit ${PAGE_ROWS}` : '')
  return { text, parameters }
}

function inFileForm(session: MoveSession, table: TableEntry, rows: Row[]): Row[] {
  return rows.map((row) => {
    const converted: Row = {}
    for (const [column, kind] of Object.entries(table.columns))
      converted[column] = toFileValue(kind, session, row[column])
    return converted
  })
}

/** The table's rows in the file's form, a page at a time. `now` leaves expired rows behind. */
export async function* tablePages(session: MoveSession, table: TableEntry, now: string): AsyncGenerator<Row[]> {
  let after: Row | undefined
  for (;;) {
    const { text, parameters } = pageQuery(session, table, after, now)
    const rows = await session.select(text, parameters)
    if (rows.length > 0) yield inFileForm(session, table, rows)
    if (table.key.length === 0 || rows.length < PAGE_ROWS) break
    after = rows.at(-1)
  }
  const [key] = table.key
  if (table.waiting && key !== undefined) {
    const columns = Object.keys(table.columns).filter((column) => column !== key)
    const rows = await session.waitingRows(table.waiting.table, columns, table.waiting.order)
    if (rows.length > 0)
      yield inFileForm(
        session,
        table,
        rows.map((row) => ({ ...row, [key]: null })),
      )
  }
}

/** The counter behind the table's ids: the largest id handed out so far, deleted rows' included. */
export async function readCounter(session: MoveSession, table: TableEntry, column: string): Promise<number> {
  return session.readCounter(table.name, column)
}
