// One connection of its own for an export or an import, with plain SQL: a snapshot or a load is a single long
// transaction, which the service's connections (statement time-outs, group commit, pipelines) are not made for.
import { existsSync } from 'node:fs'
import SqliteDatabase from 'better-sqlite3'
import type { DatabaseConfig } from '../config.js'
import { parseInt8 } from '../db/postgres.js'
import { SqliteDatabaseMissingError } from '../db/sqlite.js'

export type StoreDialect = DatabaseConfig['kind']
export type Row = Record<string, unknown>

export interface MoveSession {
  dialect: StoreDialect
  /** The parameter placeholder at `index` (from 1). */
  placeholder(index: number): string
  select(text: string, parameters: readonly unknown[]): Promise<Row[]>
  run(text: string, parameters: readonly unknown[]): Promise<void>
  close(): Promise<void>
}

const BUSY_TIMEOUT_MS = 5000

function openSqliteSession(path: string): MoveSession {
  if (!existsSync(path)) throw new SqliteDatabaseMissingError(path)
  const handle = new SqliteDatabase(path, { fileMustExist: true })
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
  return {
    dialect: 'sqlite',
    placeholder: () => '?',
    select: async (text, parameters) => prepared(text).all(...parameters) as Row[],
    run: async (text, parameters) => {
      const statement = prepared(text)
      if (statement.reader) statement.all(...parameters)
      else statement.run(...parameters)
    },
    close: async () => {
      handle.close()
    },
  }
}

async function openPostgresSession(url: string): Promise<MoveSession> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === pg.types.builtins.INT8
          ? parseInt8
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  })
  await client.connect()
  return {
    dialect: 'postgres',
    placeholder: (index) => `$${index}`,
    select: async (text, parameters) => (await client.query<Row>(text, [...parameters])).rows,
    run: async (text, parameters) => {
      await client.query(text, [...parameters])
    },
    close: () => client.end(),
  }
}

export function openMoveSession(database: DatabaseConfig): Promise<MoveSession> | MoveSession {
  return database.kind === 'sqlite' ? openSqliteSession(database.path) : openPostgresSession(database.url)
}

/** A table or column name, quoted for SQL (names come from the table list, never from a file). */
export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`
