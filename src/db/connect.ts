import { sql } from 'kysely'
import type { DatabaseConfig } from '../config.js'
import type { Db } from './database.js'
import { openSqlite } from './sqlite.js'

/** An open database and what the service needs to operate it. */
export interface DatabaseConnection {
  db: Db
  dialect: 'sqlite' | 'postgres'
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}

export class UnsupportedDatabaseError extends Error {}

export function connectDatabase(config: DatabaseConfig): DatabaseConnection {
  if (config.kind === 'postgres') {
    throw new UnsupportedDatabaseError(
      'DATABASE_URL: PostgreSQL is not supported by this version yet; use file:PATH or sqlite:PATH',
    )
  }
  const { db } = openSqlite(config.path)
  return {
    db,
    dialect: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: () => db.destroy(),
  }
}
