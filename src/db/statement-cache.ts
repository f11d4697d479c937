import type SqliteDatabase from 'better-sqlite3'
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely'

/** The service runs a small fixed set of statements; a bound keeps generated ones from growing it forever. */
const MAX_CACHED_STATEMENTS = 256

/**
 * Kysely's SQLite driver prepares every statement it runs; preparing costs more than running the small
 * indexed queries of this service. This hands Kysely the same prepared statement for the same SQL text.
 * Safe because the driver runs each statement to completion synchronously (all/run), never interleaved.
 */
export function withStatementCache(handle: SqliteDatabase.Database): KyselySqliteDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>()
  return {
    close: () => handle.close(),
    prepare(sql: string) {
      let statement = statements.get(sql)
      if (!statement) {
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear()
        statement = handle.prepare(sql)
        statements.set(sql, statement)
      }
      return statement
    },
  }
}
