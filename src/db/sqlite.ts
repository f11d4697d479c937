import { closeSync, existsSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import type { DataAccess, Database } from './database.js'
import { GroupCommit, GroupCommitSqliteDialect, type GroupCommitStats } from './group-commit.js'
import type { Store } from './store.js'
import { isAnotherProgramsFile, TABLES_SQL } from './sqlite/foreign-file.js'
import { makeDirectories } from './sqlite/make-directories.js'
import { readSnapshotPerTurn } from './sqlite/read-snapshot-per-turn.js'
import { withStatementCache } from './statement-cache.js'

/** How long a writer waits for another process's write lock before SQLite gives up with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000

/** Thrown when a command that must not create a database finds none at its path. */
export class SqliteDatabaseMissingError extends Error {
  readonly path: string

  constructor(path: string) {
    super(`no SQLite database at ${path}`)
    this.name = 'SqliteDatabaseMissingError'
    this.path = path
  }
}

/**
 * Page caches, in KiB. The writer keeps SQLite's own default (2 MiB, not the 16 MiB better-sqlite3 compiles
 * in): it mostly touches the pages at the end of the tables, where new rows go. The reader, which serves every
 * read, keeps 16 MiB: a page beyond the cache comes from the operating system's file cache, which costs a read
 * call and a 4 KiB copy, about half of a lookup by a random id while the pets' pages fit (100,000 pets do).
 * The cache fills only as pages are read, so the memory after start is the same.
 * Memory-mapped I/O stays off: mapped pages would count against the process's memory, up to the whole file.
 */
const WRITER_CACHE_KIB = 2000
const READER_CACHE_KIB = 16_000

/**
 * WAL lets readers run beside the writer (and beside other processes). The mode is the file's, kept by SQLite in
 * it, so it is set once, by the writer, and every later connection uses it. Another program's file, which every
 * command refuses, keeps the journal mode that program chose.
 */
function useWriteAheadLog(writer: SqliteDatabase.Database): void {
  const tables = writer.prepare<[], string>(TABLES_SQL).pluck().all()
  if (!isAnotherProgramsFile(tables)) writer.pragma('journal_mode = WAL')
}

/**
 * Creates the database file, when there is none, readable and writable by its owner only: it holds the keys'
 * digests, the webhook secrets sealed and, unless WEBHOOK_SECRET_KEY is set, the key that opens them, as an export
 * does (which is written with mode 0600). SQLite gives the file's -wal and -shm files the file's own mode. A file
 * that exists keeps the mode its operator gave it. A file that cannot be created here is left to SQLite's own
 * open, which fails the same way and whose error the commands explain.
 */
export function createOwnerOnlyFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600))
  } catch {
    // It exists, or SQLite's open says why it cannot.
  }
}

function openHandle(path: string, mustExist: boolean, cacheKiB: number): SqliteDatabase.Database {
  const handle = new SqliteDatabase(path, { fileMustExist: mustExist })
  // synchronous=FULL makes every commit durable before it is acknowledged, so an acknowledged write survives a
  // power cut.
  handle.pragma('synchronous = FULL')
  handle.pragma('foreign_keys = ON')
  handle.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  handle.pragma(`cache_size = -${cacheKiB}`)
  return handle
}

/** What SQLite adds to every store: the writer for migrations, group-commit statistics, its read fast path. */
export type SqliteStore = Omit<Store, 'dialect' | 'eventsReadVersion' | 'ping'> & {
  groupCommitStats: GroupCommitStats
}

/**
 * Two connections to one file: the writer, whose transactions are group-committed (see group-commit.ts),
 * and a reader for everything else. The reader sees only committed data, so nobody ever reads a write that
 * a batch has not yet made durable. (An in-memory database cannot be shared by two connections; there the
 * writer serves reads too.)
 */
export function openSqlite(path: string, { mustExist = false }: { mustExist?: boolean } = {}): SqliteStore {
  const inMemory = path === ':memory:'
  // A command run from the wrong directory would otherwise work on a new, empty database without a word.
  if (mustExist && !inMemory && !existsSync(path)) throw new SqliteDatabaseMissingError(path)
  if (!inMemory && !mustExist) {
    makeDirectories(dirname(path))
    createOwnerOnlyFile(path)
  }
  const writerHandle = openHandle(path, mustExist && !inMemory, WRITER_CACHE_KIB)
  useWriteAheadLog(writerHandle)
  const groupCommit = new GroupCommit(writerHandle)
  const db = new Kysely<Database>({
    dialect: new GroupCommitSqliteDialect({ database: withStatementCache(writerHandle) }, groupCommit),
  })
  groupCommit.attach(db)

  let read: Kysely<Database> = db
  let readVersion: (() => Promise<number>) | undefined
  let readerHandle: SqliteDatabase.Database | undefined
  if (!inMemory) {
    readerHandle = openHandle(path, true, READER_CACHE_KIB)
    readerHandle.pragma('query_only = ON')
    read = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(readerHandle) }) })
    // Changes whenever another connection (our writer, or any other process) commits to the file.
    readVersion = readSnapshotPerTurn(readerHandle)
  }

  const transaction: DataAccess['transaction'] = async (work) => {
    let committed: Promise<void> | undefined
    const result = await db.transaction().execute((trx) => {
      committed = groupCommit.currentBatch
      return work(trx)
    })
    await committed
    return result
  }

  return {
    admin: db,
    migrations: db,
    read,
    groupCommitStats: groupCommit.stats,
    combinedStatementStats: undefined,
    readVersion,
    readWithVersion: undefined,
    sqliteReader: readerHandle,
    transaction,
    bookkeeping: { read, transaction },
    sequencing: undefined,
    listen: undefined,
    async close() {
      await groupCommit.settle()
      if (read !== db) await read.destroy()
      await db.destroy()
    },
  }
}
