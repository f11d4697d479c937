// One connection of its own for an export or an import (petstore export / import, src/move/), with plain SQL:
// a snapshot or a load is a single long transaction, which the service's connections (statement time-outs,
// group commit, pipelines) are not made for. Where the stores differ (transactions, column types, the
// counters behind ids), the session says it in its own terms (db/sqlite/move-session.ts,
// db/postgres/move-session.ts), so the tool itself is the same for both.
import { closeSync, existsSync, fsyncSync, linkSync, openSync, unlinkSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type { DatabaseConfig } from '../config.js'
import type { MigrationReport } from './migrate.js'
import { openPostgresMoveSession } from './postgres/move-session.js'
import { openSqliteMoveSession } from './sqlite/move-session.js'

export type Row = Record<string, unknown>

export interface MoveSession {
  /** The store's name, as a shop file records where it came from. */
  name: DatabaseConfig['kind']
  /** The parameter placeholder at `index` (from 1). */
  placeholder(index: number): string
  select(text: string, parameters: readonly unknown[]): Promise<Row[]>
  run(text: string, parameters: readonly unknown[]): Promise<void>
  /** Starts the one read transaction an export reads in: every table as of the same instant, writers go on. */
  beginSnapshot(): Promise<void>
  /** Starts the import's write transaction, holding the database's other writers off from the start. */
  beginLoad(): Promise<void>
  /**
   * Brings the schema up to date inside the transaction `beginLoad` started, so that a refused import takes the
   * schema back with its rows: an empty database is left as empty as it was, not migrated. The report names the
   * migrations a newer petstore applied, which this one neither knows nor loads a file for.
   */
  migrateInsideLoad(): Promise<MigrationReport>
  /** A JSON column's value as read, parsed (SQLite keeps JSON as text; PostgreSQL's jsonb arrives parsed). */
  jsonFromStore(value: unknown): unknown
  /** A boolean as this store keeps it (SQLite: 0 or 1). */
  booleanToStore(value: boolean): unknown
  /** What an insert says to keep the file's values of a column whose ids the store hands out ('' or a clause). */
  insertKeepingIds: string
  /** The counter behind `table`'s `column`: the largest id handed out so far, deleted rows' included. */
  readCounter(table: string, column: string): Promise<number>
  /** Sets the counter behind `table`'s `column`: new ids continue above `counter` and above every row. */
  setCounter(table: string, column: string, counter: number): Promise<void>
  /**
   * The rows waiting in `table` for their key, in `order` (PostgreSQL's events the numbering has not reached
   * yet, in event_inbox); none on a store that keys every row at its insert.
   */
  waitingRows(table: string, columns: readonly string[], order: string): Promise<Row[]>
  /**
   * New event ids continue above the retention mark (`event_retention.purged_through`), even when no event is left
   * to continue from: a follower's `after` may be the mark, and an id at or below it would never be seen.
   */
  continueEventIdsAfterRetentionMark(): Promise<void>
  /**
   * Sets the floor of new categories' versions (category_id_counter.version_floor, once any category was created)
   * to the bound migration 0014_category_version_floor sets on an upgraded store: no version ever reached exceeds
   * the largest event id, kept or purged, plus the events still waiting for theirs (PostgreSQL's event_inbox).
   */
  setCategoryVersionFloorToEventBound(): Promise<void>
  close(): Promise<void>
}

/** `create`: an import may start from no SQLite file at all (an export needs one). */
export function openMoveSession(database: DatabaseConfig, { create = false } = {}): Promise<MoveSession> | MoveSession {
  return database.kind === 'sqlite'
    ? openSqliteMoveSession(database.path, { create })
    : openPostgresMoveSession(database.url)
}

/**
 * Where an import into `database` loads, and what it removes if it fails. A SQLite file that does not exist yet is
 * loaded under a name of its own beside it (`.NAME.PID.partial`, in the directories made for it, which do not exist
 * yet either, the innermost first), and put in place under its name only once committed, if nothing has appeared
 * there meanwhile: another import into the same new path, started at the same moment, can then neither load into
 * this one's file nor remove it as its own when refused. A file that exists, or PostgreSQL, is loaded in place.
 */
export interface ImportPlace {
  database: DatabaseConfig
  files: string[]
  directories: string[]
  /** After the commit, with the session closed: the loaded file under the target's name. */
  publish(): void
}

export function importPlace(database: DatabaseConfig): ImportPlace {
  if (database.kind !== 'sqlite' || existsSync(database.path))
    return { database, files: [], directories: [], publish: () => {} }
  const directories: string[] = []
  for (let directory = dirname(resolve(database.path)); !existsSync(directory); directory = dirname(directory))
    directories.push(directory)
  const target = database.path
  const loading = join(dirname(target), `.${basename(target)}.${process.pid}.partial`)
  return {
    database: { kind: 'sqlite', path: loading },
    files: ['', '-wal', '-shm'].map((suffix) => `${loading}${suffix}`),
    directories,
    publish() {
      // A link, unlike a rename, never replaces what is there: the write-ahead log went into the file at close.
      try {
        linkSync(loading, target)
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'EEXIST') throw error
        throw new Error(
          `${target} was created by another process while this import ran (another import, or the service): ` +
            'this one is not put in its place',
          { cause: error },
        )
      }
      unlinkSync(loading)
      // The new name on disk before the import says it is done: a crash then does not take the shop back out.
      const directory = openSync(dirname(target), 'r')
      try {
        fsyncSync(directory)
      } finally {
        closeSync(directory)
      }
    },
  }
}

/**
 * What bounds every category version ever reached, each a value the store picks the largest of (with its own
 * function for it); the migration that first set the floor writes the same terms out itself.
 */
export const CATEGORY_VERSION_BOUNDS = [
  '(select coalesce(max(version), 0) from categories)',
  '(select coalesce(max(id), 0) from events)',
  '(select coalesce(max(purged_through), 0) from event_retention)',
].join(', ')

/** A table or column name, quoted for SQL (names come from the table list, never from a file). */
export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`
