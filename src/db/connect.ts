import { sql } from 'kysely'
import type { Config } from '../config.js'
import type { DataAccess, Db } from './database.js'
import { openPostgres } from './postgres.js'
import type { GroupCommitStats } from './group-commit.js'
import { openSqlite } from './sqlite.js'

/** An open database and what the service needs to operate it. */
export interface DatabaseConnection extends DataAccess {
  /** The database itself: migrations, keys and other administrative work. */
  db: Db
  dialect: 'sqlite' | 'postgres'
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>
  /** SQLite only: transactions and the COMMITs (fsyncs) that made them durable, counted since start. */
  groupCommitStats: GroupCommitStats | undefined
  /** Closes every connection. Closing twice is harmless. */
  close(): Promise<void>
}

export type DatabaseSettings = Pick<Config, 'database' | 'databasePoolSize' | 'databaseStatementTimeoutMs'>

export interface ConnectOptions {
  /** SQLite: refuse to create a database file that does not exist yet (SqliteDatabaseMissingError). */
  mustExist?: boolean
}

export function connectDatabase(
  settings: DatabaseSettings,
  onIdleError: (error: Error) => void = () => {},
  { mustExist = false }: ConnectOptions = {},
): DatabaseConnection {
  const { database } = settings
  const store = database.kind === 'postgres'
    ? postgresStore(openPostgres({ url: database.url, poolSize: settings.databasePoolSize, statementTimeoutMs: settings.databaseStatementTimeoutMs, onIdleError }))
    : openSqlite(database.path, { mustExist })
  let closed: Promise<void> | undefined
  return {
    db: store.db,
    read: store.read,
    transaction: store.transaction,
    readVersion: store.readVersion,
    sqliteReader: store.sqliteReader,
    groupCommitStats: store.groupCommitStats,
    dialect: database.kind,
    ping: async () => {
      await sql`select 1`.execute(store.db)
    },
    close: () => (closed ??= store.close()),
  }
}

/** PostgreSQL commits concurrent transactions together by itself; every connection of the pool reads committed data. */
function postgresStore(db: Db): DataAccess & { db: Db; groupCommitStats: undefined; close(): Promise<void> } {
  return { db, read: db, transaction: (work) => db.transaction().execute(work), readVersion: undefined, sqliteReader: undefined, groupCommitStats: undefined, close: () => db.destroy() }
}
