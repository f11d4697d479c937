import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import type { Database } from './database.js'
import { withStatementCache } from './statement-cache.js'

/** How long a writer waits for another process's write lock before SQLite gives up with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000

export function openSqlite(path: string): { db: Kysely<Database>; handle: SqliteDatabase.Database } {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const handle = new SqliteDatabase(path)
  // WAL lets readers run beside the writer (and beside other processes); synchronous=FULL makes every
  // commit durable before it is acknowledged, so an acknowledged write survives a power cut.
  handle.pragma('journal_mode = WAL')
  handle.pragma('synchronous = FULL')
  handle.pragma('foreign_keys = ON')
  handle.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(handle) }) })
  return { db, handle }
}
