// SQLite's side of a move session (db/move-session.ts): one better-sqlite3 handle, prepared statements.
import { existsSync } from 'node:fs'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import type { Database } from '../database.js'
import { migrateInsideTransaction } from '../migrate.js'
import { CATEGORY_VERSION_BOUNDS, quoted, type MoveSession, type Row } from '../move-session.js'
import { BUSY_TIMEOUT_MS, createOwnerOnlyFile, SqliteDatabaseMissingError } from '../sqlite.js'
import { makeDirectories } from './make-directories.js'

export function openSqliteMoveSession(path: string, { create = false } = {}): MoveSession {
  if (!create && !existsSync(path)) throw new SqliteDatabaseMissingError(path)
  const creating = create && !existsSync(path)
  if (create) makeDirectories(dirname(path))
  if (creating) createOwnerOnlyFile(path)
  const handle = new SqliteDatabase(path, { fileMustExist: !create })
  // What the service sets on a file it creates; outside any transaction, where SQLite accepts it. Not on a file
  // that exists: a refused import leaves it as it was (the service sets WAL itself when it opens the file).
  if (creating) handle.pragma('journal_mode = WAL')
  handle.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  handle.pragma('foreign_keys = ON')
  // A load is one transaction: made durable once, at its commit.
  handle.pragma('synchronous = FULL')
  const statements = new Map<string, SqliteDatabase.Statement>()
  const prepared = (text: string) => {
    let statement = statements.get(text)
    if (!statement) {
      // Batches come in few sizes; the cache stays small.
      if (statements.size > 64) statements.clear()
      statement = handle.prepare(text)
      statements.set(text, statement)
    }
    return statement
  }
  const select = async (text: string, parameters: readonly unknown[]) => prepared(text).all(...parameters) as Row[]
  const run = async (text: string, parameters: readonly unknown[]) => {
    const statement = prepared(text)
    if (statement.reader) statement.all(...parameters)
    else statement.run(...parameters)
  }
  async function setCounter(table: string, column: string, counter: number): Promise<void> {
    await run('delete from sqlite_sequence where name = ?', [table])
    const largest = `coalesce(max(${quoted(column)}), 0)`
    await run(`insert into sqlite_sequence (name, seq) select ?, max(?, ${largest}) from ${quoted(table)}`, [
      table,
      counter,
    ])
  }
  return {
    name: 'sqlite',
    placeholder: () => '?',
    select,
    run,
    // A deferred transaction takes its snapshot at its first read and keeps it (WAL), writers go on.
    beginSnapshot: () => run('begin', []),
    beginLoad: () => run('begin immediate', []),
    // Kysely's SQLite driver on this very handle (never destroyed here: that would close it).
    async migrateInsideLoad() {
      return migrateInsideTransaction(new Kysely<Database>({ dialect: new SqliteDialect({ database: handle }) }))
    },
    jsonFromStore: (value) => (typeof value === 'string' ? JSON.parse(value) : value),
    booleanToStore: (value) => Number(value),
    insertKeepingIds: '',
    async readCounter(table) {
      const [row] = await select('select seq as value from sqlite_sequence where name = ?', [table])
      return typeof row?.value === 'number' ? row.value : 0
    },
    setCounter,
    // Every row has its id from its insert.
    waitingRows: async () => [],
    // Events take their ids from AUTOINCREMENT, whose counter only knows the rows inserted.
    async continueEventIdsAfterRetentionMark() {
      const [mark] = await select('select coalesce(max(purged_through), 0) as value from event_retention', [])
      await setCounter('events', 'id', typeof mark?.value === 'number' ? mark.value : 0)
    },
    // Every event has its id from its insert: none waits. SQLite's max() of several values is the largest of them.
    setCategoryVersionFloorToEventBound: () =>
      run(`update category_id_counter set version_floor = max(${CATEGORY_VERSION_BOUNDS}) where last_id > 0`, []),
    close: async () => {
      handle.close()
    },
  }
}
