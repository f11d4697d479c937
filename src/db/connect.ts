import { sql } from 'kysely'
import type { Config } from '../config.js'
import type { DataAccess, Db } from './database.js'
import { openPostgres } from './postgres.js'
import { openSqlite } from './sqlite.js'

/** An open database and what the service needs to operate it. */
export interface DatabaseConnection extends DataAccess {
  /** The database itself: migrations, keys and other administrative work. */
  db: Db
  dialect: 'sqlite' | 'postgres'
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>
  /** Closes every connection. Closing twice is harmless. */
  close(): Promise<void>
}

export type DatabaseSettings = Pick<Config, 'database' | 'databasePoolSize' | 'databaseStatementTimeoutMs'>

export function connectDatabase(
  settings: DatabaseSettings,
  onIdleError: (error: Error) => void = () => {},
): DatabaseConnection {
  const { database } = settings
  const { db, dialect } = database.kind === 'postgres'
    ? {
        db: openPostgres({ url: database.url, poolSize: settings.databasePoolSize, statementTimeoutMs: settings.databaseStatementTimeoutMs, onIdleError }).db,
        dialect: 'postgres' as const,
      }
    : { db: openSqlite(database.path).db, dialect: 'sqlite' as const }
  let closed: Promise<void> | undefined
  return {
    db,
    read: db,
    transaction: (work) => db.transaction().execute(work),
    dialect,
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: () => (closed ??= db.destroy()),
  }
}
