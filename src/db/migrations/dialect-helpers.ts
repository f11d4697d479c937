import { PostgresAdapter, type ColumnDataType, type ColumnDefinitionBuilder, type Kysely } from 'kysely'

export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/** int64 ids: SQLite's INTEGER PRIMARY KEY is already 64-bit (and must be spelled `integer` to be the rowid). */
export function idType(db: Kysely<unknown>): ColumnDataType {
  return isPostgres(db) ? 'bigint' : 'integer'
}

/**
 * A database-assigned int64 id that is never reused: SQLite's AUTOINCREMENT never hands out an id again,
 * even after the highest row is deleted (a plain INTEGER PRIMARY KEY would); PostgreSQL uses an identity.
 */
export function idColumn(db: Kysely<unknown>, column: ColumnDefinitionBuilder): ColumnDefinitionBuilder {
  return isPostgres(db) ? column.primaryKey().generatedAlwaysAsIdentity() : column.primaryKey().autoIncrement()
}
