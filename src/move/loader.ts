// Loading records into the target, inside the import's transaction: rows in multi-row inserts of a batch each
// (one statement per batch, not per row), then the counters behind the ids.
import { DamagedFileError, toStoreValue } from './columns.js'
import { quoted, type MoveSession, type Row } from '../db/move-session.js'
import type { TableEntry } from './tables.js'

/** Values per statement: under SQLite's limit (32,766) and PostgreSQL's (65,535). */
const VALUES_PER_STATEMENT = 30_000
const MAX_ROWS_PER_STATEMENT = 1000

export class TableLoader {
  readonly #session: MoveSession
  readonly #table: TableEntry
  /** The schema the file was written with (its header): derived columns follow its rules. */
  readonly #fileSchema: string
  #columns: string[] = []
  #values: unknown[] = []
  #rows = 0
  count = 0

  constructor(session: MoveSession, table: TableEntry, fileSchema: string) {
    this.#session = session
    this.#table = table
    this.#fileSchema = fileSchema
  }

  /** Adds a row of the file; inserts a batch when one is full. */
  async add(fileRow: Row): Promise<void> {
    const derived = this.#table.derived
    const row = derived ? { ...fileRow } : fileRow
    for (const [column, derive] of Object.entries(derived ?? {})) row[column] = derive(row, this.#fileSchema)
    const columns = Object.keys(row)
    for (const column of columns)
      if (!Object.hasOwn(this.#table.columns, column))
        throw new DamagedFileError(`the file is damaged: ${this.#table.name} has no column ${JSON.stringify(column)}`)
    // Every row of one file has the same columns; a file of an earlier schema may have fewer (defaults fill in).
    if (this.#rows > 0 && columns.join() !== this.#columns.join()) await this.flush()
    this.#columns = columns
    for (const column of columns) {
      const kind = this.#table.columns[column] ?? 'text'
      this.#values.push(toStoreValue(kind, this.#session, row[column], `${this.#table.name}.${column}`))
    }
    this.#rows++
    this.count++
    const batchRows = Math.min(MAX_ROWS_PER_STATEMENT, Math.floor(VALUES_PER_STATEMENT / columns.length))
    if (this.#rows >= batchRows) await this.flush()
  }

  async flush(): Promise<void> {
    if (this.#rows === 0) return
    const session = this.#session
    let index = 0
    const tuples: string[] = []
    for (let row = 0; row < this.#rows; row++)
      tuples.push(`(${this.#columns.map(() => session.placeholder(++index)).join(', ')})`)
    const overriding = this.#table.counter ? session.insertKeepingIds : ''
    await session.run(
      `insert into ${quoted(this.#table.name)} (${this.#columns.map(quoted).join(', ')})${overriding} ` +
        `values ${tuples.join(', ')}`,
      this.#values,
    )
    this.#values = []
    this.#rows = 0
  }
}

/** Sets the counter behind the table's ids: new ids continue above the file's counter and above every row. */
export async function setCounter(session: MoveSession, table: TableEntry, counter: number): Promise<void> {
  const column = table.counter
  if (!column) throw new DamagedFileError(`the file is damaged: ${table.name} has no id counter`)
  await session.setCounter(table.name, column, counter)
}
